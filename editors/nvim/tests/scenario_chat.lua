-- :Harness9Chat against the real daemon: a prompt typed on the chat's prompt line runs the agent;
-- the conversation shows the prompt, streamed text and tool rows in English (exit status, sizes,
-- no model-facing text); a second prompt continues the session; a bash call that changes an open
-- file reloads its buffer. Then, from scripted events: a running bash call's live output and
-- elapsed time, an edit's diff, the context fill; and a real bash call's output while it runs.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local chat_view = require("harness9.chat_view")
local view = require("harness9.view")

-- Types `text` on the prompt line and sends it: Enter in insert mode, or with `normal`, Escape
-- and then <CR> in normal mode (the chat's own mapping).
local function type_prompt(text, normal)
  vim.api.nvim_feedkeys("A" .. text .. (normal and "\27\r" or "\r"), "tx", false)
end

-- The chat's lines with the session id as S and the context fill (protocol 1.1 usage fields;
-- its form is checked here, its numbers vary) as FILL.
local function chat_lines(buf)
  local lines = h.normalized(buf)
  lines[1] = lines[1]:gsub("session s%-%x+", "session S"):gsub(" · context %d+%% · [%d,]+ / [%d,]+ tokens$", " · FILL")
  return lines
end

-- Saves what the chat shows under $H9_CAPTURE (to look at), when set.
local function capture(name, lines)
  local dir = os.getenv("H9_CAPTURE")
  if dir and dir ~= "" then
    vim.fn.mkdir(dir, "p")
    vim.fn.writefile(lines, dir .. "/" .. name .. ".txt")
  end
end

