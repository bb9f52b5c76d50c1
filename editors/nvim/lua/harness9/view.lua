-- The run view as data: agent/progress events and agent/run replies fold into a state,
-- and the state renders to the lines of the run buffer. Pure Lua, no editor calls.
local layout = require("harness9.markdown_layout")
local words = require("harness9.summary") -- a row's words (its local `summary` is the arguments')
local dollars = words.dollars
local M = {}

local ICON = { running = "…", asking = "?", ok = "✓", failed = "✗" }

M.diff_limit = 8 -- lines of an edit's diff shown under its row in the run buffer; the rest is counted

-- Bytes of a running tool's live output kept for its tail.
local LIVE_KEEP = 4096

--- A new, empty view state; `opts.clock()` gives milliseconds (for a running tool's elapsed time).
function M.new(opts)
  opts = opts or {}
  return { runs = {}, output_lines = opts.output_lines or 3, clock = opts.clock or function()
    return 0
  end }
end

--- Starts a run entry for `prompt`; events are matched to it from its first event on
--- (`run_started`, or `queued` for a prompt queued behind the run in progress).
function M.start(state, prompt)
  local run = { prompt = prompt, blocks = {}, tools = {}, turns = {} }
  table.insert(state.runs, run)
  return run
end

-- Events of runs not known yet (a steer's next run, before the steer's answer), kept a moment.
local ORPHAN_RUNS, ORPHAN_EVENTS = 8, 2000

local function keep_orphan(state, ev)
  if type(ev.runId) ~= "string" then
    return
  end
  state.orphans = state.orphans or { order = {} }
  local kept = state.orphans[ev.runId]
  if not kept then
    kept = {}
    state.orphans[ev.runId] = kept
    table.insert(state.orphans.order, ev.runId)
    if #state.orphans.order > ORPHAN_RUNS then
      state.orphans[table.remove(state.orphans.order, 1)] = nil
    end
  end
  if #kept < ORPHAN_EVENTS then
    table.insert(kept, ev)
  end
end

--- The run that an event with this runId belongs to; a run's first event (`run_started`, or
--- `queued`) binds the oldest run still unbound (runs are asked in order).
local function find_run(state, ev)
  local run_id = ev.runId
  for i = #state.runs, 1, -1 do
    local run = state.runs[i]
    if run.run_id == run_id then
      return run
    end
  end
  for _, run in ipairs(state.runs) do
    if run.run_id == nil then
      run.run_id = run_id
      return run
    end
  end
  return nil
end

local function turn_block(run, turn)
  local block = run.turns[turn]
  if not block then
    block = { kind = "turn", turn = turn, text = "", thinking = nil }
    run.turns[turn] = block
    table.insert(run.blocks, block)
  end
  return block
end

local function summary(tool, args)
  if type(args) ~= "table" then
    return tostring(args)
  end
  local main = args.command or args.path or args.description -- a task: what it was asked to do
  if type(main) == "string" then
    return main
  end
  local ok, encoded = pcall(vim.fn.json_encode, args)
  return ok and encoded or tool
end

--- Where a command ran, from bash's `sandbox` (tool_started, tool_completed): "sandboxed (bwrap)",
--- "sandboxed (landlock)", "not sandboxed"; nil for a call without one (other tools).
function M.sandbox_mark(sandbox)
  if sandbox == "none" then
    return "not sandboxed"
  elseif type(sandbox) == "string" and sandbox ~= "" then
    return "sandboxed (" .. sandbox .. ")"
  end
  return nil
end

-- A call's row goes among its turn's rows in the order the model made the calls (its
-- assistant_message tells it), not in the order they start: a call asked about starts later than
-- one that was not, and a session shown again knows only the order of the calls.
local function insert_tool(run, block)
  if block.parent then -- a child agent's call: under its task's row, in the order it came
    local task = M.task_block(run, block.parent)
    table.insert(task.children, block)
    return
  end
  local order = run.call_order or {}
  local at = #run.blocks + 1
  for i, other in ipairs(order[block.id] and run.blocks or {}) do
    if other.kind == "tool" and other.turn == block.turn and (order[other.id] or 0) > order[block.id] then
      at = i
      break
    end
  end
  table.insert(run.blocks, at, block)
end

