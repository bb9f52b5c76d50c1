-- Headless end-to-end test of the plugin against the real daemon with a scripted model.
-- Environment: H9_SCENARIO (run | cancel | nodaemon | approve | approvecancel | stock | restore |
-- applyedit), H9_DAEMON, H9_REPLAY, H9_WORKSPACE, H9_TESTS (this folder: helpers.lua).
-- The daemon is configured through init_options only (the environment names no provider).
-- Exits 0 on success; on a mismatch prints the run buffer and the log to stderr and exits 1.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")

local progress_updates = 0

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

local function normalized_lines()
  return h.normalized(harness9.buffer())
end

-- Compares the run buffer's lines (or `lines`) with `expected`, with durations and token counts
-- made constant; everything else must match exactly.
local function expect_lines(expected, lines)
  h.expect_lines("the run buffer", expected, lines or normalized_lines())
end

local function expect_log_seqs()
  local by_run = {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(harness9.open_log(), 0, -1, false)) do
    local run, seq = line:match("^%[(r%-[^ ]+) #(%d+)%]")
    if run then
      local want = (by_run[run] or 0) + 1
      if tonumber(seq) ~= want then
        h.fail(string.format("run %s: seq %s where %d was expected", run, seq, want))
      end
      by_run[run] = want
    end
  end
end

local function scenario_run()
  vim.cmd("Harness9Run list the files")
  h.wait_for("the end of the run", function()
    return not harness9.running()
  end)
  expect_lines({
    "» list the files",
    "── turn 1",
    "I'll look.",
    "  ✓ bash: echo hi  (N ms) · <sandbox>",
    "    │ hi",
    "  ✓ read_file: a.txt  (N ms)",
    "    │ hello from a.txt",
    "── turn 2",
    "All done: a.txt says hello.",
    "■ completed · 2 turns · 2 tool calls · N in / N out tokens",
  })
  expect_log_seqs()
  h.wait_for("standard $/progress updates from the daemon", function()
    return progress_updates > 0
  end)
  -- A second run continues the session; bad params come back as an error line.
  harness9.config.run_params = { maxTurns = 0 }
  vim.cmd("Harness9Run and again")
  h.wait_for("the error reply", function()
    return not harness9.running()
  end)
  local lines = normalized_lines()
  if lines[12] ~= "» and again" or not lines[13]:match("^■ error: .*maxTurns") or #lines ~= 13 then
    h.fail("the rejected run should show its prompt and the daemon's error message")
  end
end

local function scenario_nodaemon()
  harness9.setup(vim.tbl_extend("force", harness9.config, { cmd = { "/nonexistent/harness9", "serve" } }))
  local ok, message = harness9.run("hello")
  h.wait_for("the failed start", function()
    return not harness9.running()
  end)
  local lines = normalized_lines()
  if ok or not message or lines[1] ~= "» hello" or not (lines[2] or ""):match("^■ error: ") then
    h.fail("a daemon that cannot start should end the run with an error line")
  end
end

local function scenario_cancel()
  vim.cmd("Harness9Run wait for it")
  h.wait_for("the bash tool to start", has_line("^  … bash: sleep 30 · [%a ()]+$"))
  vim.cmd("Harness9Cancel")
  h.wait_for("the run to end after the cancel", function()
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
    "  ✗ bash: sleep 30  (cancelled, N ms) · <sandbox>",
    "■ cancelled",
  }, lines)
  expect_log_seqs()
end

local OPTIONS = { "Allow once", "Allow for this session", "Reject" }

