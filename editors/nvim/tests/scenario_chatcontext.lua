-- `%` in the chat after a slash command completed with <Tab>: the completion menu's info (a float
-- on current Neovim, the preview window on 0.7) becomes the previous window, and the `%` word
-- still attaches the file the chat was opened from. A prompt that cannot be sent (a `%` with no
-- file open anywhere) stays on the prompt line, with a message saying why, to be fixed and sent.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local chat = require("harness9.chat")

-- The params of the last agent/run sent, from the log.
local function last_params()
  local found
  for _, line in ipairs(vim.api.nvim_buf_get_lines(harness9.open_log(), 0, -1, false)) do
    found = line:match("^%[agent/run%] → (.*)$") or found
  end
  return found and vim.fn.json_decode(found)
end

local function prompt_line()
  local lines = vim.api.nvim_buf_get_lines(chat.find(), 0, -1, false)
  return lines[#lines]
end

-- Types `keys` at the end of the prompt line (insert mode); `probe` runs while still inserting.
local function type_keys(keys, probe)
  _G.H9_PROBE = probe or function() end
  local text = "A" .. keys .. "<Cmd>lua H9_PROBE()<CR>"
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(text, true, false, true), "tx", false)
  vim.cmd("stopinsert")
end

h.main(function()
  vim.fn.mkdir(h.workspace .. "/.harness9/commands", "p")
  h.write_workspace_file(".harness9/commands/review.md", "---\ndescription: Review the diff\n---\nReview $ARGUMENTS.\n")
  h.write_workspace_file(".harness9/commands/review-tests.md", "---\ndescription: Review the tests\n---\nTests.\n")
  h.setup({})
  vim.cmd("edit " .. vim.fn.fnameescape(h.workspace .. "/a.txt"))
  local file_uri = vim.uri_from_bufnr(0)
  harness9.chat()
  type_keys("hello\r")
  h.wait_idle("the first run")
  -- Two commands start with /rev: the menu opens, with the first one's description beside it.
  local menu
  type_keys("/rev\t", function()
    menu = vim.fn.pumvisible()
  end)
  h.expect_equal("the menu of /rev", 1, menu)
  h.expect_equal("the completed command", "» /review", prompt_line())
  type_keys(" %\r")
  h.wait_idle("the command's run")
  local params = last_params()
  h.expect_equal("the command sent", "/review", params.prompt)
  h.expect_equal("the file attached", { { uri = file_uri, kind = "file" } }, params.context)
  h.expect_equal("the prompt line after sending", "» ", prompt_line())
  -- No file in any window: the prompt is not sent, and stays as typed.
  vim.cmd("only")
  vim.cmd("bwipeout! " .. vim.fn.bufnr(h.workspace .. "/a.txt"))
  local before = last_params()
  type_keys("/review %\r")
  h.expect_equal("the prompt kept", "» /review %", prompt_line())
  h.expect_equal("nothing sent", before, last_params())
  local messages = vim.api.nvim_exec("messages", true)
  if not messages:find("no file buffer to attach", 1, true) then
    h.fail("no message says why the prompt was not sent: " .. messages)
  end
  -- Fixed (the `%` taken away), it is sent.
  chat.set_prompt(chat.find(), "/review naming")
  type_keys("\r")
  h.wait_idle("the fixed prompt's run")
  h.expect_equal("the fixed prompt sent", "/review naming", last_params().prompt)
  h.expect_equal("the prompt line after the fixed prompt", "» ", prompt_line())
end)
