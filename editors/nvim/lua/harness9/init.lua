-- harness9 for Neovim: `:Harness9Run {prompt}` runs the agent in the workspace and renders the
-- run live in a scratch buffer from agent/progress; `:Harness9Cancel` stops it; `:Harness9Log`
-- shows every notification the daemon sent; `:Harness9Restore` brings the workspace back to a
-- checkpoint of the session (see restore.lua). Tool calls that need the user's approval are asked
-- with a preview and `vim.ui.select` (see approval.lua). Works on Neovim 0.7 and later.
local approval = require("harness9.approval")
local client_mod = require("harness9.client")
local context = require("harness9.context")
local buffer = require("harness9.buffer")
local chat = require("harness9.chat")
local commands = require("harness9.commands")
local diff = require("harness9.diff")
local editor = require("harness9.editor")
local files = require("harness9.files")
local models = require("harness9.models")
local restore = require("harness9.restore")
local sessions_ui = require("harness9.sessions")
local tasks = require("harness9.tasks")
local view = require("harness9.view")

local M = {}

local defaults = {
  cmd = { "harness9", "serve" }, -- the daemon's command line
  cmd_env = nil, -- extra environment for the daemon, e.g. { HARNESS9_MODEL = "gpt-4o" }
  init_options = nil, -- initializationOptions: provider, model, maxTurns, …
  settings = nil, -- `harness9` section for workspace/didChangeConfiguration
  -- { mode = "auto" | "ask" | "auto-edit" | "yolo" | "read-only", allow = {…}, deny = {…} };
  -- nil: the daemon's default (auto where an OS sandbox works, else ask)
  approvals = nil,
  approval_ui = "auto", -- "float" | "select" | "auto" (the float unless vim.ui.select was replaced)
  root_dir = nil, -- workspace root (string or function); default: the current directory
  run_params = {}, -- extra agent/run params for every run (model, maxTurns, thinking, …)
  output_lines = 3, -- lines of each tool's output shown under its line
  split = "botright vsplit", -- how the run buffer and the chat are opened
  log_limit = 5000, -- lines kept by :Harness9Log
  -- Keys of the commands (a key already mapped is left alone); false for none, or a key false.
  keymaps = {
    chat = "<leader>hc", -- :Harness9Chat
    run = "<leader>hr", -- :Harness9Run (in visual mode with the selection's range)
    cancel = "<leader>hx", -- :Harness9Cancel
    sessions = "<leader>hs", -- :Harness9Sessions
    diff = "<leader>hd", -- :Harness9Diff
    restore = "<leader>hu", -- :Harness9Restore
    log = "<leader>hl", -- :Harness9Log
    queue = "<leader>hq", -- :Harness9Queue
    plan = "<leader>hp", -- :Harness9Plan
    background = "<leader>hb", -- :Harness9Background
    tasks = "<leader>ht", -- :Harness9Tasks
  },
}

-- The command line each key gives: run keys leave it open for the prompt.
local KEY_COMMANDS = {
  chat = { n = "<cmd>Harness9Chat<CR>" },
  run = { n = ":Harness9Run ", x = ":Harness9Run " },
  cancel = { n = "<cmd>Harness9Cancel<CR>" },
  sessions = { n = "<cmd>Harness9Sessions<CR>" },
  diff = { n = "<cmd>Harness9Diff<CR>" },
  restore = { n = "<cmd>Harness9Restore<CR>" },
  log = { n = "<cmd>Harness9Log<CR>" },
  queue = { n = ":Harness9Queue " },
  plan = { n = ":Harness9Plan " },
  background = { n = ":Harness9Background ", x = ":Harness9Background " },
  tasks = { n = "<cmd>Harness9Tasks<CR>" },
}

M.config = vim.deepcopy(defaults)

local state = view.new({ clock = vim.loop.now })
-- The runs in flight, oldest first: the one in progress, then the queued ones; each
-- { run, client, request_id } (no request_id: a steer's next run, which no request of ours awaits).
local inflight = {}
-- agent/steer requests not answered yet, as keys: until its answer comes, a steer may go on as a
-- run of its own (`next`), and the run it went into may have ended already (its run_finished
-- can come first): the plugin is not idle meanwhile.
local steering = {}
local sessions = {} -- client id -> sessionId of its last run
local log = {}
-- The model picked (:Harness9Model) for sessions still to start: sent as the first run's
-- provider/model/reasoningEffort, then made the new session's own (agent/setModel).
local chosen_model = nil
local render_pending = false
local report_later -- report(), defined below

--- The run view buffer's number (created on first use).
function M.buffer()
  return buffer.get("harness9://run", "harness9", true)
end

--- The session the next run continues (nil: a new one).
function M.session_id()
  local client = client_mod.find(M.config)
  return client and sessions[client.id] or nil
end

-- A run in flight (in progress or queued), or a steer whose answer may start one.
local function busy()
  return #inflight > 0 or next(steering) ~= nil
end

--- True while a run is in flight (in progress or queued), or a message sent into a run is not
--- answered yet (it may run next, as a prompt of its own).
function M.running()
  return busy()
end

-- The entry of the run in progress (not one waiting in the queue), if any.
local function current()
  for _, entry in ipairs(inflight) do
    if not entry.run.queued and not entry.run.status then
      return entry
    end
  end
  return nil
end

local function entry_of(run)
  for i, entry in ipairs(inflight) do
    if entry.run == run then
      return entry, i
    end
  end
  return nil
end

-- The run left the flight (it ended, or its request was answered).
local function land(run)
  local _, i = entry_of(run)
  if i then
    table.remove(inflight, i)
  end
end

local ticker = nil -- redraws every second while a run is in flight (a running tool's time)

local function render()
  render_pending = false
  buffer.set_lines(M.buffer(), view.lines(state))
  local chat_buf = chat.find()
  if chat_buf then
    chat.render(chat_buf, state)
  end
end

-- Coalesces the many text_delta events of one loop iteration into one redraw.
local function schedule_render()
  if not render_pending then
    render_pending = true
    vim.schedule(render)
  end
  if #inflight > 0 and not ticker then
    ticker = vim.loop.new_timer()
    ticker:start(1000, 1000, vim.schedule_wrap(function()
      if #inflight == 0 and ticker then
        ticker:stop()
        ticker:close()
        ticker = nil
      end
      render()
    end))
  end
end

local function append_log(text)
  local log_buf = vim.fn.bufnr("harness9://log")
  for _, line in ipairs(require("harness9.text_lines").split(text)) do
    table.insert(log, line)
    if #log > M.config.log_limit then
      table.remove(log, 1)
      log_buf = -1 -- the buffer is rebuilt by :Harness9Log
    end
    if log_buf ~= -1 then
      buffer.set_lines(log_buf, { line }, #log)
    end
  end
end

-- "No new problems" from a file nothing checks (no other language server) says nothing: the
-- rule for an edit's row, live (its tool_completed) and shown again (its stored outcome).
local function quiet_unchecked(root, block, diagnostics)
  local path = block.path or (type(block.args) == "table" and block.args.path)
  if type(diagnostics) == "table" and #diagnostics == 0
      and not (type(path) == "string" and editor.checked(root .. "/" .. path)) then
    block.problems = nil
  end
end

--- Shows a stored session (the `agent/session` result) in the chat's state, each row as it was live.
local function load_session(client, stored)
  view.load_session(state, stored)
  local root = client.config.root_dir or vim.fn.getcwd()
  for _, run in ipairs(state.runs) do
    for _, block in pairs(run.tools or {}) do
      quiet_unchecked(root, block, block.problems)
    end
  end
end

local function on_progress(_, params, ctx)
  if type(params) ~= "table" then
    return
  end
  append_log(string.format("[%s #%s] %s %s", params.runId, params.seq, params.kind, vim.fn.json_encode(params)))
  if tasks.on_progress(params) then
    return -- a background task's: its list shows it, not the chat
  end
  local run = view.apply(state, params)
  if params.kind == "tool_completed" then
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    local root = client and client.config.root_dir or vim.fn.getcwd()
    local block = run and run.tools[params.toolCallId]
    files.settle(root, params, block and block.args)
    if block then
      quiet_unchecked(root, block, params.diagnostics)
    end
    local kept = files.reload(root, files.changed_by(params, block and block.args))
    if #kept > 0 then
      vim.notify("harness9: changed on disk, not reloaded (unsaved changes): " .. table.concat(kept, ", "),
        vim.log.levels.WARN)
    end
  end
  if run and params.kind == "run_finished" then
    if not (run.command == "clear" or run.command == "resume") then -- (answered: moved already)
      sessions[ctx.client_id] = params.sessionId
    end
    -- Neovim never passes a RequestCancelled reply to the handler: the run ends here.
    land(run)
  end
  if run and params.kind == "run_started" and run.model_choice and params.sessionId then
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if client then
      local choice = run.model_choice
      run.model_choice = nil
      client_mod.call(client, "request", "agent/setModel", vim.tbl_extend("force", choice,
        { sessionId = params.sessionId }), function() end)
    end
  end
  if run and params.sessionId and not sessions[ctx.client_id] then
    sessions[ctx.client_id] = params.sessionId -- a prompt queued now joins this session
  end
  schedule_render()
end

local function on_log_message(err, params, ctx, cfg)
  if type(params) == "table" and params.message then
    append_log("[log] " .. params.message)
  end
  local default = vim.lsp.handlers["window/logMessage"]
  if default then
    return default(err, params, ctx, cfg)
  end
end

local switch_session -- defined below

local function on_reply(run, client_id)
  return function(err, result)
    view.finish(run, err, result)
    if result and result.sessionId then
      sessions[client_id] = result.sessionId
    end
    if result and result.sessionId and result.sessionId ~= run.sent_session
      and (result.command == "clear" or result.command == "resume") then
      switch_session(client_id, run, result)
    end
    if err then
      append_log(string.format("[agent/run] error %s: %s", err.code, err.message))
    end
    land(run)
    schedule_render()
  end
end

local function on_exit(code, signal, client_id)
  sessions[client_id] = nil
  steering = {} -- their answers never come
  append_log(string.format("[exit] the daemon exited (code %s, signal %s)", code, signal))
  local message = string.format("the harness9 daemon exited (code %s)", code)
  for _, entry in ipairs(vim.list_slice(inflight, 1, #inflight)) do
    if not entry.client or entry.client.id == client_id then
      view.finish(entry.run, { code = -32803, message = message }, nil)
      land(entry.run)
    end
  end
  schedule_render()
end

local function send_run(client, entry, params)
  append_log("[agent/run] → " .. vim.fn.json_encode(params))
  local run = entry.run
  local ok, request_id = client_mod.call(client, "request", "agent/run", params, on_reply(run, client.id))
  if not ok then
    view.finish(run, { code = -32803, message = "the harness9 daemon is not running" }, nil)
    land(run)
  else
    entry.client, entry.request_id = client, request_id
  end
  schedule_render()
end

--- The prompt `agent/run {executePlan: true}` carries when none is given.
M.execute_plan_prompt = "Carry out the plan."

--- Runs the agent on `prompt`; continues the last session unless `opts.new_session`.
--- `opts.range = { first, last }` attaches those lines of the current file; `%` and `%d` words in
--- the prompt attach the file and its diagnostics (see context.lua). `opts.queue`: while a run is
--- in progress, the prompt waits in the session's queue and runs after it. `opts.plan`: the agent
--- only investigates and plans; `opts.execute_plan`: it carries out the session's plan (the prompt
--- may then be empty).
function M.run(prompt, opts)
  opts = opts or {}
  local queue = opts.queue and busy()
  if busy() and not queue then
    return false, "harness9: a run is in progress (:Harness9Queue queues a prompt, :Harness9Cancel stops it)"
  end
  local client_now = client_mod.find(M.config)
  if queue and not (client_now and sessions[client_now.id]) then
    return false, "harness9: the run has not started yet; queue your prompt in a moment"
  end
  local items
  prompt, items = context.collect(prompt or "", opts.range)
  if not prompt then
    return false, items
  end
  if prompt:match("^%s*$") and not opts.execute_plan then
    return false, "harness9: the prompt is empty"
  end
  local shown = prompt:match("^%s*$") and M.execute_plan_prompt or prompt
  local run = view.start(state, shown)
  -- Approval mode "plan" in the setup: every run plans first (:Harness9Go then carries it out).
  local plan_setting = type(M.config.approvals) == "table" and M.config.approvals.mode == "plan"
  run.plan_mode = (opts.plan or (plan_setting and not opts.execute_plan)) or nil
  run.execute_plan = opts.execute_plan or nil
  run.queued = queue and {} or nil
  local root = vim.fn.fnamemodify(M.config.root_dir or vim.fn.getcwd(), ":p"):gsub("/$", "")
  run.attached = vim.tbl_map(function(item)
    return context.label(item, root)
  end, items)
  local entry = { run = run }
  table.insert(inflight, entry)
  -- A queued or planning prompt given as a command shows in the chat when the chat is open.
  local chat_buf = chat.find()
  local in_chat = (opts.queue or opts.plan or opts.execute_plan) and chat_buf and #vim.fn.win_findbuf(chat_buf) > 0
  if not opts.from_chat and not in_chat then
    buffer.show(M.buffer(), M.config.split)
  end
  render()
  local ok, err = pcall(client_mod.with_client, M.config, function(client)
    local params = vim.tbl_extend("force", {}, M.config.run_params)
    if not prompt:match("^%s*$") then
      params.prompt = prompt
    end
    if #items > 0 then
      params.context = items
    end
    if not opts.new_session then
      params.sessionId = sessions[client.id]
    end
    if chosen_model and not params.sessionId then
      params = vim.tbl_extend("force", params, chosen_model)
      run.model_choice = chosen_model
    end
    run.sent_session = params.sessionId
    params.plan = opts.plan or nil
    params.executePlan = opts.execute_plan or nil
    send_run(client, entry, params)
  end)
  if not ok then
    local message = tostring(err):gsub("^[^:]*:%d+: ", "")
    view.finish(run, { code = -32803, message = message }, nil)
    land(run)
    render()
    return false, "harness9: " .. message
  end
  return true
end

--- Sends `prompt` into the run in progress (`agent/steer`): the agent reads it at its next step;
--- when the run ends first, it runs next as a prompt of its own. With no run to take it, it is
--- queued (or, with nothing in flight, run).
function M.steer(prompt, opts)
  opts = opts or {}
  local entry = current()
  local items
  prompt, items = context.collect(prompt or "", opts.range)
  if not prompt then
    return false, items
  end
  if prompt:match("^%s*$") then
    return false, "harness9: the prompt is empty"
  end
  if not entry or not entry.client or type(entry.run.run_id) ~= "string" then
    return M.run(prompt, vim.tbl_extend("force", opts, { queue = true }))
  end
  local run, client = entry.run, entry.client
  view.steer_sent(run, prompt)
  schedule_render()
  local params = { runId = run.run_id, prompt = prompt }
  if #items > 0 then
    params.context = items
  end
  append_log("[agent/steer] → " .. vim.fn.json_encode(params))
  local asked = {}
  steering[asked] = true
  local ok = client_mod.call(client, "request", "agent/steer", params, function(err, result)
    steering[asked] = nil
    if err or type(result) ~= "table" then
      view.steer_answered(run, prompt, "failed")
      vim.notify("harness9: the message did not reach the agent: " .. (err and err.message or "no answer"),
        vim.log.levels.WARN)
    else
      view.steer_answered(run, prompt, result.delivered)
      if result.delivered == "next" and type(result.runId) == "string" then
        -- The run ended first: the message is the session's next prompt, a run of its own.
        local next_run = view.start_bound(state, prompt, result.runId)
        if not next_run.status then
          table.insert(inflight, { run = next_run, client = client })
        end
      end
    end
    schedule_render()
  end)
  if not ok then
    steering[asked] = nil
    view.steer_answered(run, prompt, "failed")
    return false, "harness9: the harness9 daemon is not running"
  end
  return true
end

--- Takes `run` (queued; default: the last queued one) out of the session's queue (`agent/unqueue`).
function M.unqueue(run)
  if not run then
    for i = #inflight, 1, -1 do
      run = run or (inflight[i].run.queued and inflight[i].run or nil)
    end
  end
  local entry = run and entry_of(run)
  if not entry or not run.queued then
    return false, "harness9: no queued prompt"
  end
  local client = entry.client
  local session_id = run.session_id or (client and sessions[client.id])
  if not run.queued.id or not session_id then
    if entry.request_id then -- not in the queue yet: withdraw the request (its answer never comes)
      client_mod.call(client, "cancel_request", entry.request_id)
      run.removed, run.queued = true, nil
      land(run)
      schedule_render()
    end
    return true
  end
  client_mod.call(client, "request", "agent/unqueue", { sessionId = session_id, queueId = run.queued.id },
    function(err, result)
      if err or not (type(result) == "table" and result.removed) then
        vim.notify("harness9: the prompt was not removed (it started already)", vim.log.levels.WARN)
      end
    end)
  return true
end

--- Lists the session's queued prompts (`agent/queue`) to remove one (`vim.ui.select`).
function M.pick_queued()
  local client = client_mod.find(M.config)
  local session_id = client and sessions[client.id]
  if not session_id then
    return false, "harness9: no session yet"
  end
  client_mod.call(client, "request", "agent/queue", { sessionId = session_id }, function(err, result)
    local queued = not err and type(result) == "table" and result.queued or {}
    if #queued == 0 then
      vim.notify("harness9: nothing queued", vim.log.levels.INFO)
      return
    end
    vim.ui.select(queued, {
      prompt = "Remove a queued prompt",
      format_item = function(item)
        return string.format("%s. %s", tostring(item.position), (tostring(item.prompt):gsub("\n", " ⏎ ")))
      end,
    }, function(item)
      if item then
        client_mod.call(client, "request", "agent/unqueue", { sessionId = session_id, queueId = item.queueId },
          function() end)
      end
    end)
  end)
  return true
end

--- Cancels the run in progress; it ends with its run_finished event, and the next queued prompt
--- starts (remove queued prompts first to stop everything).
function M.cancel()
  local entry = current() or inflight[1]
  if not entry then
    return false, "harness9: no run in progress"
  end
  if not entry.client or (not entry.request_id and type(entry.run.run_id) ~= "string") then
    return false, "harness9: the daemon is still starting; cancel again in a moment"
  end
  entry.run.cancelling = true
  if entry.request_id then
    client_mod.call(entry.client, "cancel_request", entry.request_id)
  else -- a steer's next run: no request of ours to cancel
    client_mod.call(entry.client, "request", "agent/cancel", { runId = entry.run.run_id }, function() end)
  end
  schedule_render()
  return true
end

--- Offers the current session's checkpoints (`vim.ui.select`), confirms and restores the one
--- picked; the outcome is reported with `vim.notify` and noted in the run buffer.
function M.restore()
  if busy() then
    return false, "harness9: a run is in progress; restore once it ends (:Harness9Cancel stops it)"
  end
  local client = client_mod.find(M.config)
  local session_id = client and sessions[client.id]
  if not session_id then
    return false, "harness9: no session to restore yet (:Harness9Run starts one)"
  end
  restore.pick(client, session_id, function(message, checkpoint)
    view.note(state, string.format("↺ %s (back to %s)", message, restore.label(checkpoint)))
    schedule_render()
  end)
  return true
end

--- Opens the diff of `change` (a tool block with `path` and `diff`; default: the newest change
--- of the conversation) beside the file's text before it, in a new tab.
function M.diff(change)
  if not change then
    for i = #state.runs, 1, -1 do
      local blocks = view.shown_blocks(state.runs[i])
      for j = #blocks, 1, -1 do
        local block = blocks[j]
        change = change or (block.kind == "tool" and block.diff and block or nil)
      end
    end
  end
  if not change then
    return false, "harness9: no change with a diff in this conversation yet"
  end
  if not change.diff then
    return false, "harness9: this row changed no file through a file tool"
  end
  local client = client_mod.find(M.config)
  local root = client and client.config.root_dir or vim.fn.fnamemodify(M.config.root_dir or vim.fn.getcwd(), ":p")
  local ok, message = diff.open(change, (root:gsub("(.)/$", "%1")))
  return ok, message and ("harness9: " .. message) or nil
end

-- The files the newest run that edited files changed with write_file and edit_file, in the order
-- first changed, each with its changes: { { path, changes = { block, … } }, … }; and that run.
local function last_run_edits()
  for i = #state.runs, 1, -1 do
    local files, by_path = {}, {}
    for _, block in ipairs(view.shown_blocks(state.runs[i])) do
      if block.kind == "tool" and block.status == "ok" and type(block.path) == "string" and block.diff then
        if not by_path[block.path] then
          by_path[block.path] = { path = block.path, changes = {} }
          table.insert(files, by_path[block.path])
        end
        table.insert(by_path[block.path].changes, block)
      end
    end
    if #files > 0 then
      return files, state.runs[i]
    end
  end
  return nil
end

--- Opens each file the newest run that edited files changed, in a tab of its own beside its text
--- before the run, in diff mode (`do`, `:diffget` take a hunk back; `:write` keeps it).
function M.review()
  local files, run = last_run_edits()
  if not files then
    return false, "harness9: no run in this conversation edited a file yet"
  end
  local client = client_mod.find(M.config)
  local root = client and client.config.root_dir or vim.fn.fnamemodify(M.config.root_dir or vim.fn.getcwd(), ":p")
  run.review_before = run.review_before or {}
  local opened, problems = diff.review(files, (root:gsub("(.)/$", "%1")), run.review_before)
  if #problems > 0 then
    local message = "harness9: not shown: " .. table.concat(problems, "; ")
    if opened == 0 then
      return false, message
    end
    vim.notify(message, vim.log.levels.WARN)
  end
  return true
end

-- A prompt of the chat that could not be sent (`ok` false) goes back on the prompt line, so the
-- user can fix it and send it again, and `message` says why.
local function kept_unless_sent(text, ok, message)
  if ok then
    return
  end
  vim.notify(message, vim.log.levels.WARN)
  render()
  local buf = chat.find()
  if buf then
    chat.restore_prompt(buf, text)
  end
end

--- Opens the chat buffer `harness9://chat` (the session's conversation and a prompt line) and
--- puts the cursor on the prompt. Returns the buffer.
function M.chat()
  local buf = chat.get({
    submit = function(text)
      -- While a run goes, the prompt goes into it (a steer).
      local send = busy() and M.steer or M.run
      kept_unless_sent(text, send(text, { from_chat = true }))
    end,
    queue = function(text)
      kept_unless_sent(text, M.run(text, { from_chat = true, queue = true }))
    end,
    plan = function(text)
      kept_unless_sent(text, M.run(text, { from_chat = true, plan = true }))
    end,
    background = function(text)
      kept_unless_sent(text, tasks.run(text))
    end,
    unqueue = function(run)
      report_later(M.unqueue(run))
    end,
    interrupt = function()
      if #inflight > 0 then
        M.cancel()
      end
    end,
    diff = function(block)
      local ok, message = M.diff(block)
      if not ok then
        vim.notify(message, vim.log.levels.WARN)
      end
    end,
  })
  local wins = vim.fn.win_findbuf(buf)
  if #wins > 0 then
    vim.api.nvim_set_current_win(wins[1])
  else
    vim.cmd(M.config.split)
    vim.api.nvim_win_set_buf(0, buf)
    chat.window_options(0)
  end
  render()
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
  commands.refresh() -- the /names the prompt line completes (with a daemon running)
  return buf
end

--- Forgets the conversation: the next run starts a new session (`:Harness9Chat!`).
function M.new_session()
  if busy() then
    return false, "harness9: a run is in progress (:Harness9Cancel stops it)"
  end
  state.runs = {}
  state.session_id = nil
  sessions = {}
  render()
  return true
end

-- The runs still in flight but `done` (queued behind a command, say): kept when the chat
-- changes session.
local function runs_in_flight(done)
  local runs = {}
  for _, entry in ipairs(inflight) do
    if entry.run ~= done then
      table.insert(runs, entry.run)
    end
  end
  return runs
end

--- The chat continues in the session the daemon answered `run`, a `/clear` (a new, empty one)
--- or `/resume ID` (a stored one, shown with `agent/session`), with.
switch_session = function(client_id, run, result)
  local session_id = result.sessionId
  sessions[client_id] = session_id
  state.session_id = session_id
  if result.command == "clear" then
    state.runs = runs_in_flight(run)
    return schedule_render()
  end
  local client = vim.lsp.get_client_by_id(client_id)
  if not client then
    return
  end
  client_mod.call(client, "request", "agent/session", { sessionId = session_id }, function(err, stored)
    if err or type(stored) ~= "table" then
      return vim.notify("harness9: could not load session " .. session_id .. ": "
        .. tostring(err and err.message or "no answer"), vim.log.levels.WARN)
    end
    local pending = runs_in_flight(run)
    load_session(client, stored)
    vim.list_extend(state.runs, pending)
    schedule_render()
  end)
end

local function announce(choice, where)
  vim.notify(string.format("harness9: model %s (%s)", models.describe(choice), where), vim.log.levels.INFO)
end

--- Makes `choice` ({provider?, model, reasoningEffort?}) the model of the chat: of its session
--- (`agent/setModel`), or, before it has one, of the next run's new session.
function M.set_model(choice)
  chosen_model = choice
  local client = client_mod.find(M.config)
  local session_id = client and sessions[client.id]
  if not session_id then
    announce(choice, "for the next session")
    return true
  end
  local params = vim.tbl_extend("force", choice, { sessionId = session_id })
  client_mod.call(client, "request", "agent/setModel", params, function(err, result)
    if err or type(result) ~= "table" then
      return vim.notify("harness9: agent/setModel failed: " .. tostring(err and err.message or "no answer"),
        vim.log.levels.WARN)
    end
    announce({ provider = result.provider, model = result.model, reasoningEffort = result.reasoningEffort },
      "session " .. session_id)
  end)
  return true
end

--- The model picked for sessions still to start (nil: the daemon's default).
function M.chosen_model()
  return chosen_model
end

-- Runs fn(client) with the daemon's client; true, or false and the error for the user.
local function with_client(fn)
  local ok, err = pcall(client_mod.with_client, M.config, fn)
  if not ok then
    return false, "harness9: " .. tostring(err):gsub("^[^:]*:%d+: ", "")
  end
  return true
end

--- Lists the models (`agent/models`, the one in use marked) to pick the chat's model and, for a
--- model that takes one, its reasoning effort.
function M.pick_model()
  return with_client(function(client)
    models.pick(client, sessions[client.id], function(choice)
      M.set_model(choice)
    end)
  end)
end

-- The client and agent/commands params the command list comes from (the session's workspace).
local function commands_source()
  local client = client_mod.find(M.config)
  if not client or not client.initialized or not sessions_ui.supports(client, "agent/commands") then
    return nil
  end
  local params = { workspaceFolder = vim.uri_from_fname(client.config.root_dir or vim.fn.getcwd()) }
  params.sessionId = sessions[client.id]
  return client, params
end

--- Lists the daemon's slash commands (`vim.ui.select`); the one picked goes on the chat's prompt.
function M.pick_command()
  return with_client(function()
    commands.pick(function(command)
      local buf = M.chat()
      chat.set_prompt(buf, "/" .. command.name .. " ")
      vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
      vim.cmd("startinsert!")
    end)
  end)
end

--- Lists the stored sessions of the workspace (`vim.ui.select`) to resume one in the chat or
--- delete it (see sessions.lua).
function M.sessions()
  if busy() then
    return false, "harness9: a run is in progress; pick a session once it ends (:Harness9Cancel stops it)"
  end
  return with_client(function(client)
    sessions_ui.pick(client, {
      resume = function(session)
        load_session(client, session)
        sessions[client.id] = session.sessionId
        state.session_id = session.sessionId
        M.chat()
      end,
      deleted = function(session, deleted)
        if deleted and sessions[client.id] == session.sessionId then
          sessions[client.id] = nil
          state.runs = {}
          render()
        end
        vim.notify(string.format("harness9: %s %s", deleted and "deleted" or "no such session:",
          sessions_ui.label(session)), deleted and vim.log.levels.INFO or vim.log.levels.WARN)
      end,
    })
  end)
end

--- Opens the log buffer: every agent/progress notification and daemon log message.
function M.open_log()
  local buf = buffer.get("harness9://log", "harness9log")
  local header = "-- harness9 log; the daemon's stderr is in " .. require("vim.lsp.log").get_filename()
  local lines = { header }
  vim.list_extend(lines, log)
  buffer.set_lines(buf, lines)
  buffer.show(buf, M.config.split)
  return buf
end

local function report(ok, message)
  if not ok then
    vim.notify(message, vim.log.levels.WARN)
  end
end
report_later = report

--- Maps the keys of `M.config.keymaps`, leaving keys the user already mapped alone.
local function set_keymaps()
  if not M.config.keymaps then
    return
  end
  for name, modes in pairs(KEY_COMMANDS) do
    local lhs = M.config.keymaps[name]
    for mode, rhs in pairs(lhs and modes or {}) do
      local ours = vim.fn.maparg(lhs, mode, false, true).desc
      if vim.fn.maparg(lhs, mode) == "" or (ours and ours:match("^harness9: ")) then
        vim.keymap.set(mode, lhs, rhs, { desc = "harness9: " .. name })
      end
    end
  end
end

--- Configures the plugin (see `defaults`), registers the server and defines the commands.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  vim.lsp.handlers["agent/progress"] = on_progress
  client_mod.handlers = {
    ["window/logMessage"] = on_log_message,
    ["agent/requestApproval"] = approval.handler,
    ["$/cancelRequest"] = approval.on_cancel,
    ["harness9/diagnostics"] = editor.on_diagnostics,
    ["harness9/languageQuery"] = editor.on_language_query,
  }
  editor.track()
  context.track()
  client_mod.register(M.config, opts or {})
  client_mod.on_exit = on_exit
  if M.config.sync_buffers ~= false then
    client_mod.on_ready = require("harness9.attach").all
    require("harness9.attach").setup(function()
      return client_mod.find(M.config)
    end)
  end
  approval.ui = M.config.approval_ui
  approval.before_ask = render -- the view shows "waiting for approval" while the user decides
  vim.api.nvim_create_user_command("Harness9Run", function(args)
    local range = args.range > 0 and { args.line1, args.line2 } or nil
    report(M.run(args.args, { new_session = args.bang, range = range }))
  end, { nargs = "+", bang = true, range = true,
         desc = "Run the harness9 agent (! starts a new session; a range, % and %d attach context)" })
  vim.api.nvim_create_user_command("Harness9Steer", function(args)
    local range = args.range > 0 and { args.line1, args.line2 } or nil
    report(M.steer(args.args, { range = range }))
  end, { nargs = "+", range = true,
         desc = "Tell the running harness9 agent something: it reads it at its next step" })
  vim.api.nvim_create_user_command("Harness9Queue", function(args)
    local range = args.range > 0 and { args.line1, args.line2 } or nil
    report(M.run(args.args, { queue = true, range = range }))
  end, { nargs = "+", range = true, desc = "Queue a prompt: it runs after the harness9 run in progress" })
  vim.api.nvim_create_user_command("Harness9Unqueue", function()
    report(M.pick_queued())
  end, { desc = "Remove a queued harness9 prompt" })
  vim.api.nvim_create_user_command("Harness9Plan", function(args)
    local range = args.range > 0 and { args.line1, args.line2 } or nil
    report(M.run(args.args, { plan = true, new_session = args.bang, range = range }))
  end, { nargs = "+", bang = true, range = true,
         desc = "Ask the harness9 agent for a plan first: it investigates and plans, changing nothing" })
  tasks.configure({
    config = function()
      return M.config
    end,
    chosen_model = function()
      return chosen_model
    end,
    collect = context.collect,
  })
  vim.api.nvim_create_user_command("Harness9Background", function(args)
    local range = args.range > 0 and { args.line1, args.line2 } or nil
    report(tasks.run(args.args, { range = range }))
  end, { nargs = "+", range = true,
         desc = "Run a prompt as a harness9 background task, in a git worktree of its own (:Harness9Tasks)" })
  vim.api.nvim_create_user_command("Harness9Tasks", function()
    report(tasks.open())
  end, { desc = "List the harness9 background tasks: review, apply, discard" })
  vim.api.nvim_create_user_command("Harness9Go", function(args)
    report(M.run(args.args, { execute_plan = true }))
  end, { nargs = "*", desc = "Carry out the harness9 session's plan (after :Harness9Plan)" })
  vim.api.nvim_create_user_command("Harness9Cancel", function()
    report(M.cancel())
  end, { desc = "Cancel the harness9 run in progress" })
  vim.api.nvim_create_user_command("Harness9Restore", function()
    report(M.restore())
  end, { desc = "Restore the workspace to a checkpoint of the harness9 session" })
  vim.api.nvim_create_user_command("Harness9Chat", function(args)
    if args.bang then
      report(M.new_session())
    end
    M.chat()
    vim.cmd("startinsert!")
  end, { bang = true, desc = "Open the harness9 chat (! starts a new session)" })
  vim.api.nvim_create_user_command("Harness9Sessions", function()
    report(M.sessions())
  end, { desc = "Resume or delete a stored harness9 session" })
  vim.api.nvim_create_user_command("Harness9Diff", function()
    report(M.diff())
  end, { desc = "Show the newest change of the agent beside the text before it" })
  vim.api.nvim_create_user_command("Harness9Review", function()
    report(M.review())
  end, { desc = "Review the last run's edits: each file beside its text before the run, in diff mode" })
  commands.set_source(commands_source)
  vim.api.nvim_create_user_command("Harness9Model", function(args)
    if args.args == "" then
      return report(M.pick_model())
    end
    local choice, message = models.parse(args.args)
    if not choice then
      return report(false, "harness9: " .. message)
    end
    report(M.set_model(choice))
  end, { nargs = "?", complete = function(lead, line)
    if line:match("^%S+%s+%S+%s") then -- the second word: the reasoning effort
      return vim.tbl_filter(function(effort)
        return effort:sub(1, #lead) == lead
      end, { "low", "medium", "high" })
    end
    return models.complete(client_mod.find(M.config), lead)
  end, desc = "Choose the harness9 chat's model (provider:model [low|medium|high]; none: pick from a list)" })
  vim.api.nvim_create_user_command("Harness9Commands", function()
    report(M.pick_command())
  end, { desc = "List the harness9 slash commands; the one picked goes on the chat's prompt line" })
  vim.api.nvim_create_user_command("Harness9Log", function()
    M.open_log()
  end, { desc = "Show the harness9 notification log" })
  set_keymaps()
end

return M
