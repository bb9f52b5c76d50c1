-- :Harness9Sessions. A stored session (an `agent/session` result as protocol 1.2 gives it: each
-- tool call with its kind) loads into the chat as its conversation; then, with the real daemon: two chats make two sessions, the
-- list offers both (newest first), Resume brings the first back into the chat and the next prompt
-- continues it, Delete removes the other.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local chat_view = require("harness9.chat_view")
local view = require("harness9.view")

local function scripted()
  local state = view.new()
  view.load_session(state, {
    sessionId = "s-1",
    title = "fix the adder",
    messages = {
      { role = "user", content = "fix calc.py\n\n<attached: calc.py>" },
      { role = "assistant", content = "Reading it.", toolCalls = {
        { id = "c1", name = "read_file", kind = "read", arguments = '{"path": "calc.py"}' } } },
      { role = "tool", toolCallId = "c1", content = "def add(a, b): return a - b" },
      { role = "assistant", content = "", toolCalls = {
        { id = "c2", name = "bash", kind = "execute", arguments = { command = "python -m pytest -q" } } } },
      { role = "tool", toolCallId = "c2", content = "1 failed\nexit status 1" },
      { role = "assistant", content = "It subtracts." },
      { role = "user", content = "thanks" },
      { role = "assistant", content = "You're welcome." },
    },
    runs = {
      { runId = "r-1", prompt = "fix calc.py", status = "completed", turns = 3, toolCalls = 2 },
      { runId = "r-2", prompt = "thanks", status = "completed", turns = 1, toolCalls = 0 },
    },
  })
  h.expect_lines("a stored session in the chat", {
    "harness9 chat · session s-1",
    "",
    "You",
    "fix calc.py",
    "",
    "harness9",
    "Reading it.",
    "  ✓ read calc.py",
    -- A stored result keeps what the model read, not the exit code: none is named (the
    -- "exit status 1" line of the model's text is not read back).
    "  ✓ ran `python -m pytest -q`",
    "It subtracts.",
    "  ── done · 3 turns · 2 tool calls",
    "",
    "You",
    "thanks",
    "",
    "harness9",
    "You're welcome.",
    "  ── done · 1 turn · 0 tool calls",
    "",
  }, chat_view.render(state).lines)
  -- Live events of a new run never land in a stored run.
  view.start(state, "more")
  view.apply(state, { runId = "r-9", sessionId = "s-1", kind = "text_delta", turn = 1, text = "New." })
  h.expect_equal("the new run's text", "New.", state.runs[3].blocks[1].text)
end

local function chat_run(prompt)
  harness9.chat()
  vim.api.nvim_feedkeys("A" .. prompt .. "\r", "tx", false)
  vim.wait(50)
  h.wait_for("the run of " .. prompt, function()
    return not harness9.running()
  end)
  vim.wait(50)
end

local function real_daemon()
  h.setup({})
  chat_run("first chat")
  h.expect_served("methods", "agent/sessions")
  vim.cmd("Harness9Chat!")
  vim.cmd("stopinsert")
  chat_run("second chat")
  local asked = h.fake_select({ 2, "Resume" })
  vim.cmd("Harness9Sessions")
  h.wait_for("the resumed conversation", function()
    return #asked == 2 and vim.api.nvim_buf_get_lines(require("harness9.chat").find(), 3, 4, false)[1] == "first chat"
  end)
  if not asked[1].labels[1]:match("^.+ · %d+ turns? · %d%d:%d%d:%d%d$") then
    h.fail("a session's label: " .. asked[1].labels[1])
  end
  h.expect_equal("the actions", { "Resume", "Delete", "Cancel" }, asked[2].labels)
  local first_session = harness9.session_id()
  chat_run("and more")
  h.expect_equal("the session continued", first_session, harness9.session_id())
  asked = h.fake_select({ 1, "Delete" })
  vim.cmd("Harness9Sessions")
  h.wait_for("the deletion", function()
    return #asked == 2 and vim.api.nvim_exec("messages", true):match("harness9: deleted") ~= nil
  end)
  asked = h.fake_select({ 1, "Cancel" })
  vim.cmd("Harness9Sessions")
  h.wait_for("the list after the deletion", function()
    return #asked >= 1
  end)
  h.expect_equal("sessions left", 1, #asked[1].labels)
end

h.main(function()
  scripted()
  real_daemon()
end)
