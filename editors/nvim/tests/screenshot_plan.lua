-- Drives the chat in a real terminal Neovim for tests/screenshot.sh (scene "plan"): a prompt runs,
-- a message is sent into the run while its first command runs and a second prompt is queued;
-- writes $H9_READY once the message landed and the plan moved on (the run still going).
local harness9 = require("harness9")
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("H9_WORKSPACE") .. "/calc.py"))
vim.cmd("syntax on")
vim.o.background = "dark"
vim.o.termguicolors = true
harness9.setup({
  cmd = { os.getenv("H9_DAEMON"), "serve" },
  init_options = { provider = "replay", replayFile = os.getenv("H9_REPLAY") },
  root_dir = os.getenv("H9_WORKSPACE"),
  approvals = { mode = "yolo" },
})
local buf = harness9.chat()
vim.api.nvim_feedkeys("Afix the failing test\r", "t", false)
local function shows(text)
  for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:find(text, 1, true) then
      return true
    end
  end
  return false
end
local step = "run"
local timer = vim.loop.new_timer()
timer:start(200, 100, vim.schedule_wrap(function()
  if step == "run" and shows("… running `sleep 2") then
    step = "steer"
    vim.api.nvim_feedkeys("and add a line about it to the README\r", "t", false)
  elseif step == "steer" and shows("↪ You (on its way)") then
    step = "queue"
    vim.api.nvim_feedkeys("then run the linter too\27Q", "t", false)
  elseif step == "queue" and shows("[>] Fix add in calc.py") and shows("(queued · next") then
    timer:stop()
    vim.defer_fn(function()
      vim.cmd("startinsert!")
      vim.cmd("redraw!")
      vim.fn.writefile({ "ready" }, os.getenv("H9_READY"))
    end, 500)
  end
end))
