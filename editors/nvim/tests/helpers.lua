-- What the scenario files (tests/scenario_*.lua) share: waiting with a timeout, failing with the
-- plugin's buffers on stderr, comparing values, reading the workspace, scripted pickers.
local M = {}

M.TIMEOUT_MS = tonumber(os.getenv("H9_TIMEOUT_MS") or "") or 45000
M.workspace = os.getenv("H9_WORKSPACE")
M.daemon = os.getenv("H9_DAEMON")
M.replay = os.getenv("H9_REPLAY")

local failed = false

--- Stops every LSP client (shutdown + exit, as on a normal quit) and quits with `code`.
function M.finish(code)
  for _, client in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    vim.lsp.stop_client(client.id)
  end
  vim.wait(5000, function()
    return #(vim.lsp.get_clients or vim.lsp.get_active_clients)() == 0
  end, 10)
  vim.cmd(code == 0 and "qall!" or ("cquit " .. code))
end

local function dump(name)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    return ""
  end
  return "--- " .. name .. ":\n" .. table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
end

--- Reports `message` with the chat, run and log buffers on stderr and quits with 1.
function M.fail(message)
  if failed then
    return
  end
  failed = true
  pcall(function()
    require("harness9").open_log()
  end)
  io.stderr:write("FAIL: " .. message .. "\n" .. dump("harness9://chat") .. dump("harness9://run")
    .. dump("harness9://log"))
  M.finish(1)
end

--- Notes why the scenario does not apply here; `return M.skip(…)` ends it with success.
function M.skip(reason)
  M.skipped = reason
end

--- "NVIM v0.7.2": this Neovim's version line.
function M.nvim_version()
  for _, line in ipairs(vim.split(vim.fn.execute("version"), "\n", { plain = true })) do
    if line:match("^NVIM ") then
      return line
    end
  end
  return "this Neovim"
end

function M.wait_for(what, cond)
  if not vim.wait(M.TIMEOUT_MS, cond, 10) then
    M.fail(string.format("timed out after %d ms waiting for %s", M.TIMEOUT_MS, what))
  end
end

-- Waits until no harness9 run is going, then for the chat's scheduled redraw.
function M.wait_idle(what)
  vim.wait(50)
  M.wait_for(what, function()
    return not require("harness9").running()
  end)
  vim.wait(50) -- the scheduled redraw
end

function M.expect_equal(what, want, got)
  local a, b = vim.inspect(want), vim.inspect(got)
  if a ~= b then
    M.fail(string.format("%s: expected %s, got %s", what, a, b))
  end
end

