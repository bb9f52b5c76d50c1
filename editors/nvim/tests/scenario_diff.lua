-- Diffs of the agent's edits. The before-text comes back from a unified diff and the text now:
-- round trips over generated changes (with and without context lines, insertions at the top,
-- deletions at the end, a user's edit above a hunk since) and a refusal when the change is gone.
-- An edit_file completion as protocol 1.2 sends it (fed to the plugin's agent/progress handler):
-- `d` on its chat row and :Harness9Diff open the file beside its before-text in diff mode. Then the
-- same after the real daemon's edit of the open file (through the editor: the buffer and the disk
-- both have it).
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local diff = require("harness9.diff")

local text_diff = vim.text and vim.text.diff or vim.diff

local function lines_of(text)
  local lines = vim.split(text, "\n", { plain = true })
  table.remove(lines) -- the text ends with a newline
  return lines
end

local function round_trip(name, old, new, ctxlen)
  local unified = "--- a/f\n+++ b/f\n" .. text_diff(old, new, { ctxlen = ctxlen })
  h.expect_equal(name .. " (context " .. ctxlen .. ")", lines_of(old), diff.before(unified, lines_of(new)))
end

local function unit()
  local base = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
  local cases = {
    { "a changed line", base, (base:gsub("five", "FIVE")) },
    { "two hunks", base, (base:gsub("two", "TWO"):gsub("nine", "NINE")) },
    { "lines added at the top", base, "zero\nhalf\n" .. base },
    { "lines removed at the end", base, (base:gsub("nine\nten\n$", "")) },
    { "a line removed in the middle", base, (base:gsub("six\n", "")) },
    { "everything replaced", "a\nb\n", "c\nd\ne\n" },
    { "from empty", "", "new\n" },
  }
  for _, case in ipairs(cases) do
    round_trip(case[1], case[2], case[3], 0)
    round_trip(case[1], case[2], case[3], 3)
  end
  -- The user added two lines at the top after the agent's edit: the hunk is found below.
  local unified = text_diff(base, (base:gsub("seven", "SEVEN")), { ctxlen = 1 })
  local now = vim.list_extend({ "# added", "# by the user" }, lines_of((base:gsub("seven", "SEVEN"))))
  h.expect_equal("after a user's edit above", vim.list_extend({ "# added", "# by the user" }, lines_of(base)),
    diff.before(unified, now))
  local gone, why = diff.before(unified, lines_of(base))
  h.expect_equal("a change no longer there", { nil, "the file no longer holds the change (edited since?)" },
    { gone, why })
end

local OLD = "def add(a, b):\n    return a - b\n"
local NEW = "def add(a, b):\n    return a + b\n"

local function scripted()
  h.write_workspace_file("calc.py", NEW)
  local notify = vim.lsp.handlers["agent/progress"]
  local ev = { runId = "r-s", sessionId = "s-s", seq = 1 }
  local function send(fields)
    notify(nil, vim.tbl_extend("force", ev, fields), { client_id = 0 })
  end
  harness9.chat()
  vim.cmd("stopinsert")
  -- The events bind to this run: they come before the daemon has even started (its own events
  -- carry another runId and are ignored); its reply ends the run.
  harness9.run("fix the adder", { from_chat = true })
  send({ kind = "tool_started", turn = 1, toolCallId = "c1", tool = "edit_file", toolKind = "edit",
         arguments = { path = "calc.py" } })
  send({ kind = "tool_completed", turn = 1, toolCallId = "c1", tool = "edit_file", toolKind = "edit", output = "ok",
         durationMs = 2,
         path = "calc.py", added = 1, removed = 1, via = "disk",
         diff = "--- a/calc.py\n+++ b/calc.py\n" .. text_diff(OLD, NEW, { ctxlen = 3 }) })
  vim.wait(50)
  local chat_buf = require("harness9.chat").find()
  local row
  for i, line in ipairs(vim.api.nvim_buf_get_lines(chat_buf, 0, -1, false)) do
    row = row or (line:match("^  ✓ edited calc.py %+1 −1") and i)
  end
  if not row then
    h.fail("no row for the edit in the chat")
  end
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  vim.api.nvim_feedkeys("d", "x", false)
  local want = {
    { name = "before: calc.py", diff = true, lines = lines_of(OLD) },
    { name = "calc.py", diff = true, lines = lines_of(NEW) },
  }
  h.expect_equal("the diff tab from the chat row", want, h.tab_windows())
  vim.cmd("tabclose")
  h.expect_equal(":Harness9Diff (the newest change)", { true }, { harness9.diff() })
  h.expect_equal("the diff tab from :Harness9Diff", want, h.tab_windows())
  vim.cmd("tabclose")
  h.expect_equal("a change whose diff was cut", { false, "harness9: the diff of this change was cut (too long): no before-text to compare" },
    { harness9.diff({ path = "calc.py", diff = "@@ -1 +1 @@\n-a\n+b\n", diff_truncated = true }) })
  h.wait_for("the end of the run", function()
    return not harness9.running()
  end)
end

local function real_daemon()
  h.write_workspace_file("calc.py", OLD)
  -- The scripted half left calc.py loaded (and synced with the daemon) with the new text: the
  -- daemon reads an open file from its buffer, so the buffer is reloaded to hold the old text.
  local file = h.workspace .. "/calc.py"
  vim.api.nvim_buf_call(vim.fn.bufnr(file), function()
    vim.cmd("edit!")
  end)
  harness9.config.run_params = {}
  vim.cmd("Harness9Run! fix it for real")
  vim.wait(20)
  h.wait_for("the run", function()
    return not harness9.running()
  end)
  local done
  for _, line in ipairs(vim.api.nvim_buf_get_lines(harness9.open_log(), 0, -1, false)) do
    local event = line:match("^%[r%-[%x]+ #%d+%] tool_completed (.*)$") -- not the scripted r-s
    done = event and vim.fn.json_decode(event) or done
  end
  h.expect_equal("the real edit's completion", { via = "editor", diff = true, added = 1, removed = 1 },
    done and { via = done.via, diff = type(done.diff) == "string", added = done.added, removed = done.removed })
  h.expect_equal("calc.py on disk", NEW, h.workspace_file("calc.py"))
  -- The run buffer shows the edit's diff under its row, as the chat does, highlighted.
  local run_buf = harness9.buffer()
  local lines = vim.api.nvim_buf_get_lines(run_buf, 0, -1, false)
  local at
  for i, line in ipairs(lines) do
    at = at or (line:match("^  ✓ edit_file: calc.py") and i)
  end
  h.expect_equal("the diff under the edit's row in the run buffer",
    { "    ┆ @@ -1,2 +1,2 @@", "    ┆  def add(a, b):", "    ┆ -    return a - b", "    ┆ +    return a + b" },
    at and vim.list_slice(lines, at + 1, at + 4))
  vim.cmd("syntax on")
  local function group_at(line, text)
    return vim.api.nvim_buf_call(run_buf, function()
      local col = (lines[line]:find(text, 1, true))
      return vim.fn.synIDattr(vim.fn.synIDtrans(vim.fn.synID(line, col, 1)), "name")
    end)
  end
  h.expect_equal("the diff's highlights", { "DiffDelete", "DiffAdd" },
    { group_at(at + 3, "-    return"), group_at(at + 4, "+    return") })
  h.expect_equal(":Harness9Diff after a real edit", { true }, { harness9.diff() })
  local wins = h.tab_windows()
  h.expect_equal("the before-text", lines_of(OLD), wins[1].lines)
  h.expect_equal("the text now", lines_of(NEW), wins[2].lines)
end

h.main(function()
  unit()
  h.setup({})
  scripted()
  real_daemon()
end)
