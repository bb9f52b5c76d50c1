-- Reviewing a run's edits: :Harness9Review opens each file the last run edited in a tab of its
-- own, its text before the run beside it, both in diff mode. `:diffget` takes the agent's hunk
-- back and `:write` keeps it: the file on disk is as it was, and the next run's write of it is
-- refused by the stale guard (the model is told the file changed since it wrote it).
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")

local ORIGINAL = "one\ntwo\nthree\n"

-- Each tab's windows, from the first tab after `first` on.
local function tabs_after(first)
  local out = {}
  for i = first + 1, vim.fn.tabpagenr("$") do
    vim.cmd(i .. "tabnext")
    table.insert(out, h.tab_windows())
  end
  return out
end

local function edit_run()
  h.write_workspace_file("review.txt", ORIGINAL)
  harness9.config.run_params = { replayFile = h.replay }
  vim.cmd("Harness9Run change two files")
  h.wait_idle("the first run")
  h.expect_equal("review.txt after the run", "one\nTWO, by the agent\nthree\n", h.workspace_file("review.txt"))
end

local function review()
  local first = vim.fn.tabpagenr("$")
  vim.cmd("Harness9Review")
  h.expect_equal("the review's tabs", {
    {
      { name = "before: review.txt", diff = true, lines = { "one", "two", "three" } },
      { name = "review.txt", diff = true, lines = { "one", "TWO, by the agent", "three" } },
    },
    {
      { name = "before: notes.txt", diff = true, lines = { "" } },
      { name = "notes.txt", diff = true, lines = { "a new note" } },
    },
  }, tabs_after(first))
  -- In review.txt's tab, the file's window: the agent's hunk taken back with :diffget, then saved.
  vim.cmd((first + 1) .. "tabnext")
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.cmd("diffget")
  vim.cmd("write")
  h.expect_equal("review.txt on disk after :diffget and :write", ORIGINAL, h.workspace_file("review.txt"))
  -- The note is kept as the agent wrote it.
  h.expect_equal("notes.txt on disk", "a new note\n", h.workspace_file("notes.txt"))
  -- Reviewed again, the file still faces its text before the run: nothing left to take back.
  vim.cmd("tablast")
  local last = vim.fn.tabpagenr("$")
  vim.cmd("Harness9Review")
  h.expect_equal("the second review's first tab", {
    { name = "before: review.txt (2)", diff = true, lines = { "one", "two", "three" } },
    { name = "review.txt", diff = true, lines = { "one", "two", "three" } },
  }, tabs_after(last)[1])
end

local function next_run()
  harness9.config.run_params = { replayFile = h.replay:gsub("review%.json$", "review2.json") }
  vim.cmd("Harness9Run rewrite review.txt")
  h.wait_idle("the second run")
  local failed = h.progress_events("tool_failed", "write_file")
  h.expect_equal("the stale guard's answer to the model",
    "Error: review.txt has changed since you last read or wrote it (in the editor, by a command or by "
      .. "someone else), so write_file did not overwrite it. Read it again with read_file and base the new "
      .. "content on what it holds now, or change part of it with edit_file",
    failed[1] and failed[1].output)
  h.expect_equal("review.txt, as the user left it", ORIGINAL, h.workspace_file("review.txt"))
end

h.main(function()
  h.setup({})
  edit_run()
  review()
  next_run()
end)
