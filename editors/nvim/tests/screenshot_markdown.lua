-- Drives the chat in a real terminal Neovim for tests/screenshot.sh (scene "markdown"): an answer
-- with headings of three levels, a pipe table with marks in its cells and a code block; the run
-- buffer on the left, the chat on the right. Writes $H9_READY once the run has ended.
local harness9 = require("harness9")
vim.cmd("syntax on")
vim.o.background = "dark"
vim.o.termguicolors = true
harness9.setup({
  cmd = { os.getenv("H9_DAEMON"), "serve" },
  init_options = { provider = "replay", replayFile = os.getenv("H9_REPLAY") },
  root_dir = os.getenv("H9_WORKSPACE"),
  approvals = { mode = "yolo" },
})
vim.cmd("buffer " .. harness9.buffer()) -- the run buffer in the first window
harness9.chat()
vim.api.nvim_feedkeys("Asum up the test run\r", "t", false)
local timer = vim.loop.new_timer()
local started = false
timer:start(200, 100, vim.schedule_wrap(function()
  started = started or harness9.running()
  if started and not harness9.running() then
    timer:stop()
    vim.defer_fn(function()
      vim.cmd("stopinsert")
      vim.cmd("redraw!")
      vim.fn.writefile({ "ready" }, os.getenv("H9_READY"))
    end, 300)
  end
end))