local function real_daemon()
  h.setup({})
  -- a.txt is open: the agent's edit (to disk: this client is not attached to it) shows there.
  vim.cmd("edit " .. vim.fn.fnameescape(h.workspace .. "/a.txt"))
  local a_buf = vim.api.nvim_get_current_buf()
  local buf = harness9.chat()
  h.expect_equal("the chat's first lines", { "harness9 chat · new session", "", "» " },
    vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  type_prompt("fix a.txt")
  h.wait_idle("the first chat run")
  local lines = chat_lines(buf)
  -- The edit's diff (protocol 1.1) is under its row when the daemon sends one.
  local diff_lines = {}
  while (lines[12] or ""):match("^    ┆ ") do
    table.insert(diff_lines, table.remove(lines, 12))
  end
  if #diff_lines > 0 then
    h.expect_equal("the edit's diff", { "    ┆ @@ -1 +1 @@", "    ┆ -hello from a.txt", "    ┆ +bye from a.txt" },
      diff_lines)
  end
  local fill = lines[1]:match(" · FILL$") or "" -- the daemon reports the context window (1.1)
  h.expect_lines("the chat", {
    "harness9 chat · session S" .. fill,
    "",
    "You",
    "fix a.txt",
    "",
    "harness9",
    "Let me look.",
    "  ✗ ran `printf 'one\\ntwo\\n'; exit 3` · exit 3 · N ms · <sandbox>",
    "  ✓ read a.txt · 17 B · N ms",
    "Changing it.",
    "  ✓ edited a.txt" .. ((lines[11] or ""):match(" %+1 −1") or "") .. " · N ms",
    "Done: a.txt says bye.",
    "  ── done · 3 turns · 3 tool calls · N in / N out tokens",
    "",
    "» ",
  }, lines)
  capture("chat-first-run", vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  h.expect_equal("a.txt's buffer after the edit (reloaded)", { "bye from a.txt" },
    vim.api.nvim_buf_get_lines(a_buf, 0, -1, false))
  -- A second prompt whose bash call appends to a.txt.
  -- With a price for the model, the run's line ends with what it cost.
  harness9.config.run_params = { replayFile = h.replay:gsub("chat%.json$", "chat2.json"),
    prices = { replay = { input = 1, output = 1 } } }
  type_prompt("append to it", true)
  h.wait_idle("the second chat run")
  lines = chat_lines(buf)
  local session = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
  h.expect_equal("one session", true, select(2, session:gsub("session s%-", "")) == 1)
  h.expect_lines("the second exchange", {
    "You",
    "append to it",
    "",
    "harness9",
    "Appending.",
    "  ✓ ran `echo more >> a.txt` · exit 0 · N ms · <sandbox>",
    "    ~ a.txt",
    "Appended.",
    "  ── done · 2 turns · 1 tool call · N in / N out tokens · $N",
    "",
    "» ",
  }, vim.list_slice(lines, #lines - 10, #lines))
  h.expect_equal("a.txt's buffer after bash (reloaded)", { "bye from a.txt", "more" },
    vim.api.nvim_buf_get_lines(a_buf, 0, -1, false))
  h.expect_equal("the cursor (on the prompt)", vim.api.nvim_buf_line_count(buf), vim.api.nvim_win_get_cursor(0)[1])
end

-- Events as the daemon of protocol 1.2 sends them (toolKind, exitCode), rendered with a fake clock.
local function scripted()
  local now = 0
  local state = view.new({ clock = function()
    return now
  end })
  view.start(state, "run the tests")
  local function apply(ev)
    ev.runId, ev.sessionId = "r-1", "s-1"
    view.apply(state, ev)
  end
  apply({ kind = "run_started" })
  apply({ kind = "text_delta", turn = 1, text = "Running them." })
  apply({ kind = "tool_started", turn = 1, toolCallId = "c1", tool = "edit_file", toolKind = "edit",
          arguments = { path = "calc.py", source_text = "a - b", target_text = "a + b" } })
  apply({ kind = "tool_completed", turn = 1, toolCallId = "c1", tool = "edit_file", toolKind = "edit",
          output = "成功修改文件: calc.py",
          durationMs = 3, path = "calc.py", added = 1, removed = 1, via = "editor",
          diff = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n" })
  apply({ kind = "tool_started", turn = 1, toolCallId = "c2", tool = "bash", toolKind = "execute",
          arguments = { command = "make test" } })
  now = 2300
  apply({ kind = "tool_output", turn = 1, toolCallId = "c2", text = "test_add ... ok\n" })
  apply({ kind = "tool_output", turn = 1, toolCallId = "c2", text = "test_sub ... " })
  apply({ kind = "usage", turn = 1, inputTokens = 15230, outputTokens = 80, totalInputTokens = 15230,
          totalOutputTokens = 80, contextTokens = 15230, contextWindow = 128000 })
  local out = chat_view.render(state)
  capture("chat-live", out.lines)
  h.expect_lines("the live chat", {
    "harness9 chat · session s-1 · context 12% · 15,230 / 128,000 tokens",
    "",
    "You",
    "run the tests",
    "",
    "harness9",
    "Running them.",
    "  ✓ edited calc.py +1 −1 · 3 ms",
    "    ┆ @@ -1,2 +1,2 @@",
    "    ┆  def add(a, b):",
    "    ┆ -    return a - b",
    "    ┆ +    return a + b",
    "  … running `make test` · 2.3 s",
    "    │ test_add ... ok",
    "    │ test_sub ... ",
    "    (Ctrl-C stops the run)",
    "",
  }, out.lines)
  h.expect_equal("the edit's row", "calc.py", out.rows[8].path)
  apply({ kind = "tool_completed", turn = 1, toolCallId = "c2", tool = "bash", toolKind = "execute",
          durationMs = 2410, output = "test_add ... ok\ntest_sub ... FAIL\nexit status 1", exitCode = 1 })
  -- A non-zero exit: a failed row (✗, in the failed colour), though the model got a normal result.
  h.expect_equal("the finished bash row", "  ✗ ran `make test` · exit 1 · 2.4 s", chat_view.render(state).lines[13])
  local groups = vim.tbl_map(function(hl)
    return hl[2]
  end, vim.tbl_filter(function(hl)
    return hl[1] == 12
  end, chat_view.render(state).highlights))
  h.expect_equal("its colour", { "harness9ChatFailed" }, groups)
  -- How a command ended comes from exitCode or signal, never from the text it printed.
  apply({ kind = "tool_started", turn = 1, toolCallId = "c3", tool = "bash", toolKind = "execute",
          arguments = { command = "./check" } })
  apply({ kind = "tool_completed", turn = 1, toolCallId = "c3", tool = "bash", toolKind = "execute",
          durationMs = 5, output = "exit status 9\n", exitCode = 0 })
  apply({ kind = "tool_started", turn = 1, toolCallId = "c4", tool = "bash", toolKind = "execute",
          arguments = { command = "./hang" } })
  apply({ kind = "tool_completed", turn = 1, toolCallId = "c4", tool = "bash", toolKind = "execute",
          durationMs = 7, output = "killed by signal SIGKILL (9)", signal = "SIGKILL" })
  local rows = chat_view.render(state).lines
  h.expect_equal("a command that printed a status line", "  ✓ ran `./check` · exit 0 · 5 ms", rows[14])
  h.expect_equal("a command killed by a signal", "  ✗ ran `./hang` · killed (SIGKILL) · 7 ms", rows[15])
  -- The run buffer says the same: ✗, and how the command ended.
  local run_rows = vim.tbl_filter(function(line)
    return line:find(" bash: ", 1, true) ~= nil
  end, view.lines(state))
  h.expect_equal("the run buffer's command rows", { "  ✗ bash: make test  (exit 1, 2410 ms)",
    "  ✓ bash: ./check  (5 ms)", "  ✗ bash: ./hang  (killed (SIGKILL), 7 ms)" }, run_rows)
end

-- A bash call that prints, sleeps and prints again: its first line shows in the chat while it
-- runs (tool_output), under "running `…`" with its elapsed time.
local function live_output()
  h.expect_served("progressKinds", "tool_output")
  local buf = require("harness9.chat").find()
  harness9.config.run_params = { replayFile = h.replay:gsub("chat%.json$", "chat3.json") }
  type_prompt("watch it")
  h.wait_for("the live output of the running bash call", function()
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    for i, line in ipairs(lines) do
      if line:match("^  … running `echo first; sleep 2; echo second` · ") and lines[i + 1] == "    │ first" then
        return true
      end
    end
    return false
  end)
  h.wait_idle("the run with live output")
end

h.main(function()
  scripted()
  real_daemon()
  live_output()
end)
