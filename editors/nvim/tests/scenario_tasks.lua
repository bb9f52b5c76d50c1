-- Background tasks: :Harness9Background runs a prompt in a git worktree while the user types in
-- the open shared.txt; the chat shows nothing of it; :Harness9Tasks lists it running, then done
-- with its +/−; <CR> reviews it (the workspace's file beside the task's, in diff mode); `a`
-- applies it into the open, modified buffer, merged with the typed line, and one `u` takes only
-- the task's change back. A second task that changes the line the user changed conflicts: its
-- hunks open and nothing is written. `d` discards both (worktrees and branches gone).
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local tasks = require("harness9.tasks")

local api = vim.api

local function git(...)
  local out = vim.fn.system(vim.list_extend({ "git", "-C", h.workspace, "-c", "user.name=t", "-c", "user.email=t@t" },
    { ... }))
  if vim.v.shell_error ~= 0 then
    h.fail("git " .. table.concat({ ... }, " ") .. ": " .. out)
  end
  return out
end

local function list_lines()
  return api.nvim_buf_get_lines(vim.fn.bufnr(tasks.name), 2, -1, false)
end

local function wait_listed(what, want)
  h.wait_for(what, function()
    return vim.deep_equal(list_lines(), want)
  end)
end

-- Presses `keys` (mappings included) in the list's window, on line `line`.
local function press_in_list(line, keys)
  local win = vim.fn.win_findbuf(vim.fn.bufnr(tasks.name))[1]
  api.nvim_set_current_win(win)
  api.nvim_win_set_cursor(win, { line, 0 })
  api.nvim_feedkeys(api.nvim_replace_termcodes(keys, true, false, true), "x", false)
end

local USERS = { "one", "two", "three", "four", "five", "typed meanwhile" }

local function start_and_type(shared)
  harness9.config.run_params = { replayFile = h.replay }
  vim.cmd("Harness9Background Capitalise the first line of shared.txt.")
  vim.cmd("Harness9Tasks")
  wait_listed("the task listed as running", {
    "● running  no changes  Capitalise the first line of shared.txt.",
  })
  -- Meanwhile the user types a line at the end of shared.txt and does not save it.
  api.nvim_set_current_win(vim.fn.win_findbuf(shared)[1])
  vim.cmd("normal! Gotyped meanwhile")
  wait_listed("the task listed as done", {
    "✓ completed  1 file +1 −1  Capitalise the first line of shared.txt.",
    "    shared.txt",
  })
  h.expect_equal("shared.txt on disk before Apply", "one\ntwo\nthree\nfour\nfive\n", h.workspace_file("shared.txt"))
  -- Named by the daemon (`title`), not by the order its run started in.
  h.expect_equal("the task's title as the daemon lists it", "Capitalise the first line of shared.txt.",
    tasks.shown()[1].title)
  for _, line in ipairs(api.nvim_buf_get_lines(harness9.buffer(), 0, -1, false)) do
    if line:match("Capitali") then
      h.fail("the task shows in the chat's run buffer: " .. line)
    end
  end
end

local function review()
  local tabs = vim.fn.tabpagenr("$")
  press_in_list(3, "<CR>")
  h.expect_equal("a tab for the review", tabs + 1, vim.fn.tabpagenr("$"))
  local wins = api.nvim_tabpage_list_wins(0)
  local shown = {}
  for _, win in ipairs(wins) do
    local buf = api.nvim_win_get_buf(win)
    table.insert(shown, { name = api.nvim_buf_get_name(buf):gsub("^.*/ws%-tasks/", ""):gsub("^.*harness9:/+", ""),
      diff = vim.wo[win].diff, lines = api.nvim_buf_get_lines(buf, 0, -1, false) })
  end
  h.expect_equal("the review: the workspace's buffer beside the task's version", {
    { name = "shared.txt", diff = true, lines = USERS },
    { name = "task/shared.txt", diff = true, lines = { "ONE (the task)", "two", "three", "four", "five" } },
  }, shown)
  vim.cmd("tabclose")