local function scenario_approve()
  local asked = h.fake_select({ "Allow once", "Reject" })
  local reasons = h.fake_input("not in the root, please")
  vim.cmd("Harness9Run change a.txt")
  h.wait_for("the end of the run", function()
    return not harness9.running()
  end)
  h.expect_equal("questions", 2, #asked)
  h.expect_equal("the first question", {
    prompt = "harness9 asks to run edit_file: a.txt",
    labels = OPTIONS,
    previews = { { filetype = "diff", lines = { "--- a/a.txt", "+++ b/a.txt", "@@ -1 +1 @@", "-hello from a.txt", "+bye from a.txt" } } },
  }, { prompt = asked[1].prompt, labels = asked[1].labels, previews = asked[1].previews })
  h.expect_equal("the second question", {
    prompt = "harness9 asks to run bash: echo planted > planted.txt",
    previews = { { filetype = "sh", lines = { "echo planted > planted.txt" } } },
  }, { prompt = asked[2].prompt, previews = asked[2].previews })
  h.expect_equal("reasons asked", { "Reason for rejecting (optional): " }, reasons)
  h.expect_equal("floating windows after the run", {}, h.floats())
  h.expect_equal("a.txt (allowed)", "bye from a.txt\n", h.workspace_file("a.txt"))
  h.expect_equal("planted.txt (rejected)", nil, h.workspace_file("planted.txt"))
  local lines = normalized_lines()
  -- edit_file's output (its confirmation, then "No new problems …") is the daemon's to word.
  while (lines[8] or ""):find("^    │ ") do
    table.remove(lines, 8)
  end
  expect_lines({
    "» change a.txt",
    "── turn 1",
    "Changing it.",
    "  ✓ edit_file: a.txt  (allowed once, N ms)",
    "    ┆ @@ -1 +1 @@",
    "    ┆ -hello from a.txt",
    "    ┆ +bye from a.txt",
    "  ✗ bash: echo planted > planted.txt  (rejected: not in the root, please; N ms)", -- the reason once
    "── turn 2",
    "Done.",
    "■ completed · 2 turns · 2 tool calls · N in / N out tokens",
  }, lines)
  expect_log_seqs()
end

local function scenario_approvecancel()
  -- The user never answers; the run is cancelled meanwhile. Neovim 0.7 waits inside the
  -- request handler (the test's own waits resume only once it returns), so the cancel comes from
  -- a timer, as a key press would.
  local asked = h.fake_select({ false }, function()
    vim.defer_fn(function()
      vim.cmd("Harness9Cancel")
    end, 50)
  end)
  local inputs = 0
  vim.ui.input = function()
    inputs = inputs + 1
  end
  vim.cmd("Harness9Run plant a file")
  h.wait_for("the run to end after the cancel", function()
    return not harness9.running()
  end)
  h.wait_for("the question to close", function()
    return not require("harness9.approval").asking() and #h.floats() == 0
  end)
  -- A late answer to the withdrawn question is ignored: no reason asked, nothing answered twice.
  asked[1].on_choice(asked[1].items[3], 3)
  vim.wait(100)
  h.expect_equal("reasons asked", 0, inputs)
  h.expect_equal("planted.txt", nil, h.workspace_file("planted.txt"))
  local lines = normalized_lines()
  lines[#lines] = lines[#lines]:gsub(" · .*", "")
  expect_lines({
    "» plant a file",
    "── turn 1",
    "Planting.",
    "  ✗ bash: echo planted > planted.txt  (cancelled, N ms)",
    "■ cancelled",
  }, vim.tbl_filter(function(line)
    return not line:match("^    │ ")
  end, lines))
end

-- A run whose bash call changes two files lists them under the call; :Harness9Restore with the
-- first checkpoint (before the run's tools) puts both back and reloads the open buffer of a.txt.
-- Parallel bash calls cannot tell their changes apart: the view says so under each (the daemon
-- sends changedFilesSharedWith then; its timing is not scriptable here, so events are fed in).
local function check_shared_note()
  local view = require("harness9.view")
  local state = view.new()
  view.start(state, "two at once")
  for _, ev in ipairs({
    { kind = "tool_started", runId = "r-1", turn = 1, toolCallId = "c1", tool = "bash", arguments = { command = "make" } },
    { kind = "tool_completed", runId = "r-1", turn = 1, toolCallId = "c1", tool = "bash", durationMs = 5, output = "",
      changedFiles = { { path = "out/x", status = "added" }, { path = "old", status = "deleted" } },
      changedFilesSharedWith = { "c2" } },
  }) do
    view.apply(state, ev)
  end
  h.expect_equal("a call whose changes are shared", {
    "» two at once",
    "── turn 1",
    "  ✓ bash: make  (5 ms)",
    "    + out/x",
    "    - old",
    "    (may include changes of 1 other call that ran at the same time)",
  }, view.lines(state))
end

-- A call cancelled while its question waited never ran: read back from the stored session
-- (`outcome.asked`, `outcome.started = false`), its line is the one the live run showed.
local function check_cancelled_while_asked()
  local view = require("harness9.view")
  local call = { runId = "r-1", turn = 1, toolCallId = "c1", tool = "bash", toolKind = "execute",
                 arguments = { command = "touch planted" } }
  local live = view.new()
  view.start(live, "go")
  for _, ev in ipairs({
    vim.tbl_extend("force", call, { kind = "approval_requested", title = "bash: touch planted" }),
    vim.tbl_extend("force", call, { kind = "tool_failed", reason = "cancelled", durationMs = 0,
                                    output = "Error: cancelled" }),
  }) do
    view.apply(live, ev)
  end
  local restored = view.new()
  view.load_session(restored, { sessionId = "s", runs = { { runId = "r-1", prompt = "go", status = "cancelled" } },
    messages = {
      { role = "user", content = "go" },
      { role = "assistant", content = "", toolCalls = { { id = "c1", name = "bash", kind = "execute",
        arguments = '{"command":"touch planted"}',
        outcome = { status = "cancelled", turn = 1, durationMs = 0, started = false, asked = true } } } },
      { role = "user", toolCallId = "c1", content = "Error: cancelled", isError = true },
    } })
  local function call_line(lines)
    for _, line in ipairs(lines) do
      if line:match("touch planted") then
        return line
      end
    end
  end
  h.expect_equal("the restored line of a call cancelled while asked", call_line(view.lines(live)),
    call_line(view.lines(restored)))
  local chat_view = require("harness9.chat_view")
  h.expect_equal("its chat row", call_line(chat_view.render(live).lines),
    call_line(chat_view.render(restored).lines))
end

-- Protocol 1.2: a call asked about is first heard of by its approval_requested (with its
-- arguments) and starts only once allowed; a rejected or denied call never starts, yet each has
-- its line in the chat.
local function check_calls_asked_about()
  local view = require("harness9.view")
  local state = view.new()
  view.start(state, "asked")
  local function feed(events)
    for _, ev in ipairs(events) do
      ev.runId, ev.turn = "r-1", 1
      view.apply(state, ev)
    end
  end
  feed({
    { kind = "assistant_message", text = "", toolCalls = {
      { id = "a", name = "bash", arguments = { command = "make" } },
      { id = "r", name = "bash", arguments = { command = "rm a" } },
      { id = "d", name = "write_file", arguments = { path = "b.txt", content = "x" } },
    } },
    { kind = "approval_requested", toolCallId = "a", tool = "bash", toolKind = "execute", title = "bash: make",
      arguments = { command = "make" } },
  })
  h.expect_equal("a call waiting for approval", "asking", state.runs[1].tools.a.status)
  feed({
    { kind = "approval_resolved", toolCallId = "a", tool = "bash", decision = "allow_once", by = "user" },
    { kind = "tool_started", toolCallId = "a", tool = "bash", toolKind = "execute", arguments = { command = "make" } },
    { kind = "tool_completed", toolCallId = "a", tool = "bash", durationMs = 5, output = "" },
    { kind = "approval_requested", toolCallId = "r", tool = "bash", toolKind = "execute", title = "bash: rm a",
      arguments = { command = "rm a" } },
    { kind = "approval_resolved", toolCallId = "r", tool = "bash", decision = "reject", by = "user" },
    { kind = "tool_failed", toolCallId = "r", tool = "bash", reason = "rejected", durationMs = 1, output = "no" },
    { kind = "approval_resolved", toolCallId = "d", tool = "write_file", decision = "deny", by = "mode" },
    { kind = "tool_failed", toolCallId = "d", tool = "write_file", toolKind = "edit", reason = "denied", durationMs = 0,
      output = "denied" },
  })
  local lines = view.lines(state)
  h.expect_equal("calls asked about, allowed and refused", {
    "  ✓ bash: make  (allowed once, 5 ms)",
    "  ✗ bash: rm a  (rejected, 1 ms)",
    "  ✗ write_file: b.txt  (denied by the mode, 0 ms)",
    "    │ denied",
  }, { lines[3], lines[4], lines[5], lines[6] })
  -- With tool_failed's `message` (1.3): why, once, on the row of both buffers; the text for the
  -- model is not shown again under it.
  local told = view.new()
  view.start(told, "told")
  state = told
  feed({
    { kind = "assistant_message", text = "", toolCalls = {
      { id = "r", name = "bash", arguments = { command = "rm a" } },
      { id = "d", name = "bash", arguments = { command = "rm -rf b" } },
    } },
    { kind = "approval_requested", toolCallId = "r", tool = "bash", toolKind = "execute", title = "bash: rm a",
      arguments = { command = "rm a" } },
    { kind = "approval_resolved", toolCallId = "r", tool = "bash", decision = "reject", by = "user" },
    { kind = "tool_failed", toolCallId = "r", tool = "bash", toolKind = "execute", reason = "rejected", durationMs = 1,
      output = "Error: the user rejected this bash call: not now,\n please", message = "not now,\n please" },
    { kind = "approval_resolved", toolCallId = "d", tool = "bash", decision = "deny", by = "rule", rule = "bash(rm *)" },
    { kind = "tool_failed", toolCallId = "d", tool = "bash", toolKind = "execute", reason = "denied", durationMs = 0,
      output = "Error: denied", message = "deny rule bash(rm *)" },
  })
  h.expect_equal("refusals with their message", {
    "» told",
    "── turn 1",
    "  ✗ bash: rm a  (rejected: not now, please; 1 ms)",
    "  ✗ bash: rm -rf b  (denied: deny rule bash(rm *); 0 ms)",
  }, view.lines(told))
  local chat_lines = require("harness9.chat_view").render(told).lines
  h.expect_equal("the chat's rows", {
    "  ✗ `rm a` rejected: not now, please · 1 ms",
    "  ✗ `rm -rf b` denied: deny rule bash(rm *) · 0 ms",
  }, vim.tbl_filter(function(line)
    return line:find("✗", 1, true) ~= nil
  end, chat_lines))
end

-- A question for a call already running in the sandbox (the sandbox stopped it, the daemon offers
-- to run it again outside): the call keeps its one row, which waits with the reason, runs again
-- when allowed and ends with the rerun's result, "not sandboxed"; the chat row says the same.
local function check_sandbox_rerun()
  local view, chat_view = require("harness9.view"), require("harness9.chat_view")
  local state = view.new()
  view.start(state, "rerun")
  local reason = "was stopped by the OS sandbox (touch: cannot touch '/x': Read-only file system)"
  local function feed(ev)
    ev.runId, ev.turn, ev.toolCallId, ev.tool, ev.toolKind = "r-1", 1, "c1", "bash", "execute"
    view.apply(state, ev)
  end
  local function row()
    return view.lines(state)[3]
  end
  feed({ kind = "tool_started", arguments = { command = "touch /x" }, sandbox = "bwrap" })
  h.expect_equal("running in the sandbox", "  … bash: touch /x · sandboxed (bwrap)", row())
  feed({ kind = "tool_output", text = "touch: cannot touch '/x': Read-only file system\n" })
  feed({ kind = "approval_requested", title = "bash: touch /x", arguments = { command = "touch /x" }, reason = reason })
  h.expect_equal("asking on the same row", {
    "» rerun", "── turn 1", "  ? bash: touch /x  (waiting for approval: it " .. reason .. ") · sandboxed (bwrap)",
  }, view.lines(state))
  local chat = chat_view.render(state)
  local chat_row = vim.tbl_filter(function(line)
    return line:find("touch", 1, true) ~= nil
  end, chat.lines)
  h.expect_equal("the chat row while asking", { "  ? wants to run `touch /x` · waiting for approval: it " .. reason
    .. " · sandboxed (bwrap)" }, chat_row)
  feed({ kind = "approval_resolved", decision = "allow_once", by = "user" })
  h.expect_equal("running again", "  … bash: touch /x  (allowed once) · sandboxed (bwrap)", row())
  feed({ kind = "tool_completed", output = "(no output)", exitCode = 0, durationMs = 7, sandbox = "none" })
  h.expect_equal("the rerun's result", {
    "» rerun", "── turn 1", "  ✓ bash: touch /x  (allowed once, 7 ms) · not sandboxed", "    │ (no output)",
  }, view.lines(state))
end

local function scenario_restore()
  check_shared_note()
  check_calls_asked_about()
  check_cancelled_while_asked()
  check_sandbox_rerun()
  local ok, message = harness9.restore()
  h.expect_equal("a restore before any run", { false, "harness9: no session to restore yet (:Harness9Run starts one)" },
    { ok, message })
  vim.cmd("Harness9Run change two files")
  h.wait_for("the end of the run", function()
    return not harness9.running()
  end)
  local lines = normalized_lines()
  expect_lines({
    "» change two files",
    "── turn 1",
    "Changing two files.",
    "  ✓ bash: echo changed >> a.txt; echo new > b.txt  (N ms) · <sandbox>",
    "    ~ a.txt",
    "    + b.txt",
    "    │ (no output)",
    "── turn 2",
    "Done.",
    "■ completed · 2 turns · 1 tool call · N in / N out tokens",
  }, lines)
  local ws = os.getenv("H9_WORKSPACE")
  vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/a.txt"))
  local a_buf = vim.api.nvim_get_current_buf()
  h.expect_equal("a.txt's buffer after the run", { "hello from a.txt", "changed" },
    vim.api.nvim_buf_get_lines(a_buf, 0, -1, false))
  local asked = h.fake_select({ 1, "Restore" })
  vim.cmd("Harness9Restore")
  h.wait_for("the restore", has_line("^↺ "))
  h.expect_equal("questions", 2, #asked)
  local label = asked[1].labels[1]
  if not label:match("^turn 1 · 0 files · %d%d:%d%d:%d%d$") then
    h.fail("the first checkpoint's label: " .. label)
  end
  h.expect_equal("the confirmation", { "Restore", "Cancel" }, asked[2].labels)
  h.expect_equal("a.txt (restored)", "hello from a.txt\n", h.workspace_file("a.txt"))
  h.expect_equal("b.txt (restored)", nil, h.workspace_file("b.txt"))
  h.expect_equal("a.txt's buffer (reloaded)", { "hello from a.txt" }, vim.api.nvim_buf_get_lines(a_buf, 0, -1, false))
  lines = normalized_lines()
  h.expect_equal("the note", "↺ restored 2 files (back to " .. label .. ")", lines[#lines])
  -- The restore's own checkpoint is offered next, to undo it.
  asked = h.fake_select({ 2, "Restore" })
  vim.cmd("Harness9Restore")
  h.wait_for("the undo", function() return h.workspace_file("b.txt") ~= nil end)
  if not asked[1].labels[2]:match("^undo the restore · 2 files · %d%d:%d%d:%d%d$") then
    h.fail("the undo checkpoint's label: " .. tostring(asked[1].labels[2]))
  end
  h.expect_equal("a.txt (undone)", "hello from a.txt\nchanged\n", h.workspace_file("a.txt"))
end

-- A client as the stock recipe starts it (no plugin handlers, no approvalRequests capability):
-- the daemon asks with window/showMessageRequest, which Neovim's own handler shows with
-- vim.fn.inputlist (before 0.10) or vim.ui.select (0.10+, in a coroutine).
local function scenario_stock()
  local client_mod = require("harness9.client")
  local root = os.getenv("H9_WORKSPACE")
  local config = {
    name = "harness9-stock",
    cmd = { os.getenv("H9_DAEMON"), "serve" },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = { provider = "replay", replayFile = os.getenv("H9_REPLAY"), approvals = { mode = "ask" } },
  }
  local id = client_mod.start_detached(config)
  local client
  h.wait_for("the stock client", function()
    client = vim.lsp.get_client_by_id(id)
    return client ~= nil and client.initialized
  end)
  local answers, questions = { "Allow once", "Reject" }, {}
  local function answer(message, labels)
    table.insert(questions, message)
    local want = table.remove(answers, 1)
    for i, label in ipairs(labels) do
      if label == want then
        return i
      end
    end
    return 0
  end
  vim.fn.inputlist = function(lines)
    local labels = {}
    for i = 3, #lines do
      table.insert(labels, (lines[i]:gsub("^%d+%. ", "")))
    end
    return answer(lines[1], labels)
  end
  vim.ui.select = function(items, opts, on_choice)
    local labels = vim.tbl_map(opts.format_item or function(item)
      return item.title
    end, items)
    local i = answer((opts.prompt or ""):gsub(": $", ""), labels)
    on_choice(items[i], i ~= 0 and i or nil)
  end
  local reply
  client_mod.call(client, "request", "agent/run", { prompt = "ask twice" }, function(err, result)
    reply = { err = err, result = result }
  end)
  h.wait_for("the stock run", function()
    return reply ~= nil
  end)
  h.expect_equal("questions", {
    "harness9 asks to run bash: echo one > one.txt",
    "harness9 asks to run bash: echo two > two.txt",
  }, questions)
  h.expect_equal("the reply", { status = "completed", toolCalls = 2, text = "Asked twice." }, {
    status = reply.result and reply.result.status,
    toolCalls = reply.result and reply.result.toolCalls,
    text = reply.result and reply.result.text,
  })
  h.expect_equal("one.txt (allowed)", "one\n", h.workspace_file("one.txt"))
  h.expect_equal("two.txt (rejected)", nil, h.workspace_file("two.txt"))
end

-- The agent reads a buffer with unsaved text and edits it: Neovim's stock workspace/applyEdit
-- handler applies the edit to the buffer (one undo step, the user's text kept), and the daemon
-- writes the same text to disk.
local function scenario_applyedit()
  local path = os.getenv("H9_WORKSPACE") .. "/a.txt"
  vim.cmd("edit " .. vim.fn.fnameescape(path)) -- the plugin attaches it to the daemon
  local buf = vim.api.nvim_get_current_buf()
  vim.cmd("normal! otyped, not saved")
  vim.cmd("Harness9Run edit a.txt")
  h.wait_for("the end of the run", function()
    return not harness9.running()
  end)
  if not has_line("typed, not saved")() then
    h.fail("read_file should have shown the unsaved line of the buffer")
  end
  h.expect_equal("the buffer", { "hello from the agent", "typed, not saved" },
    vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  h.expect_equal("a.txt on disk", "hello from the agent\ntyped, not saved\n", h.workspace_file("a.txt"))
  vim.api.nvim_set_current_buf(buf)
  vim.cmd("normal! u")
  h.expect_equal("the buffer after u", { "hello from a.txt", "typed, not saved" },
    vim.api.nvim_buf_get_lines(buf, 0, -1, false))
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
  h.wait_for("the daemon to start", function()
    return ready
  end)
end

local function main()
  -- Configured as the README's recipe says: through initializationOptions, not the environment.
  local scenario_name = os.getenv("H9_SCENARIO")
  local asks = scenario_name == "approve" or scenario_name == "approvecancel"
  harness9.setup({
    cmd = { os.getenv("H9_DAEMON"), "serve" },
    init_options = { provider = "replay", replayFile = os.getenv("H9_REPLAY") },
    root_dir = os.getenv("H9_WORKSPACE"),
    -- Scenarios about something else run every tool; the approval ones ask (the daemon's default
    -- is auto where a sandbox works, which runs edits and sandboxed commands unasked).
    approvals = { mode = asks and "ask" or "yolo" },
  })
  -- Standard $/progress reaches the stock client: User LspProgressUpdate (0.7) / LspProgress (0.10+).
  local count = function()
    progress_updates = progress_updates + 1
  end
  vim.api.nvim_create_autocmd("User", { pattern = "LspProgressUpdate", callback = count })
  pcall(vim.api.nvim_create_autocmd, "LspProgress", { callback = count })
  local scenario = ({
    run = scenario_run,
    cancel = scenario_cancel,
    nodaemon = scenario_nodaemon,
    approve = scenario_approve,
    approvecancel = scenario_approvecancel,
    stock = scenario_stock,
    restore = scenario_restore,
    applyedit = scenario_applyedit,
  })[scenario_name]
  if not scenario then
    h.fail("unknown H9_SCENARIO " .. tostring(scenario_name))
  end
  if scenario ~= scenario_stock then
    -- Neovim's stock question (window/showMessageRequest) would wait for a key: here it means
    -- the daemon did not see the plugin's approvalRequests capability, or asked where no
    -- question was expected.
    vim.fn.inputlist = function(lines)
      h.fail("Neovim's stock prompt was shown: " .. tostring(lines[1]))
      return 0
    end
  end
  if scenario ~= scenario_nodaemon and scenario ~= scenario_stock then
    connect()
  end
  scenario()
  if os.getenv("H9_SHOW") then
    io.stdout:write(table.concat(vim.api.nvim_buf_get_lines(harness9.buffer(), 0, -1, false), "\n") .. "\n")
  end
end

h.main(main)