--- The lines of `buf` with durations, token counts, costs and elapsed times replaced by N, and where a
--- command ran (the machine's sandbox: scenario_sandbox checks it) by `<sandbox>`.
function M.normalized(buf)
  local out = {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    line = line:gsub("%d+ ms", "N ms"):gsub("[%d,]+ in / [%d,]+ out tokens", "N in / N out tokens")
    line = line:gsub(" · %$[%d,]+%.%d+$", " · $N")
    line = line:gsub(" · sandboxed %(%a+%)$", " · <sandbox>"):gsub(" · not sandboxed$", " · <sandbox>")
    table.insert(out, line)
  end
  return out
end

--- Compares line by line, printing each difference, and fails when any.
function M.expect_lines(what, expected, lines)
  local same = #lines == #expected
  for i = 1, math.max(#lines, #expected) do
    if lines[i] ~= expected[i] then
      same = false
      io.stderr:write(string.format("%s line %d: expected %q, got %q\n", what, i, tostring(expected[i]),
        tostring(lines[i])))
    end
  end
  if not same then
    M.fail(what .. " differs from the expected text")
  end
end

function M.workspace_file(name)
  local f = io.open(M.workspace .. "/" .. name)
  if not f then
    return nil
  end
  local text = f:read("*a")
  f:close()
  return text
end

function M.write_workspace_file(name, text)
  local f = assert(io.open(M.workspace .. "/" .. name, "w"))
  f:write(text)
  f:close()
end

--- The floating windows open now, as { filetype, lines }.
--- The agent/progress events of `kind` for `tool`, from the plugin's log (every event, as sent).
function M.progress_events(kind, tool)
  local found = {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(require("harness9").open_log(), 0, -1, false)) do
    local json = line:match("^%[[^%]]*%] " .. kind .. " (.*)$")
    local event = json and vim.fn.json_decode(json)
    if event and event.tool == tool then
      table.insert(found, event)
    end
  end
  return found
end

function M.floats()
  local out = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      local buf = vim.api.nvim_win_get_buf(win)
      table.insert(out, { filetype = vim.bo[buf].filetype, lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false) })
    end
  end
  return out
end

--- Replaces vim.ui.select with a picker that records each question ({ prompt, labels, previews =
--- the floating windows open meanwhile, items, on_choice }) and answers, later as an asynchronous
--- picker does, with the next of `answers`: a label, or a number picking that item; for `false`
--- it never answers and calls `unanswered()` instead. Returns the questions asked.
function M.fake_select(answers, unanswered)
  local asked = {}
  vim.ui.select = function(items, opts, on_choice)
    local labels = vim.tbl_map(opts.format_item or tostring, items)
    table.insert(asked, { prompt = opts.prompt, labels = labels, previews = M.floats(), items = items,
      on_choice = on_choice })
    local want = table.remove(answers, 1)
    if want == false then
      return unanswered()
    end
    vim.schedule(function()
      for i, label in ipairs(labels) do
        if i == want or label == want then
          return on_choice(items[i], i)
        end
      end
      on_choice(nil, nil)
    end)
  end
  return asked
end

--- Replaces vim.ui.input with one answering `answer`, later as an asynchronous prompt does.
--- Returns the prompts asked.
function M.fake_input(answer)
  local prompts = {}
  vim.ui.input = function(opts, on_confirm)
    table.insert(prompts, opts.prompt)
    vim.schedule(function()
      on_confirm(answer)
    end)
  end
  return prompts
end

--- The plugin set up as the README says, against the test daemon and its scripted model.
function M.setup(extra)
  require("harness9").setup(vim.tbl_deep_extend("force", {
    cmd = { M.daemon, "serve" },
    init_options = { provider = "replay", replayFile = M.replay },
    root_dir = M.workspace,
    approvals = { mode = "yolo" },
  }, extra or {}))
end

--- Fails unless the running daemon lists `name` under `key` of its experimental.harness9
--- capabilities ("methods" or "progressKinds"). The daemon is built from this same tree: one
--- that lacks a part the plugin uses is a defect to report, not a reason to skip.
function M.expect_served(key, name)
  local client = require("harness9.client").find(require("harness9").config)
  local caps = client and client.server_capabilities or {}
  local ours = type(caps.experimental) == "table" and caps.experimental.harness9 or {}
  if not (type(ours[key]) == "table" and vim.tbl_contains(ours[key], name)) then
    M.fail(string.format("the daemon's %s lack %s: %s", key, name, vim.inspect(ours[key])))
  end
end

--- Runs `scenario` (a function) and quits: 0 when it returned, 1 on an error or Neovim error messages.
function M.main(scenario)
  local ok, err = xpcall(scenario, debug.traceback)
  if not ok then
    return M.fail(tostring(err))
  end
  if M.skipped then
    io.stdout:write("skipped: " .. M.skipped .. "\n")
    return M.finish(0)
  end
  local messages = vim.api.nvim_exec("messages", true)
  if messages:match("deprecated") or messages:match("[Ee]rror") then
    return M.fail("Neovim reported:\n" .. messages)
  end
  io.stdout:write("ok: " .. tostring(os.getenv("H9_SCENARIO")) .. "\n")
  M.finish(0)
end

-- The windows of the current tab: { name, diff on, lines } (a review's "before" side is named
-- "before: PATH").
function M.tab_windows()
  local out = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    local name = vim.api.nvim_buf_get_name(buf)
    local before = name:match("harness9:/+before/(.*)$")
    table.insert(out, { name = before and ("before: " .. before) or vim.fn.fnamemodify(name, ":t"),
      diff = vim.wo[win].diff, lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false) })
  end
  return out
end

-- The fake LLM (tests/fakellm) as a child process: its stdout lines are kept, one command a line
-- on its stdin.
M.fake = { lines = {}, job = nil }
local fake = M.fake

function fake.start()
  local repo = vim.fn.fnamemodify(os.getenv("H9_TESTS"), ":h:h:h")
  local python = repo .. "/.venv/bin/python"
  fake.job = vim.fn.jobstart({ vim.fn.executable(python) == 1 and python or "python3", "-m", "tests.fakellm" }, {
    cwd = repo,
    on_stdout = function(_, data)
      fake.partial = (fake.partial or "") .. table.concat(data, "\n")
      local parts = vim.split(fake.partial, "\n", { plain = true })
      fake.partial = table.remove(parts)
      vim.list_extend(fake.lines, parts)
    end,
  })
  M.wait_for("the fake LLM's address", function()
    return #fake.lines >= 1
  end)
  return fake.lines[1]
end

-- Sends one command and returns its answer line.
function fake.ask(command)
  local before = #fake.lines
  vim.fn.chansend(fake.job, command .. "\n")
  M.wait_for("the fake LLM's answer to " .. command:sub(1, 20), function()
    return #fake.lines > before
  end)
  return fake.lines[before + 1]
end

function fake.script(turns)
  M.expect_equal("scripted", "ok", fake.ask("script " .. vim.fn.json_encode(turns)))
end

-- The chat completion requests received so far (bodies).
function fake.completions()
  local out = {}
  for _, request in ipairs(vim.fn.json_decode(fake.ask("requests"))) do
    if request.path:match("chat/completions$") then
      table.insert(out, request.body)
    end
  end
  return out
end

return M
