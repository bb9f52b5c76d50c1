-- Drives Neovim without the harness9 plugin in a real terminal for tests/screenshot.sh: the daemon
-- and ruff started with `vim.lsp.start`, ruff's problem fixed through the "Fix with harness9"
-- code action, the run's transcript opened beside the file by `window/showDocument`, the closing
-- message at the bottom; writes $H9_READY once the transcript shows the run's end.
local ws = os.getenv("H9_WORKSPACE")
vim.fn.writefile({ "def total(items):", "    return sum(item for item in itemz)" }, ws .. "/total.py")

vim.cmd("filetype on")
vim.cmd("syntax on")
vim.o.background = "dark"
vim.o.termguicolors = true
vim.o.cmdheight = 2 -- the closing message fits without a hit-enter prompt
vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/total.py"))
local buf = vim.api.nvim_get_current_buf()
local daemon = vim.lsp.start({ name = "harness9", cmd = { os.getenv("H9_DAEMON"), "serve" }, root_dir = ws,
  init_options = { provider = "replay", replayFile = os.getenv("H9_REPLAY"), approvals = { mode = "yolo" } } })
vim.lsp.start({ name = "ruff", cmd = { os.getenv("H9_RUFF"), "server" }, root_dir = ws })

local asked, finished = false, false
local notify = vim.notify
vim.notify = function(message, ...)
  finished = finished or message:find("harness9 %(completed%)") ~= nil
  return notify(message, ...)
end
local timer = vim.loop.new_timer()
timer:start(200, 100, vim.schedule_wrap(function()
  local client = vim.lsp.get_client_by_id(daemon)
  if not asked and client and client.initialized and #vim.diagnostic.get(buf, { lnum = 1 }) > 0 then
    asked = true
    vim.api.nvim_win_set_cursor(0, { 2, 32 })
    vim.lsp.buf.code_action({
      context = { diagnostics = vim.lsp.diagnostic.from(vim.diagnostic.get(buf, { lnum = 1 })) },
      filter = function(action) return action.title:find("^Fix with harness9") ~= nil end,
      apply = true,
    })
  elseif finished then
    timer:stop()
    vim.defer_fn(function()
      for _, other in ipairs(vim.api.nvim_list_bufs()) do -- the transcript grew on disk while open
        if vim.api.nvim_buf_get_name(other):match("%.md$") then
          vim.cmd("checktime " .. other)
        end
      end
      vim.cmd("redraw!")
      vim.fn.writefile({ "ready" }, os.getenv("H9_READY"))
    end, 500)
  end
end))
