-- A run whose model hands work to a child agent (the `task` tool), against the real daemon and the
-- repository's fake LLM (tests/fakellm: the parent's and the child's requests take its script in
-- turn, as the parent waits for its task): the child's question names its agent; the chat and the
-- run buffer show the child's rows indented under the task's row, which names the agent, and keep
-- the child's text out of the parent's answer; the session shown again (/resume) reads the same.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")

local fake = h.fake

local function chat_buf()
  return require("harness9.chat").find()
end

local function send(prompt)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A" .. prompt .. "\r", true, false, true), "tx", false)
  vim.cmd("stopinsert")
  h.wait_idle("the run of " .. prompt)
end

-- The chat's lines from the agent's part of the first run, durations made constant.
local function chat_answer()
  local lines, out, inside = h.normalized(chat_buf()), {}, false
  for _, line in ipairs(lines) do
    inside = inside or line == "harness9"
    if inside then
      table.insert(out, (line:gsub("%d+%.%d s", "N ms"):gsub("%$%d+%.%d+", "$N")))
    end
    if line:match("^  ── ") then
      break
    end
  end
  return out
end

local EXPECTED_CHAT = {
  "harness9",
  "Asking a helper.",
  "  ✓ general agent: find the greeting · N ms · $N",
  "    Looking.",
  "      ✓ ran `echo child-ran` · exit 0 · allowed once · N ms · <sandbox>",
  "    CHILD-ANSWER: it printed child-ran.",
  "PARENT-ANSWER: the helper is done.",
  "  ── done · 2 turns · 1 tool call · N in / N out tokens · $N",
}

local function run_with_a_task()
  fake.script({
    { text = "Asking a helper.", tool_calls = { { name = "task", arguments = {
      description = "find the greeting", prompt = "CHILD: run echo", agent = "general" } } } },
    { text = "Looking.", tool_calls = { { name = "bash", arguments = { command = "echo child-ran" } } } },
    { text = "CHILD-ANSWER: it printed child-ran." },
    { text = "PARENT-ANSWER: the helper is done." },
  })
  local asked = h.fake_select({ "Allow once" })
  send("find the greeting")
  h.expect_equal("the child's question", "harness9's general agent asks to run bash: echo child-ran",
    asked[1] and asked[1].prompt)
  -- The chat redraws on a schedule of its own: its last drawing may follow the run's end.
  vim.wait(h.TIMEOUT_MS, function()
    return vim.deep_equal(chat_answer(), EXPECTED_CHAT)
  end, 20)
  h.expect_lines("the chat", EXPECTED_CHAT, chat_answer())
  local run = vim.tbl_map(function(line)
    return (line:gsub("%$%d+%.%d+", "$N"))
  end, h.normalized(harness9.buffer()))
  h.expect_lines("the run buffer", {
    "» find the greeting",
    "── turn 1",
    "Asking a helper.",
    "  ✓ task (general agent): find the greeting  (N ms, $N)",
    "    Looking.",
    "      ✓ bash: echo child-ran  (allowed once, N ms) · <sandbox>",
    "        │ child-ran",
    "    CHILD-ANSWER: it printed child-ran.",
    "── turn 2",
    "PARENT-ANSWER: the helper is done.",
    "■ completed · 2 turns · 1 tool call · N in / N out tokens · $N",
  }, run)
end

-- The stored session, shown again: the task's `transcript` brings the child's rows back.
local function shown_again()
  local old = harness9.session_id()
  send("/clear")
  send("/resume " .. old)
  h.wait_for("the resumed session in the chat", function()
    return table.concat(vim.api.nvim_buf_get_lines(chat_buf(), 0, -1, false), "\n"):match("PARENT%-ANSWER") ~= nil
  end)
  -- Each child call comes back with its kept outcome: its row reads as it did live.
  h.expect_lines("the chat shown again", {
    "harness9",
    "Asking a helper.",
    "  ✓ general agent: find the greeting · N ms · $N",
    "    Looking.",
    "      ✓ ran `echo child-ran` · exit 0 · allowed once · N ms · <sandbox>",
    "    CHILD-ANSWER: it printed child-ran.",
    "PARENT-ANSWER: the helper is done.",
    "  ── done · 2 turns · 1 tool call",
  }, chat_answer())
end

h.main(function()
  local url = fake.start()
  h.setup({
    init_options = { provider = "openai", model = "gpt-4o-mini" },
    cmd_env = { OPENAI_API_KEY = "sk-fake", OPENAI_BASE_URL = url .. "/v1", ANTHROPIC_API_KEY = "" },
    approvals = { mode = "ask" },
  })
  harness9.chat()
  vim.cmd("stopinsert")
  run_with_a_task()
  shown_again()
  vim.fn.jobstop(fake.job)
end)
