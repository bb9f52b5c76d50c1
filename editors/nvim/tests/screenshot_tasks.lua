-- Drives :Harness9Tasks in a real terminal Neovim for tests/screenshot.sh (scene "tasks"): two
-- prompts run in the background, each in a git worktree of its own, while the user types in
-- calc.py (not saved); the list shows one done with its changes and one still running. Writes
-- $H9_READY once both show.
local harness9 = require("harness9")
local tasks = require("harness9.tasks")
local ws = os.getenv("H9_WORKSPACE")
for _, args in ipairs({ { "init", "-q", "-b", "main" }, { "add", "-A" }, { "commit", "-q", "-m", "start" } }) do
  vim.fn.system(vim.list_extend({ "git", "-C", ws, "-c", "user.name=t", "-c", "user.email=t@t" }, args))
end
vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/calc.py"))
vim.cmd("syntax on")
vim.o.background = "dark"
vim.o.termguicolors = true
harness9.setup({
  cmd = { os.getenv("H9_DAEMON"), "serve" },
  init_options = { provider = "replay", replayFile = os.getenv("H9_REPLAY") },
  root_dir = ws,
  approvals = { mode = "yolo" },
})
harness9.config.run_params = { replayFile = os.getenv("H9_REPLAY") }
vim.cmd("Harness9Background Fix add in calc.py: it subtracts")
harness9.config.run_params = { replayFile = (os.getenv("H9_REPLAY"):gsub("tasks%.json$", "tasks2.json")) }
vim.cmd("Harness9Background Add a test for mul")
-- The user's own lines, not saved.
vim.api.nvim_buf_set_lines(0, -1, -1, false, { "", "", "def div(a, b):", "    return a / b" })
vim.cmd("Harness9Tasks")
local timer = vim.loop.new_timer()
timer:start(200, 100, vim.schedule_wrap(function()
  local lines = table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr(tasks.name), 0, -1, false), "\n")
  if lines:find("✓ completed", 1, true) and lines:find("● running%s+1 file") then
    timer:stop()
    vim.defer_fn(function()
      vim.cmd("echo ''")
      vim.cmd("redraw!")
      vim.fn.writefile({ "ready" }, os.getenv("H9_READY"))
    end, 300)
  end
end))
