-- Context items of agent/run: `:2,3Harness9Run explain %d` attaches lines 2-3 of the current file
-- as the buffer has them (unsaved) and their diagnostics (vim.diagnostic.get); a `%` word attaches
-- the buffer; both are listed under the prompt. With no file buffer the command says so. The
-- params are checked as sent (the log records them), then in the stored session's first prompt
-- (what the model got); an item outside the workspace is refused.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")

-- The params of the last agent/run sent, from the log.
local function last_params()
  local found
  for _, line in ipairs(vim.api.nvim_buf_get_lines(harness9.open_log(), 0, -1, false)) do
    found = line:match("^%[agent/run%] → (.*)$") or found
  end
  return found and vim.fn.json_decode(found)
end

local function run(command)
  vim.cmd(command)
  vim.wait(20)
  h.wait_for(command, function()
    return not harness9.running()
  end)
end

-- The error code of an agent/run whose context item lies outside the workspace (nil if taken).
local function refused_outside()
  local client = require("harness9.client").find(harness9.config)
  local reply
  require("harness9.client").call(client, "request", "agent/run", {
    prompt = "probe", context = { { uri = "file:///etc/hostname", kind = "file" } },
  }, function(err)
    reply = err or false
  end)
  h.wait_for("the probe's reply", function()
    return reply ~= nil
  end)
  return reply and reply.code or nil
end

h.main(function()
  h.setup({})
  h.write_workspace_file("calc.py", "def add(a, b):\n    return a - b\n\nprint(add(1, x))\n")
  vim.cmd("edit " .. vim.fn.fnameescape(h.workspace .. "/calc.py"))
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 1, 2, false, { "    return a + b  # unsaved" })
  local ns = vim.api.nvim_create_namespace("test-lint")
  vim.diagnostic.set(ns, buf, {
    { lnum = 0, col = 0, severity = vim.diagnostic.severity.WARN, message = "missing docstring" },
    { lnum = 2, col = 10, severity = vim.diagnostic.severity.ERROR, message = "undefined name 'x'", source = "pyflakes" },
  })
  local uri = vim.uri_from_bufnr(buf)
  run("2,3Harness9Run explain %d")
  local params = last_params()
  h.expect_equal("the prompt sent", "explain", params.prompt)
  h.expect_equal("the items sent", {
    { uri = uri, kind = "selection", text = "    return a + b  # unsaved\n\n",
      range = { start = { line = 1, character = 0 }, ["end"] = { line = 3, character = 0 } } },
    { uri = uri, kind = "diagnostics", text = "3:11 error: undefined name 'x' (pyflakes)\n",
      range = { start = { line = 1, character = 0 }, ["end"] = { line = 3, character = 0 } } },
  }, params.context)
  local lines = h.normalized(harness9.buffer())
  h.expect_equal("the run buffer's head", { "» explain", "  @ calc.py:2-3", "  @ calc.py:2-3 diagnostics" },
    vim.list_slice(lines, 1, 3))
  run("Harness9Run what is % about")
  params = last_params()
  h.expect_equal("the prompt without %", "what is about", params.prompt)
  h.expect_equal("the file item (unsaved: with its text)", { { uri = uri, kind = "file",
    text = "def add(a, b):\n    return a + b  # unsaved\n\nprint(add(1, x))\n" } }, params.context)
  h.expect_equal("the whole file's diagnostics", "1:1 warning: missing docstring\n3:11 error: undefined name 'x' (pyflakes)\n",
    require("harness9.context").diagnostics(buf).text)
  vim.cmd("enew")
  local ok, message = harness9.run("explain", { range = { 1, 1 } })
  h.expect_equal("a range without a file", { false, "harness9: no file buffer to attach (a range, % and %d take the current file)" },
    { ok, message })
  h.expect_equal("an item outside the workspace refused", -32602, refused_outside())
  h.expect_served("methods", "agent/session")
  local stored
  require("harness9.client").call(require("harness9.client").find(harness9.config), "request", "agent/session",
    { sessionId = harness9.session_id() }, function(_, result)
      stored = result
    end)
  h.wait_for("the stored session", function()
    return stored ~= nil
  end)
  local first
  for _, message in ipairs(stored.messages) do -- the first prompt (the system prompt comes before it)
    if message.role == "user" and first == nil then
      first = message.content
    end
  end
  first = type(first) == "string" and first or vim.fn.json_encode(first)
  for _, want in ipairs({ "return a + b  # unsaved", "undefined name 'x'", "calc.py" }) do
    if not first:find(want, 1, true) then
      h.fail("the model's message lacks " .. want .. ": " .. first)
    end
  end
end)
