-- :Harness9Model and slash commands against the real daemon and the repository's fake LLM
-- service (tests/fakellm, OpenAI wire): a model picked (with its reasoning effort) before the chat
-- has a session is what the first request asks for and stays the session's; `:Harness9Model
-- provider:model` changes it and completes the model ids; `/rev` completes to the workspace's
-- `/review` command (front matter description) and runs it; `:Harness9Commands` lists it; `/clear`
-- empties the chat in a new session, `/resume ID` brings the old one back; `/compact` runs.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local chat_view = require("harness9.chat_view")
local view = require("harness9.view")

local fake = h.fake -- the fake LLM as a child process

-- The text of the last user message of a request body.
local function last_user_text(body)
  for i = #body.messages, 1, -1 do
    local msg = body.messages[i]
    if msg.role == "user" then
      if type(msg.content) == "string" then
        return msg.content
      end
      local parts = {}
      for _, part in ipairs(msg.content) do
        table.insert(parts, part.text or "")
      end
      return table.concat(parts, "")
    end
  end
  return ""
end

local function chat_buf()
  return require("harness9.chat").find()
end

local function prompt_line()
  local lines = vim.api.nvim_buf_get_lines(chat_buf(), 0, -1, false)
  return lines[#lines]
end

-- Types `keys` at the end of the prompt line (insert mode), then leaves insert mode.
local function type_keys(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A" .. keys, true, false, true), "tx", false)
  vim.cmd("stopinsert")
end

local function send(prompt)
  type_keys(prompt .. "\r")
  h.wait_idle("the run of " .. prompt)
end

local function chat_text()
  return table.concat(vim.api.nvim_buf_get_lines(chat_buf(), 0, -1, false), "\n")
end

local function messages()
  return vim.api.nvim_exec("messages", true)
end

local function pick_a_model()
  local asked = h.fake_select({ "openai/o3-mini", "high" })
  vim.cmd("Harness9Model")
  h.wait_for("the model to be chosen", function()
    return harness9.chosen_model() ~= nil
  end)
  h.expect_served("methods", "agent/models")
  local labels = asked[1].labels
  for _, want in ipairs({ "openai/gpt-4o", "openai/o3-mini", "openai/gpt-4o-mini (in use)" }) do
    if not vim.tbl_contains(labels, want) then
      h.fail(want .. " is not among the models offered: " .. vim.inspect(labels))
    end
  end
  -- o3-mini takes a reasoning effort (the daemon's table of model families): a second question.
  h.expect_equal("the efforts", { "default", "low", "medium", "high" }, asked[2].labels)
  h.expect_equal("the choice", { provider = "openai", model = "o3-mini", reasoningEffort = "high" },
    harness9.chosen_model())
end

local function models()
  fake.script({ { text = "Hello from the picked model." }, { text = "Still here." },
                { text = "Back to a plain one." } })
  pick_a_model()
  send("hello")
  local bodies = fake.completions()
  h.expect_equal("the first request's model and effort", { "o3-mini", "high" },
    { bodies[#bodies].model, bodies[#bodies].reasoning_effort })
  send("again")
  bodies = fake.completions()
  h.expect_equal("the session keeps the model", { "o3-mini", "high" },
    { bodies[#bodies].model, bodies[#bodies].reasoning_effort })
  -- Completion of the ids, then the direct form.
  local completed = vim.fn.getcompletion("Harness9Model openai:gpt-4o", "cmdline")
  table.sort(completed)
  h.expect_equal("the completion of :Harness9Model", { "openai:gpt-4o", "openai:gpt-4o-mini" }, completed)
  h.expect_equal("the efforts' completion", { "high" }, vim.fn.getcompletion("Harness9Model o3-mini h", "cmdline"))
  vim.cmd("Harness9Model openai:gpt-4o")
  h.wait_for("the session's new model", function()
    return messages():match("harness9: model openai:gpt%-4o %(session s%-") ~= nil
  end)
  send("plain")
  bodies = fake.completions()
  h.expect_equal("the changed model, no effort", { "gpt-4o", nil },
    { bodies[#bodies].model, bodies[#bodies].reasoning_effort })
end

local function custom_command()
  h.expect_served("methods", "agent/commands")
  vim.fn.mkdir(h.workspace .. "/.harness9/commands", "p")
  h.write_workspace_file(".harness9/commands/review.md",
    "---\ndescription: Review the diff\nargument-hint: FOCUS\n---\nReview the changes, looking at $ARGUMENTS.\n")
  local asked = h.fake_select({ "/review FOCUS · Review the diff · (workspace)" })
  vim.cmd("Harness9Commands")
  h.wait_for("the command on the prompt line", function()
    return prompt_line() == "» /review "
  end)
  vim.cmd("stopinsert")
  local labels = asked[1].labels
  for _, want in ipairs({ "/compact", "/clear", "/resume" }) do
    local found = vim.tbl_filter(function(label)
      return vim.startswith(label, want)
    end, labels)
    h.expect_equal(want .. " listed", 1, #found)
  end
  require("harness9.chat").set_prompt(chat_buf(), "")
  -- <Tab> after a `/name` nothing completes, or after other text, is a Tab.
  type_keys("/zz\t")
  h.expect_equal("a Tab after /zz", "» /zz\t", prompt_line())
  require("harness9.chat").set_prompt(chat_buf(), "")
  -- Completion on the prompt line: <Tab> after `/rev` completes the name.
  type_keys("/rev\t")
  h.expect_equal("the completed command", "» /review", prompt_line())
  fake.script({ { text = "Reviewed." } })
  send(" naming")
  local bodies = fake.completions()
  h.expect_equal("the command's prompt", "Review the changes, looking at naming.",
    vim.trim(last_user_text(bodies[#bodies])))
  if not chat_text():match("Reviewed%.") then
    h.fail("the custom command's answer is not in the chat")
  end
end

local function clear_and_resume()
  local old = harness9.session_id()
  send("/clear")
  local new = harness9.session_id()
  if not new or new == old then
    h.fail(string.format("/clear moved to session %s from %s", tostring(new), tostring(old)))
  end
  h.expect_equal("the chat after /clear", { "harness9 chat · session " .. new, "", "» " },
    vim.api.nvim_buf_get_lines(chat_buf(), 0, -1, false))
  send("/resume " .. old)
  h.wait_for("the resumed session in the chat", function()
    return chat_text():match("\nhello\n") ~= nil
  end)
  h.expect_equal("the session after /resume", old, harness9.session_id())
  -- /compact, completed from `/comp`: a command of its own (the summary may ask the model).
  fake.script({ { text = "Summary of the conversation." } })
  type_keys("/comp\t")
  h.expect_equal("the completed command", "» /compact", prompt_line())
  send("")
  local lines = vim.api.nvim_buf_get_lines(chat_buf(), 0, -1, false)
  if not vim.tbl_contains(lines, "  command /compact") then
    h.fail("no command line for /compact in the chat")
  end
  h.expect_equal("the session after /compact", old, harness9.session_id())
end

-- A command run as the daemon streams it: run_started, `command`, its answer as text outside any
-- turn, run_finished with no turns; the chat and the run buffer show a line for it.
local function scripted()
  local state = view.new()
  local run = view.start(state, "/compact")
  local function apply(ev)
    ev.runId, ev.sessionId = "r-1", "s-1"
    view.apply(state, ev)
  end
  apply({ kind = "run_started" })
  apply({ kind = "command", name = "compact", arguments = "" })
  apply({ kind = "text_delta", text = "Compacted: 1,200 → 300 tokens." })
  apply({ kind = "run_finished", status = "completed", turns = 0, toolCalls = 0 })
  view.finish(run, nil, { runId = "r-1", sessionId = "s-1", status = "completed", turns = 0, toolCalls = 0,
                          command = "compact", text = "Compacted: 1,200 → 300 tokens." })
  h.expect_lines("a command in the chat", {
    "harness9 chat · session s-1",
    "",
    "You",
    "/compact",
    "",
    "harness9",
    "  command /compact",
    "Compacted: 1,200 → 300 tokens.",
    "  ── done",
    "",
  }, chat_view.render(state).lines)
  h.expect_equal("the command's line highlighted muted", "harness9ChatDim", chat_view.render(state).highlights[5][2])
  h.expect_lines("a command in the run buffer", {
    "» /compact",
    "  command /compact",
    "Compacted: 1,200 → 300 tokens.",
    "■ completed",
  }, view.lines(state))
  -- The answer's text alone (no text event) still shows under the command.
  local quiet = view.new()
  local second = view.start(quiet, "/resume s-9")
  view.apply(quiet, { runId = "r-2", kind = "command", name = "resume", arguments = "s-9" })
  view.finish(second, nil, { runId = "r-2", sessionId = "s-9", status = "completed", turns = 0, toolCalls = 0,
                             command = "resume", text = "Resumed s-9." })
  h.expect_equal("a command answered in its result", { "» /resume s-9", "  command /resume s-9", "Resumed s-9.",
    "■ completed" }, view.lines(quiet))
end

h.main(function()
  scripted()
  local url = fake.start()
  h.setup({
    init_options = { provider = "openai", model = "gpt-4o-mini" },
    cmd_env = { OPENAI_API_KEY = "sk-fake", OPENAI_BASE_URL = url .. "/v1", ANTHROPIC_API_KEY = "",
                HARNESS9_MODELS = "gpt-4o,o3-mini" },
  })
  harness9.chat()
  vim.cmd("stopinsert")
  models()
  custom_command()
  clear_and_resume()
  vim.fn.jobstop(fake.job)
end)
