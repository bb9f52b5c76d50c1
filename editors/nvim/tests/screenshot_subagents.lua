-- Drives the chat in a real terminal Neovim for tests/screenshot.sh (scene "subagents"): the model
-- (the repository's fake LLM, tests/fakellm) hands the search to an explore agent, whose rows show
-- indented under its task's row; writes $H9_READY once the run has ended.
vim.env.H9_TESTS = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local h = dofile(vim.env.H9_TESTS .. "/helpers.lua")
local harness9 = require("harness9")
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("H9_WORKSPACE") .. "/calc.py"))
vim.cmd("syntax on")
vim.o.background = "dark"
vim.o.termguicolors = true
local url = h.fake.start()
h.fake.script({
  { text = "I'll have an explore agent find where `add` is tested.", tool_calls = { { name = "task", arguments = {
    description = "find the tests of add", prompt = "Find the tests of add in this project." } } } },
  { text = "Reading the tests.", tool_calls = { { name = "read_file", arguments = { path = "test_calc.py" } } } },
  { text = "`add` is tested in **test_calc.py** (`T.test_add`: `add(1, 2) == 3`)." },
  { text = "The explore agent found it: `T.test_add` in test_calc.py checks `add(1, 2) == 3`." },
})
harness9.setup({
  cmd = { os.getenv("H9_DAEMON"), "serve" },
  init_options = { provider = "openai", model = "gpt-4o-mini" },
  cmd_env = { OPENAI_API_KEY = "sk-fake", OPENAI_BASE_URL = url .. "/v1", ANTHROPIC_API_KEY = "" },
  root_dir = os.getenv("H9_WORKSPACE"),
  approvals = { mode = "yolo" },
})
harness9.chat()
vim.api.nvim_feedkeys("Awhere is add tested?\r", "t", false)
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