local function on_tool_started(run, ev)
  if ev.arguments == nil or ev.arguments == vim.NIL then -- a call that never started: from its message
    ev = vim.tbl_extend("force", ev, { arguments = (run.call_args or {})[ev.toolCallId] })
  end
  local block = run.tools[ev.toolCallId]
  if block then -- announced by its approval question first: allowed, it runs now
    if block.status == "asking" then
      block.status = "running"
    end
    block.summary = ev.arguments ~= nil and summary(ev.tool, ev.arguments) or block.summary
    block.args = type(ev.arguments) == "table" and ev.arguments or block.args
    block.tool_kind = ev.toolKind or block.tool_kind
    block.sandbox = ev.sandbox or block.sandbox
    return
  end
  local parent = type(ev.parentToolCallId) == "string" and ev.parentToolCallId or nil
  if not parent then -- a child's turns are its own, not the parent's
    turn_block(run, ev.turn)
  end
  -- `tool_kind`: what the tool does, as it declares (`toolKind`: read, edit, execute, other).
  block = { kind = "tool", tool = ev.tool, tool_kind = ev.toolKind, status = "running",
            summary = summary(ev.tool, ev.arguments),
            args = type(ev.arguments) == "table" and ev.arguments or nil, id = ev.toolCallId,
            sandbox = ev.sandbox, turn = ev.turn, parent = parent }
  run.tools[ev.toolCallId] = block
  insert_tool(run, block)
end

--- The tool's block, added from an approval event if new: a call asked about is first heard of by
--- its approval_requested (protocol 1.2: with its arguments; before, from its title "tool: summary"),
--- and its tool_started comes only once it is allowed; a refused call never starts.
local function approval_block(run, ev)
  local block = run.tools[ev.toolCallId]
  if not block then
    local title = type(ev.title) == "string" and ev.title or ev.tool
    local arguments = ev.arguments
    if arguments == nil or arguments == vim.NIL then
      arguments = (run.call_args or {})[ev.toolCallId] or (title:gsub("^" .. vim.pesc(ev.tool) .. ": ", ""))
    end
    on_tool_started(run, { turn = ev.turn, toolCallId = ev.toolCallId, tool = ev.tool, toolKind = ev.toolKind,
                           arguments = arguments, parentToolCallId = ev.parentToolCallId })
    block = run.tools[ev.toolCallId]
  end
  return block
end

-- How a decision reads after the tool line: by the user, an allow_session, a rule or the mode.
local function decision_note(ev)
  local decision, by = ev.decision, ev.by
  if by == "user" then
    return ({ allow_once = "allowed once", allow_session = "allowed for the session", reject = "rejected" })[decision]
      or tostring(decision)
  end
  local verb = (decision == "deny" or decision == "reject") and "denied" or "allowed"
  if by == "rule" and ev.rule then
    return string.format("%s by rule %s", verb, ev.rule)
  end
  if by == "session" then
    return verb .. " for the session"
  end
  return string.format("%s by %s", verb, by == "mode" and "the mode" or tostring(by))
end

local function on_tool_ended(run, ev)
  local block = run.tools[ev.toolCallId]
  if not block then
    on_tool_started(run, ev)
    block = run.tools[ev.toolCallId]
  end
  block.status = ev.kind == "tool_completed" and "ok" or "failed"
  block.reason, block.ms, block.output = ev.reason, ev.durationMs, ev.output
  -- Why a refused call was refused (1.3 `message`), on one line: a buffer line holds no newline.
  local message = block.status == "failed" and type(ev.message) == "string" and vim.trim(ev.message:gsub("%s+", " "))
  block.message = message and message ~= "" and message or nil
  block.changed, block.shared = ev.changedFiles, ev.changedFilesSharedWith
  block.bytes, block.live = ev.bytes, nil
  block.tool_kind = ev.toolKind or block.tool_kind
  -- A task's: the agent its child ran as, and what the child cost (`costUsd`).
  block.agent, block.cost = ev.agent or block.agent, tonumber(ev.costUsd) or block.cost
  block.sandbox = ev.sandbox or block.sandbox -- a rerun outside the sandbox says "none"
  -- How a command ended (protocol 1.2): its exit code, or the signal that killed it.
  block.exit_code, block.signal = ev.exitCode, ev.signal
  -- A file tool's change (protocol 1.1): what the chat shows and :Harness9Diff opens.
  block.path, block.diff, block.diff_truncated = ev.path, ev.diff, ev.diffTruncated
  block.added, block.removed, block.via = ev.added, ev.removed, ev.via
  -- The problems an edit brought, as the editor's language servers report them (none: `{}`;
  -- nil: not asked).
  block.problems = type(ev.diagnostics) == "table" and ev.diagnostics or nil
end

