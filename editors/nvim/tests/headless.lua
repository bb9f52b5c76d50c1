-- Headless end-to-end test of the plugin against the real daemon with a scripted model.
-- Environment: H9_SCENARIO (run | cancel | nodaemon), H9_DAEMON, H9_REPLAY, H9_WORKSPACE.
-- The daemon is configured through init_options only (the environment names no provider).
-- Exits 0 on success; on a mismatch prints the run buffer and the log to stderr and exits 1.
local harness9 = require("harness9")

local TIMEOUT_MS = tonumber(os.getenv("H9_TIMEOUT_MS") or "") or 45000
local progress_updates = 0

local function buffer_text()
  return table.concat(vim.api.nvim_buf_get_lines(harness9.buffer(), 0, -1, false), "\n")
end

local function finish(code)
  local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  for _, client in ipairs(clients) do
    vim.lsp.stop_client(client.id) -- shutdown + exit, as on a normal quit
  end
  vim.wait(5000, function()
    return #(vim.lsp.get_clients or vim.lsp.get_active_clients)() == 0
  end, 10)
  vim.cmd((code == 0 and "qall!" or "cquit " .. code))
end

local failed = false

local function fail(message)
  if failed then
    return
  end
  failed = true
  io.stderr:write("FAIL: " .. message .. "\n--- run buffer:\n" .. buffer_text() .. "\n")
  local ok, log = pcall(function()
    return vim.api.nvim_buf_get_lines(harness9.open_log(), 0, -1, false)
  end)
  io.stderr:write("--- log:\n" .. (ok and table.concat(log, "\n") or tostring(log)) .. "\n")
  finish(1)
end

local function wait_for(what, cond)
  if not vim.wait(TIMEOUT_MS, cond, 10) then
    fail(string.format("timed out after %d ms waiting for %s", TIMEOUT_MS, what))
  end
end

local function has_line(pattern)
  return function()
    for _, line in ipairs(vim.api.nvim_buf_get_lines(harness9.buffer(), 0, -1, false)) do
      if line:match(pattern) then
        return true
      end
    end
    return false
  end
end

-- Durations and token counts vary from run to run; everything else must match exactly.
local function normalized_lines()
  local out = {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(harness9.buffer(), 0, -1, false)) do
    line = line:gsub("%d+ ms%)", "N ms)"):gsub("%d+ in / %d+ out tokens", "N in / N out tokens")
    table.insert(out, line)
  end
  return out
end

local function expect_lines(expected, lines)
  lines = lines or normalized_lines()
  local same = #lines == #expected
  for i = 1, math.max(#lines, #expected) do
    if lines[i] ~= expected[i] then
      same = false
      io.stderr:write(string.format("line %d: expected %q, got %q\n", i, tostring(expected[i]), tostring(lines[i])))
    end
  end
  if not same then
    fail("the run buffer differs from the expected text")
  end
end

local function expect_log_seqs()
  local by_run = {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(harness9.open_log(), 0, -1, false)) do
    local run, seq = line:match("^%[(r%-[^ ]+) #(%d+)%]")
    if run then
      local want = (by_run[run] or 0) + 1
      if tonumber(seq) ~= want then
        fail(string.format("run %s: seq %s where %d was expected", run, seq, want))
      end
      by_run[run] = want
    end
  end
end

local function scenario_run()
  vim.cmd("Harness9Run list the files")
  wait_for("the end of the run", function()
    return not harness9.running()
  end)
  expect_lines({
    "» list the files",
    "── turn 1",
    "I'll look.",
    "  ✓ bash: echo hi  (N ms)",
    "    │ hi",
    "  ✓ read_file: a.txt  (N ms)",
    "    │ hello from a.txt",
    "── turn 2",
    "All done: a.txt says hello.",
    "■ completed · 2 turns · 2 tool calls · N in / N out tokens",
  })
  expect_log_seqs()
  wait_for("standard $/progress updates from the daemon", function()
    return progress_updates > 0
  end)
  -- A second run continues the session; bad params come back as an error line.
  harness9.config.run_params = { maxTurns = 0 }
  vim.cmd("Harness9Run and again")
  wait_for("the error reply", function()
    return not harness9.running()
  end)
  local lines = normalized_lines()
  if lines[12] ~= "» and again" or not lines[13]:match("^■ error: .*maxTurns") or #lines ~= 13 then
    fail("the rejected run should show its prompt and the daemon's error message")
  end
end

local function scenario_nodaemon()
  harness9.config.cmd = { "/nonexistent/harness9", "serve" }
  local ok, message = harness9.run("hello")
  wait_for("the failed start", function()
    return not harness9.running()
  end)
  local lines = normalized_lines()
  if ok or not message or lines[1] ~= "» hello" or not (lines[2] or ""):match("^■ error: ") then
    fail("a daemon that cannot start should end the run with an error line")
  end
end

local function scenario_cancel()
  vim.cmd("Harness9Run wait for it")
  wait_for("the bash tool to start", has_line("^  … bash: sleep 30$"))
  vim.cmd("Harness9Cancel")
  wait_for("the run to end after the cancel", function()
    return not harness9.running()
  end)
  local lines = {}
  for _, line in ipairs(normalized_lines()) do
    if not line:match("^    │ ") then -- the cancelled tool's output text is the daemon's to word
      table.insert(lines, line)
    end
  end
  lines[#lines] = lines[#lines]:gsub(" · .*", "")
  expect_lines({
    "» wait for it",
    "── turn 1",
    "Waiting.",
    "  ✗ bash: sleep 30  (cancelled, N ms)",
    "■ cancelled",
  }, lines)
  expect_log_seqs()
end

-- Starts the daemon and, once it is initialized, sends an empty didChangeConfiguration, as
-- Neovim 0.11+ does on its own right after connecting: the init options must survive it.
local function connect()
  local client_mod = require("harness9.client")
  local ready = false
  client_mod.with_client(harness9.config, function(client)
    client_mod.call(client, "notify", "workspace/didChangeConfiguration", { settings = vim.empty_dict() })
    ready = true
  end)
  wait_for("the daemon to start", function()
    return ready
  end)
end

local function main()
  -- Configured as the README's recipe says: through initializationOptions, not the environment.
  harness9.setup({
    cmd = { os.getenv("H9_DAEMON"), "serve" },
    init_options = { provider = "replay", replayFile = os.getenv("H9_REPLAY") },
    root_dir = os.getenv("H9_WORKSPACE"),
  })
  -- Standard $/progress reaches the stock client: User LspProgressUpdate (0.7) / LspProgress (0.10+).
  local count = function()
    progress_updates = progress_updates + 1
  end
  vim.api.nvim_create_autocmd("User", { pattern = "LspProgressUpdate", callback = count })
  pcall(vim.api.nvim_create_autocmd, "LspProgress", { callback = count })
  local scenario = ({ run = scenario_run, cancel = scenario_cancel, nodaemon = scenario_nodaemon })[os.getenv("H9_SCENARIO")]
  if not scenario then
    fail("unknown H9_SCENARIO " .. tostring(os.getenv("H9_SCENARIO")))
  end
  if scenario ~= scenario_nodaemon then
    connect()
  end
  scenario()
  local messages = vim.api.nvim_exec("messages", true)
  if messages:match("deprecated") or messages:match("[Ee]rror") then
    fail("Neovim reported:\n" .. messages)
  end
  if os.getenv("H9_SHOW") then
    io.stdout:write(buffer_text() .. "\n")
  end
  io.stdout:write("ok: " .. os.getenv("H9_SCENARIO") .. "\n")
  finish(0)
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  fail(tostring(err))
end