end

local function apply(shared)
  local applied = nil
  press_in_list(3, "a")
  h.wait_for("the task applied", function()
    return api.nvim_buf_get_lines(shared, 0, 1, false)[1] == "ONE (the task)"
  end)
  local merged = vim.list_extend({ "ONE (the task)" }, vim.list_slice(USERS, 2))
  h.expect_equal("the buffer: the task's line and the user's", merged, api.nvim_buf_get_lines(shared, 0, -1, false))
  h.wait_for("shared.txt written", function()
    applied = h.workspace_file("shared.txt")
    return applied == table.concat(merged, "\n") .. "\n"
  end)
  h.wait_for("the buffer saved as its file", function()
    return not vim.bo[shared].modified
  end)
  wait_listed("the task listed as applied", {
    "⇲ applied  1 file +1 −1  Capitalise the first line of shared.txt.",
    "    shared.txt",
  })
  -- One undo step takes the task's change back, and only it.
  api.nvim_set_current_win(vim.fn.win_findbuf(shared)[1])
  vim.cmd("normal! u")
  h.expect_equal("the buffer after u", USERS, api.nvim_buf_get_lines(shared, 0, -1, false))
end

local function conflict(shared)
  harness9.config.run_params = { replayFile = h.replay:gsub("tasks%.json$", "tasks2.json") }
  vim.cmd("Harness9Background Rewrite the second line of shared.txt.")
  wait_listed("the second task done", {
    "✓ completed  1 file +1 −1  Rewrite the second line of shared.txt.",
    "    shared.txt",
    "⇲ applied    1 file +1 −1  Capitalise the first line of shared.txt.",
    "    shared.txt",
  })
  api.nvim_set_current_win(vim.fn.win_findbuf(shared)[1])
  api.nvim_buf_set_lines(shared, 1, 2, false, { "two (mine)" })
  local on_disk = h.workspace_file("shared.txt")
  local tabs = vim.fn.tabpagenr("$")
  press_in_list(3, "a")
  h.wait_for("the conflict's hunks", function()
    return vim.fn.tabpagenr("$") == tabs + 1
  end)
  h.expect_equal("the conflict's tab", "conflicts/shared.txt", (api.nvim_buf_get_name(0):gsub("^.*harness9:/+", "")))
  local hunks = api.nvim_buf_get_lines(0, 0, -1, false)
  h.expect_equal("the hunk's markers and both sides", { true, true, true }, {
    vim.tbl_contains(hunks, "two (mine)"), vim.tbl_contains(hunks, "TWO (the task)"), hunks[1]:match("^<<<<<<<") ~= nil })
  h.expect_equal("nothing written", on_disk, h.workspace_file("shared.txt"))
  h.expect_equal("the buffer as the user left it", "two (mine)", api.nvim_buf_get_lines(shared, 1, 2, false)[1])
  vim.cmd("tabclose")
end

local function discard()
  h.fake_select({ "Discard", "Discard" })
  press_in_list(3, "d")
  h.wait_for("one task left", function()
    return #tasks.shown() == 1
  end)
  press_in_list(3, "d")
  wait_listed("no task left", { "no background tasks (:Harness9Background {prompt} starts one)" })
  h.expect_equal("the tasks' branches", "", git("branch", "--list", "harness9/*"))
end

h.main(function()
  h.write_workspace_file("shared.txt", "one\ntwo\nthree\nfour\nfive\n")
  git("init", "-q", "-b", "main")
  git("add", "-A")
  git("commit", "-q", "-m", "start")
  h.setup({})
  vim.cmd("edit " .. vim.fn.fnameescape(h.workspace .. "/shared.txt")) -- the plugin attaches it
  local shared = api.nvim_get_current_buf()
  start_and_type(shared)
  review()
  apply(shared)
  conflict(shared)
  discard()
end)