--- The lines under an edit's row listing the problems it brought: "✗ main.py:3 error: undefined
--- name 'x' (ruff F821)" each (at most `limit`), or "✓ no new problems"; {} when not asked.
--- Each is { text, severity } (severity nil for the "no new problems" line).
function M.problem_lines(block, indent, limit)
  local problems = block.problems
  if type(problems) ~= "table" then
    return {}
  end
  if #problems == 0 then
    return { { indent .. "✓ no new problems" } }
  end
  local out = {}
  for i, p in ipairs(problems) do
    if i > (limit or 5) then
      table.insert(out, { string.format("%s… and %d more new problems", indent, #problems - i + 1), "warning" })
      break
    end
    local origin = table.concat(vim.tbl_filter(function(part)
      return type(part) == "string" and part ~= ""
    end, { p.source, p.code ~= nil and tostring(p.code) or nil }), " ")
    local severity = type(p.severity) == "string" and p.severity or "error"
    local message = tostring(p.message or ""):gsub("\n.*", "")
    table.insert(out, { string.format("%s%s %s:%s %s: %s%s", indent, severity == "error" and "✗" or "!",
      tostring(p.path), tostring(p.line), severity, message, origin ~= "" and (" (" .. origin .. ")") or ""),
      severity })
  end
  return out
end

local function on_tool_output(run, ev, state)
  local block = run.tools[ev.toolCallId]
  if not block or block.status ~= "running" then
    return
  end
  local live = (block.live or "") .. (type(ev.text) == "string" and ev.text or "")
  if #live > LIVE_KEEP then
    live = live:sub(-LIVE_KEEP)
  end
  block.live = live
  block.live_truncated = block.live_truncated or ev.truncated == true
  block.started_at = block.started_at or state.clock()
end

--- True when allowing the question runs the command outside the OS sandbox: bash's `escalate`,
--- or the offer to run again outside a command the sandbox stopped (the protocol's reasons).
function M.leaves_sandbox(arguments, reason)
  if type(arguments) == "table" and arguments.escalate == true then
    return true
  end
  return type(reason) == "string" and (reason:find("^asks to run outside the OS sandbox") ~= nil
    or reason:find("^was stopped by the OS sandbox") ~= nil)
end

--- A question: the call waits, with why it was asked. A call already running in the sandbox is
--- asked about only to run it again outside (the sandbox stopped it): it keeps its row.
local function on_approval_requested(run, ev)
  local block = approval_block(run, ev)
  if block.status == "running" and block.sandbox then
    block.after_start, block.live, block.started_at = true, nil, nil
  end
  block.status, block.approval = "asking", nil
  block.asked_reason = type(ev.reason) == "string" and ev.reason or nil
  block.outside = M.leaves_sandbox(ev.arguments, ev.reason)
end

local function on_approval_resolved(run, ev, state)
  local block = approval_block(run, ev)
  if block.status == "asking" then
    block.status = "running"
    if block.after_start and state then -- it runs again (or its first result comes) from now
      block.started_at = state.clock()
    end
  end
  block.approval = decision_note(ev)
end

-- Where a delivered steer goes: before the block of the turn that first saw it, else at the end.
local function place_steer(run, block)
  for i, b in ipairs(run.blocks) do
    if b.kind == "turn" and b.turn == block.turn then
      table.insert(run.blocks, i, block)
      return
    end
  end
  table.insert(run.blocks, block)
end

--- A message sent into the running `run` (agent/steer): shown on its way until it lands.
function M.steer_sent(run, text)
  table.insert(run.blocks, { kind = "steer", text = text, pending = true })
end

-- The pending steer block of `text` (the first), taken out of the run's blocks.
local function take_pending(run, text)
  for i, b in ipairs(run.blocks) do
    if b.kind == "steer" and b.pending and b.text == text then
      return table.remove(run.blocks, i)
    end
  end
  return nil
end

local function on_steered(run, ev)
  local text = type(ev.text) == "string" and ev.text or ""
  local block = take_pending(run, text) or { kind = "steer", text = text }
  block.pending, block.turn = nil, tonumber(ev.turn)
  place_steer(run, block)
end

--- The agent/steer answer: `run` (it landed; its `steered` normally came first) or `next` (the
--- run ended first: the message runs as the session's next prompt, `next_run`).
function M.steer_answered(run, text, delivered)
  local block = take_pending(run, text)
  if block and delivered == "run" then
    block.pending = nil
    table.insert(run.blocks, block)
  end
end

--- A run the daemon started from a steer answered `next`: bound to `run_id` at once, with the
--- events that came for it before.
function M.start_bound(state, prompt, run_id)
  local run = M.start(state, prompt)
  run.run_id, run.queued = run_id, run.queued or {}
  local kept = state.orphans and state.orphans[run_id] or {}
  if state.orphans then
    state.orphans[run_id] = nil
  end
  for _, ev in ipairs(kept) do
    M.apply(state, ev)
  end
  return run
end

--- The plan of a `plan` event or of a stored session ({items, note?}); nil when it has none.
function M.plan_of(value)
  if type(value) ~= "table" or type(value.items) ~= "table" then
    return nil
  end
  local items = {}
  for _, item in ipairs(value.items) do
    if type(item) == "table" and type(item.text) == "string" then
      table.insert(items, { text = item.text, status = type(item.status) == "string" and item.status or "pending" })
    end
  end
  local note = type(value.note) == "string" and value.note ~= "" and value.note or nil
  return { items = items, note = note }
end

local PLAN_MARK = { done = "[x]", in_progress = "[>]", pending = "[ ]" }

--- The lines of a plan as a checklist: a head, then "[x] done", "[>] in progress", "[ ] pending".
function M.plan_lines(plan, indent)
  indent = indent or ""
  local done = 0
  for _, item in ipairs(plan.items) do
    done = done + (item.status == "done" and 1 or 0)
  end
  local lines = { string.format("%sPlan · %d of %d done", indent, done, #plan.items) }
  for _, item in ipairs(plan.items) do
    table.insert(lines, string.format("%s%s %s", indent, PLAN_MARK[item.status] or "[ ]", item.text))
  end
  if plan.note then
    table.insert(lines, indent .. "  " .. plan.note)
  end
  return lines
end

--- True for a call that only records the agent's reasoning (kind `think`: update_plan).
function M.is_plan_call(block)
  if block.tool == "task" then -- a child agent's call: a think tool too, but it has rows of its own
    return false
  end
  return block.tool_kind == "think" or (block.tool_kind == nil and block.tool == "update_plan")
end

--- The run whose plan :Harness9Go carries out: the last run, when it only planned, ended well
--- and has a plan.
function M.go_run(state)
  for i = #state.runs, 1, -1 do
    local run = state.runs[i]
    if not run.removed and not run.note then
      local ok = run.plan_mode and (run.status == "completed" or run.status == "max_turns") and run.plan
        and #run.plan.items > 0
      return ok and run or nil
    end
  end
  return nil
end

-- A command's own answer (a `/name` run that acts without the model) comes as text outside any
-- turn: it goes under the command's line.
local function command_text(run, ev)
  local turn = tonumber(ev.turn)
  if run.command_block and (turn == nil or turn == 0) then
    return run.command_block
  end
  return nil
end

local handlers = {
  command = function(run, ev)
    run.command_block = { kind = "command", name = tostring(ev.name or ""), text = "",
                          arguments = type(ev.arguments) == "string" and ev.arguments or "" }
    table.insert(run.blocks, run.command_block)
  end,
  queued = function(run, ev)
    run.queued = { id = ev.queueId, position = tonumber(ev.position) }
  end,
  dequeued = function(run, ev)
    run.queued = nil
    if ev.reason ~= "started" then
      run.removed = true -- taken out of the queue (or cancelled there): it never ran
    end
  end,
  steered = on_steered,
  plan = function(run, ev)
    run.plan = M.plan_of(ev) or run.plan
  end,
  run_started = function(run, ev)
    run.provider, run.model, run.session_id = ev.provider, ev.model, ev.sessionId
  end,
  turn_started = function(run, ev)
    turn_block(run, ev.turn)
  end,
  thinking = function(run, ev)
    turn_block(run, ev.turn).thinking = ev.text
  end,
  text_delta = function(run, ev)
    local block = command_text(run, ev) or turn_block(run, ev.turn)
    block.text = block.text .. (ev.text or "")
  end,
  assistant_message = function(run, ev)
    local own = command_text(run, ev)
    if own then
      own.text = ev.text or own.text
      return
    end
    turn_block(run, ev.turn).text = ev.text or ""
    -- The calls' arguments, for the lines of calls that never start (refused before they ran).
    run.call_args, run.call_order = run.call_args or {}, run.call_order or {}
    for i, call in ipairs(type(ev.toolCalls) == "table" and ev.toolCalls or {}) do
      if type(call) == "table" and call.id ~= nil then
        run.call_args[call.id], run.call_order[call.id] = call.arguments, i
      end
    end
  end,
  tool_started = on_tool_started,
  tool_completed = on_tool_ended,
  tool_failed = on_tool_ended,
  approval_requested = on_approval_requested,
  approval_resolved = on_approval_resolved,
  tool_output = on_tool_output,
  usage = function(run, ev)
    run.usage = { inputTokens = ev.totalInputTokens, outputTokens = ev.totalOutputTokens }
    run.cost = tonumber(ev.costUsd) or run.cost -- the run's cost so far, when the price is known
    if tonumber(ev.contextTokens) and tonumber(ev.contextWindow) then
      run.context = { tokens = tonumber(ev.contextTokens), window = tonumber(ev.contextWindow) }
    end
  end,
  context_compacted = function(run, ev)
    run.compacted = { before = ev.beforeTokens, after = ev.afterTokens, method = ev.method }
  end,
  run_finished = function(run, ev)
    run.status, run.turn_count, run.tool_count = ev.status, ev.turns, ev.toolCalls
    run.usage = ev.usage or run.usage
    if type(ev.error) == "table" then
      run.error = ev.error.message or ev.error.kind
    elseif ev.error ~= nil then
      run.error = tostring(ev.error)
    end
  end,
}

local function content_text(content)
  if type(content) == "string" then
    return content
  end
  local parts = {}
  for _, part in ipairs(type(content) == "table" and content or {}) do
    if type(part) == "table" and type(part.text) == "string" then
      table.insert(parts, part.text)
    end
  end
  return table.concat(parts, "\n")
end

local function decoded(arguments)
  if type(arguments) == "string" then
    local ok, value = pcall(vim.fn.json_decode, arguments)
    return ok and value or arguments
  end
  return arguments
end

-- `tool_failed` reasons by which a call never started: someone said no.
local REFUSED = { rejected = true, denied = true }

--- The live events a stored call's `outcome` stands for (this daemon keeps one per call): the
--- question to the user and its answer (or a rule's; `asked`: a question the run ended before an
--- answer), the start unless it never ran (refused, or `started = false`), and the end with all it
--- told but the output, which the call's result message brings.
local function outcome_events(call, turn)
  local outcome = call.outcome
  local base = { turn = turn, toolCallId = call.id, tool = call.name, toolKind = call.kind,
                 arguments = decoded(call.arguments) }
  local function event(kind, fields)
    return vim.tbl_extend("force", base, fields or {}, { kind = kind })
  end
  local events = {}
  local approval = type(outcome.approval) == "table" and outcome.approval or nil
  if (approval and approval.by == "user") or outcome.asked == true then
    table.insert(events, event("approval_requested"))
  end
  if approval then
    table.insert(events, event("approval_resolved", { decision = approval.decision, by = approval.by,
                                                       rule = approval.rule }))
  end
  local status = type(outcome.status) == "string" and outcome.status or "completed"
  if not REFUSED[status] and outcome.started ~= false then
    table.insert(events, event("tool_started", { sandbox = outcome.sandbox }))
  end
  local told = vim.tbl_extend("force", {}, outcome, { reason = status ~= "completed" and status or nil })
  told.status, told.approval, told.turn, told.started, told.asked = nil, nil, nil, nil, nil
  table.insert(events, event(status == "completed" and "tool_completed" or "tool_failed", told))
  return events
end

--- A stored call's row: from its `outcome` through the live handlers, so it reads as it did live;
--- a call stored without one (an older session) is shown done, as nothing more is known.
local function stored_call(run, turn, call, state, parent)
  if type(call.outcome) == "table" then
    for _, ev in ipairs(outcome_events(call, turn)) do
      ev.parentToolCallId = parent
      handlers[ev.kind](run, ev, state)
    end
    if type(call.outcome.transcript) == "table" then
      M.stored_child(run, call.id, call.outcome.transcript, state)
    end
    return
  end
  on_tool_started(run, { turn = turn, toolCallId = call.id, tool = call.name, toolKind = call.kind,
                         arguments = decoded(call.arguments), parentToolCallId = parent })
  run.tools[call.id].status = "ok"
end

--- A task's stored child conversation (its outcome's `transcript`) as rows under its task's
--- row, as they were live; the child's call ids made unique as live (`<task id>/<id>`).
function M.stored_child(run, task_id, transcript, state)
  local task = M.task_block(run, task_id)
  local function own(id)
    id = tostring(id)
    return id:find("/", 1, true) and id or (task_id .. "/" .. id)
  end
  for _, msg in ipairs(transcript) do
    if type(msg) == "table" and msg.toolCallId ~= nil and msg.toolCallId ~= vim.NIL then
      local block = run.tools[own(msg.toolCallId)]
      if block then
        block.output = content_text(msg.content)
      end
    elseif type(msg) == "table" and msg.role == "assistant" then
      local text = vim.trim(content_text(msg.content))
      if text ~= "" then
        table.insert(task.children, { kind = "text", text = text })
      end
      for _, call in ipairs(type(msg.toolCalls) == "table" and msg.toolCalls or {}) do
        stored_call(run, 0, vim.tbl_extend("force", call, { id = own(call.id) }), state, task_id)
      end
    end
  end
end

-- A stored run as the view shows a finished one; `info` is its entry in the session's `runs`.
local function stored_run(state, session, info, prompt)
  local run = M.start(state, info.prompt or prompt)
  run.run_id = false -- live events never bind to it
  run.session_id, run.done = session.sessionId, true
  run.status, run.turn_count, run.tool_count = info.status, info.turns, info.toolCalls
  return run
end

--- Replaces the runs of `state` with a stored session (the `agent/session` result): each user
--- message starts a run (its prompt from `runs`), assistant messages are its turns and tool calls.
function M.load_session(state, session)
  state.runs = {}
  local infos = type(session.runs) == "table" and session.runs or {}
  local run, turn = nil, 0
  local function on_record(text, from)
    for i = from, #infos do
      if infos[i].prompt == text then
        return true
      end
    end
    return false
  end
  for _, msg in ipairs(type(session.messages) == "table" and session.messages or {}) do
    -- A tool result carries its call's id (whatever its role: this daemon sends "user").
    local result = msg.toolCallId ~= nil and msg.toolCallId ~= vim.NIL
    local text = msg.role == "user" and content_text(msg.content):gsub("\n\nAttached from the editor %(.*$", "") or nil
    if result then
      if run and run.tools[msg.toolCallId] then
        run.tools[msg.toolCallId].output = content_text(msg.content)
      end
    elseif msg.role == "user" and run and #infos > 0 and not on_record(text, #state.runs + 1) then
      -- A user message no run record names, within a run, is a message sent into it (a steer).
      table.insert(run.blocks, { kind = "steer", text = text, turn = turn + 1 })
    elseif msg.role == "user" then
      run, turn = stored_run(state, session, infos[#state.runs + 1] or {}, content_text(msg.content)), 0
    elseif msg.role == "assistant" and run then
      turn = turn + 1
      turn_block(run, turn).text = content_text(msg.content)
      for _, call in ipairs(type(msg.toolCalls) == "table" and msg.toolCalls or {}) do
        stored_call(run, turn, call, state)
      end
    end
  end
  -- The session's plan (the latest) goes on the run that last updated it, else on the last run.
  local plan = M.plan_of(session.plan)
  if plan and #state.runs > 0 then
    local at = state.runs[#state.runs]
    for i = #state.runs, 1, -1 do
      local planned = false
      for _, block in ipairs(state.runs[i].blocks) do
        planned = planned or (block.kind == "tool" and M.is_plan_call(block))
      end
      if planned then
        at = state.runs[i]
        break
      end
    end
    at.plan = plan
  end
end

--- True for a run of a slash command the daemon carried out without the model (no turns).
function M.acted_alone(run)
  return run.command_block ~= nil and tonumber(run.turn_count) == 0
end

--- The line of a slash command the daemon ran: `  command /resume s-1a2b` (shown muted).
function M.command_line(block)
  local args = block.arguments ~= "" and (" " .. (block.arguments:gsub("\n", " ⏎ "))) or ""
  return "  command /" .. block.name .. args
end

--- Adds a line of its own after the runs (e.g. that a checkpoint was restored).
function M.note(state, text)
  -- run_id false: events never bind to a note (find_run binds only to nil).
  table.insert(state.runs, { note = text, run_id = false })
end

--- The row of task call `id` (a child agent's), with the list of its child's rows (`children`:
--- tool blocks and `{ kind = "text" }` ones); made if its start was not heard of.
function M.task_block(run, id)
  if not run.tools[id] then
    local turn = 1
    for _, block in ipairs(run.blocks) do
      turn = block.kind == "turn" and block.turn or turn
    end
    on_tool_started(run, { toolCallId = id, tool = "task", toolKind = "think", turn = turn })
  end
  local task = run.tools[id]
  task.children = task.children or {}
  return task
end

M.agent_of = words.agent_of -- the name of the agent a task ran

-- A child's text (and thinking) goes under its task's row, never into the parent's answer.
local function child_text(run, ev)
  local task = M.task_block(run, ev.parentToolCallId)
  task.agent = ev.agent or task.agent
  local text = type(ev.text) == "string" and vim.trim(ev.text) or ""
  if ev.kind == "assistant_message" and text ~= "" then
    table.insert(task.children, { kind = "text", text = text })
  end
  -- The child's calls' arguments, for the rows of its calls that never start.
  run.call_args = run.call_args or {}
  for _, call in ipairs(ev.kind == "assistant_message" and type(ev.toolCalls) == "table" and ev.toolCalls or {}) do
    if type(call) == "table" and call.id ~= nil then
      run.call_args[call.id] = call.arguments
    end
  end
end

local CHILD_TEXT = { assistant_message = true, thinking = true, text_delta = true }

--- Folds one agent/progress notification into the state; returns the run it touched.
function M.apply(state, ev)
  local run = find_run(state, ev)
  if not run then
    keep_orphan(state, ev)
    return nil
  end
  local handler = handlers[ev.kind]
  if type(ev.parentToolCallId) == "string" then -- a child agent's event
    M.task_block(run, ev.parentToolCallId).agent = ev.agent or run.tools[ev.parentToolCallId].agent
    handler = CHILD_TEXT[ev.kind] and child_text or handler
  end
  if run and handler then
    run.session_id = run.session_id or ev.sessionId
    handler(run, ev, state)
  end
  if run and ev.kind == "tool_started" then
    run.tools[ev.toolCallId].started_at = state.clock()
  end
  return run
end

--- Records the agent/run reply (a result, or a JSON-RPC error) on `run`.
function M.finish(run, err, result)
  run.done = true
  if result then
    run.run_id, run.session_id = run.run_id or result.runId, result.sessionId
    run.status = run.status or result.status
    run.turn_count, run.tool_count = result.turns, result.toolCalls
    run.usage = result.usage or run.usage
    run.command = type(result.command) == "string" and result.command or nil
    -- A command's answer as the result's text, when no event carried it.
    local own = run.command_block
    if own and own.text == "" and type(result.text) == "string" then
      own.text = result.text
    end
  elseif err and err.code ~= -32800 and run.status == nil then
    run.status = "error"
    run.error = err.message
    if type(err.data) == "table" and err.data.kind then
      run.error = string.format("%s (%s)", err.message, err.data.kind)
    end
  end
  run.run_id = run.run_id or false -- answered: later runs' events never bind to it
end

local function split(text)
  return require("harness9.text_lines").split(text)
end

local function add_all(lines, items)
  for _, item in ipairs(items) do
    table.insert(lines, item)
  end
end

local function plural(n, noun)
  return string.format("%d %s%s", n, noun, n == 1 and "" or "s")
end

local CHANGE_MARK = { added = "+", modified = "~", deleted = "-" }

--- The lines listing what a bash call changed in the workspace (its `changedFiles`).
local function changed_lines(block)
  local lines = {}
  if type(block.changed) ~= "table" then
    return lines
  end
  for _, file in ipairs(block.changed) do
    if type(file) == "table" and file.path then
      table.insert(lines, string.format("    %s %s", CHANGE_MARK[file.status] or "?", file.path))
    end
  end
  -- Changes of calls that ran at the same time cannot be told apart from this call's.
  if type(block.shared) == "table" and #block.shared > 0 and #lines > 0 then
    table.insert(lines, string.format("    (may include changes of %s that ran at the same time)",
      plural(#block.shared, "other call")))
  end
  return lines
end

--- The lines shown under an edit's row for its unified diff (`block.diff`): the hunks without the
--- file header (the row names the file), at most `limit`, then one line counting the rest, which
--- ends with `more` (e.g. the key that opens it all). Each is { text, kind }, kind "add",
--- "delete", "hunk", "more" or nil (a context line). Shared by the run buffer and the chat.
function M.diff_lines(block, indent, limit, more)
  local out = {}
  if type(block.diff) ~= "string" then
    return out
  end
  local lines = {}
  for _, line in ipairs(split((block.diff:gsub("\n+$", "")))) do
    if line ~= "" and not (line:match("^%-%-%- ") or line:match("^%+%+%+ ")) then
      table.insert(lines, line)
    end
  end
  for i, line in ipairs(lines) do
    if i > limit then
      table.insert(out, { string.format("%s┆ … %d more lines%s", indent, #lines - limit, more or ""), "more" })
      break
    end
    local kind = line:match("^%+") and "add" or line:match("^%-") and "delete" or line:match("^@@") and "hunk" or nil
    table.insert(out, { indent .. "┆ " .. line, kind })
  end
  return out
end

local function tool_lines(block, max_output)
  local failed = words.command_failed(block) -- it ran, but exited non-zero (or was killed)
  local name = block.tool == "task" and string.format("task (%s agent)", M.agent_of(block)) or block.tool
  local head = string.format("  %s %s: %s", ICON[failed and "failed" or block.status], name,
    (block.summary:gsub("\n", " ⏎ ")))
  local mark = M.sandbox_mark(block.sandbox)
  mark = mark and (" · " .. mark) or ""
  if block.status == "asking" then
    local why = block.asked_reason and (": it " .. block.asked_reason) or ""
    return { head .. "  (waiting for approval" .. why .. ")" .. mark }
  end
  if block.status == "running" then
    return { (block.approval and head .. "  (" .. block.approval .. ")" or head) .. mark }
  end
  -- A refusal's message says why, once, in place of the approval note: "(rejected: not now; 3 ms)".
  local plain = words.refused_plainly(block)
  local why = plain and block.message and (block.reason .. ": " .. block.message .. "; ") or ""
  local parts = { why == "" and block.approval or nil }
  -- A rejected or denied call's reason is already in its approval note.
  if block.reason and why == "" and not (block.approval and (block.reason == "rejected" or block.reason == "denied")) then
    table.insert(parts, block.reason)
  end
  if failed then
    table.insert(parts, words.exit_status(block))
  end
  table.insert(parts, string.format("%d ms", math.floor((tonumber(block.ms) or 0) + 0.5)))
  table.insert(parts, dollars(block.cost)) -- a task's: what its child cost
  local lines = { head .. "  (" .. why .. table.concat(parts, ", ") .. ")" .. mark }
  for _, line in ipairs(M.diff_lines(block, "    ", M.diff_limit)) do
    table.insert(lines, line[1])
  end
  add_all(lines, changed_lines(block))
  for _, problem in ipairs(M.problem_lines(block, "    ")) do
    table.insert(lines, problem[1])
  end
  -- A plain refusal's text for the model would only say again what its row says.
  local text = plain and "" or (block.output or ""):gsub("\n+$", "")
  if block.status == "ok" and M.child_said(block) then
    text = "" -- a task's result is its child's last message, shown under it already
  end
  local out = text == "" and {} or split(text)
  for i = 1, math.min(#out, max_output) do
    table.insert(lines, "    │ " .. out[i])
  end
  if #out > max_output and max_output > 0 then
    table.insert(lines, string.format("    │ … %d more lines", #out - max_output))
  end
  return lines
end

--- The run's blocks in the order shown, a task's child's calls after its task's row: what a
--- search for the run's changes goes through (a child agent edits files too).
function M.shown_blocks(run)
  local out = {}
  local function add(blocks)
    for _, block in ipairs(blocks or {}) do
      table.insert(out, block)
      add(block.children)
    end
  end
  add(run.blocks)
  return out
end

--- True when a task's child said something (its text rows).
function M.child_said(block)
  for _, child in ipairs(block.children or {}) do
    if child.kind == "text" then
      return true
    end
  end
  return false
end

-- A task's child rows, indented under it: its calls and its text.
local function child_lines(block, max_output)
  local lines = {}
  for _, child in ipairs(block.children or {}) do
    if child.kind == "text" then
      for _, line in ipairs(split(child.text)) do
        table.insert(lines, "    " .. line)
      end
    else
      for _, line in ipairs(tool_lines(child, max_output)) do
        table.insert(lines, "    " .. line)
      end
      add_all(lines, child_lines(child, max_output))
    end
  end
  return lines
end

local function footer(run)
  if not run.status then
    return run.cancelling and "■ cancelling…" or nil
  end
  local parts = { "■ " .. run.status }
  if run.error then
    parts[1] = parts[1] .. ": " .. run.error
  end
  if M.acted_alone(run) then
    return parts[1]
  end
  if run.turn_count then
    table.insert(parts, plural(run.turn_count, "turn"))
  end
  if run.tool_count then
    table.insert(parts, plural(run.tool_count, "tool call"))
  end
  if run.usage and run.usage.inputTokens then
    table.insert(parts, string.format("%d in / %d out tokens", run.usage.inputTokens, run.usage.outputTokens or 0))
  end
  table.insert(parts, dollars(run.cost))
  return table.concat(parts, " · ")
end

local function run_lines(run, max_output)
  if run.note then
    return { run.note }
  end
  local lines = {}
  for i, line in ipairs(split(run.prompt)) do
    table.insert(lines, (i == 1 and "» " or "  ") .. line)
  end
  for _, label in ipairs(run.attached or {}) do
    table.insert(lines, "  @ " .. label)
  end
  if run.queued then
    table.insert(lines, "  (queued)")
  end
  if run.plan then
    add_all(lines, M.plan_lines(run.plan, "  "))
  end
  for _, block in ipairs(run.blocks) do
    if block.kind == "steer" then
      table.insert(lines, (block.pending and "  ↪ (on its way) " or "  ↪ ") .. (block.text:gsub("\n", " ⏎ ")))
    elseif block.kind == "tool" and M.is_plan_call(block) and block.status ~= "failed" then
      table.insert(lines, "  (updated the plan)")
    elseif block.kind == "command" then
      table.insert(lines, M.command_line(block))
      if block.text ~= "" then
        add_all(lines, split((block.text:gsub("\n+$", ""))))
      end
    elseif block.kind == "turn" then
      table.insert(lines, string.format("── turn %d", block.turn))
      if block.thinking then
        for _, line in ipairs(split(block.thinking)) do
          table.insert(lines, "  ~ " .. line)
        end
      end
      if block.text ~= "" then
        add_all(lines, layout.cached(block.text).lines) -- its tables in columns
      end
    else
      add_all(lines, tool_lines(block, max_output))
      add_all(lines, child_lines(block, max_output))
    end
  end
  local last = footer(run)
  if last then
    table.insert(lines, last)
  end
  return lines
end

--- The buffer's lines for the whole state, runs separated by a blank line.
function M.lines(state)
  local lines = {}
  local first = true
  for _, run in ipairs(state.runs) do
    if not run.removed then
      if not first then
        table.insert(lines, "")
      end
      first = false
      add_all(lines, run_lines(run, state.output_lines))
    end
  end
  return lines
end

return M
