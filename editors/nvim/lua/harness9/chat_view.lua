-- The chat buffer's text from the view state (view.lua): the session's conversation, each
-- prompt under "You", the agent's text and tool rows (English summaries, summary.lua) under
-- "harness9", a running bash call's live output, edits' diffs, and the context fill.
-- Returns lines, highlights and which tool each row shows. Pure Lua.
local layout = require("harness9.markdown_layout")
local markdown = require("harness9.markdown")
local summary = require("harness9.summary")
local view = require("harness9.view")

local M = {}

M.diff_lines = view.diff_limit -- diff lines shown under an edit; the rest is one line (`d` opens it all)
M.live_lines = 5 -- lines of a running tool's live output

local ICON = { running = "…", asking = "?", ok = "✓", failed = "✗" }

local function split(text)
  return require("harness9.text_lines").split(text)
end

-- Collects lines and highlights: add(line, group?) highlights the whole line; mark(hl) adds a
-- highlight. The builder counts its lines and highlights itself (`size`, `marks`) and nothing
-- here reads `#out.lines`: Neovim 0.7's LuaJIT (2.1.0-beta3), once the render is compiled, was
-- seen to give the length from before a child's rows were added, leaving them unindented.
local function builder()
  local out = { lines = {}, highlights = {}, rows = {}, size = 0, marks = 0 }
  function out.mark(hl)
    out.marks = out.marks + 1
    out.highlights[out.marks] = hl
  end
  function out.add(line, group, from, to)
    out.size = out.size + 1
    out.lines[out.size] = line
    if group then
      out.mark({ out.size - 1, group, from or 0, to or #line })
    end
  end
  return out
end

local function tool_meta(block, state)
  local parts = {}
  -- A plain refusal says why in its summary ("rejected: not now"): its note would repeat it.
  if block.approval and not summary.refused_plainly(block) then
    table.insert(parts, block.approval)
  end
  if block.status == "running" and block.started_at then
    table.insert(parts, summary.duration(state.clock() - block.started_at))
  elseif block.status == "asking" then
    table.insert(parts, "waiting for approval" .. (block.asked_reason and (": it " .. block.asked_reason) or ""))
  elseif block.ms then
    table.insert(parts, summary.duration(block.ms))
  end
  local mark = view.sandbox_mark(block.sandbox) -- where a command ran
  if mark then
    table.insert(parts, mark)
  end
  return parts
end

local ROW_GROUP = { running = "harness9ChatRunning", asking = "harness9ChatAsking", ok = "harness9ChatOk",
                    failed = "harness9ChatFailed" }

local DIFF_GROUP = { add = "DiffAdd", delete = "DiffDelete", hunk = "harness9ChatDim" }

local function add_diff(out, block)
  for _, line in ipairs(view.diff_lines(block, "    ", M.diff_lines, " (d: diff)")) do
    if line[2] == "more" then
      out.add(line[1], "harness9ChatDim")
    else
      out.add(line[1], DIFF_GROUP[line[2]], 8) -- after "    ┆ "
    end
  end
end

-- Whether highlight `hl` touches a row laid out by markdown_layout (a table's).
local function on_own_rows(hl, own)
  local last = hl.end_row or hl[1]
  if last > hl[1] and hl[4] == 0 then
    last = last - 1 -- it ends where the next row begins (a heading with its line break)
  end
  for row = hl[1], last do
    if own[row] then
      return true
    end
  end
  return false
end

-- The agent's text, laid out (tables in columns, headings' marks concealed: markdown_layout.lua)
-- and its markdown highlighted (markdown.lua); both give rows counted from the text's first.
local function add_markdown(out, text)
  local first = out.size
  local laid = layout.cached(text)
  for _, line in ipairs(laid.lines) do
    out.add(line)
  end
  for _, hl in ipairs(markdown.highlights(table.concat(laid.lines, "\n"))) do
    if not on_own_rows(hl, laid.own) then
      out.mark({ hl[1] + first, hl[2], hl[3], hl[4], end_row = hl.end_row and hl.end_row + first,
        conceal = hl.conceal, conceal_lines = hl.conceal_lines, priority = hl.priority })
    end
  end
  for _, hl in ipairs(laid.highlights) do
    out.mark({ hl[1] + first, hl[2], hl[3], hl[4], conceal = hl.conceal })
  end
end

local function add_live(out, block)
  local text = (block.live or ""):gsub("\n+$", "")
  if text == "" then
    return
  end
  local lines = split(text)
  for i = math.max(#lines - M.live_lines + 1, 1), #lines do
    out.add("    │ " .. lines[i], "harness9ChatDim")
  end
  out.add("    (Ctrl-C stops the run)", "harness9ChatDim")
end

local CHANGE_MARK = { added = "+", modified = "~", deleted = "-" }

local function add_changed(out, block)
  if type(block.changed) ~= "table" then
    return
  end
  for _, file in ipairs(block.changed) do
    if type(file) == "table" and file.path then
      out.add(string.format("    %s %s", CHANGE_MARK[file.status] or "?", file.path), "harness9ChatDim")
    end
  end
end

-- The problems an edit brought: errors as failed rows, warnings as rows waiting for approval.
local PROBLEM_GROUP = { error = "harness9ChatFailed", warning = "harness9ChatAsking" }

local add_tool

-- A task's child agent's rows, indented under the task's row: its calls (each as a row of the
-- parent's, moved right with its highlights) and its text.
local function add_children(out, block, state)
  for _, child in ipairs(block.children or {}) do
    local line, highlight = out.size, out.marks
    if child.kind == "text" then
      add_markdown(out, child.text) -- the child's own words, laid out as the parent's
    else
      add_tool(out, child, state)
    end
    for i = line + 1, out.size do
      out.lines[i] = "    " .. out.lines[i]
    end
    for i = highlight + 1, out.marks do
      local hl = out.highlights[i]
      hl[3], hl[4] = hl[3] + 4, hl[4] + 4
    end
  end
end

function add_tool(out, block, state)
  local shown = summary.shown_status(block) -- a command that exited non-zero failed
  local row = string.format("  %s %s", ICON[shown] or "·", summary.tool(block))
  local meta = tool_meta(block, state)
  table.insert(meta, summary.dollars(block.cost)) -- a task's: what its child cost
  if #meta > 0 then
    row = row .. " · " .. table.concat(meta, " · ")
  end
  out.add(row, ROW_GROUP[shown])
  out.rows[out.size] = block
  if block.status == "running" then
    add_live(out, block)
  end
  add_diff(out, block)
  add_changed(out, block)
  for _, problem in ipairs(view.problem_lines(block, "    ")) do
    out.add(problem[1], PROBLEM_GROUP[problem[2]] or "harness9ChatDim")
  end
  add_children(out, block, state)
end

local function footer(run)
  if not run.status then
    return run.cancelling and "  cancelling…" or nil
  end
  local parts = { run.status == "completed" and "done" or run.status }
  if run.error then
    parts[1] = parts[1] .. ": " .. run.error
  end
  if view.acted_alone(run) then -- a command the daemon carried out: no turns, no tokens
    return "  ── " .. parts[1]
  end
  if run.turn_count then
    table.insert(parts, string.format("%d turn%s", run.turn_count, run.turn_count == 1 and "" or "s"))
  end
  if run.tool_count then
    table.insert(parts, string.format("%d tool call%s", run.tool_count, run.tool_count == 1 and "" or "s"))
  end
  if run.usage and tonumber(run.usage.inputTokens) then
    table.insert(parts, string.format("%s in / %s out tokens", summary.count(run.usage.inputTokens),
      summary.count(run.usage.outputTokens)))
  end
  table.insert(parts, summary.dollars(run.cost))
  return "  ── " .. table.concat(parts, " · ")
end

-- The plan, pinned at the top of the agent's part of its run: a checklist.
local PLAN_GROUP = { ["[x]"] = "harness9ChatOk", ["[>]"] = "harness9ChatRunning" }

local function add_plan(out, plan)
  for i, line in ipairs(view.plan_lines(plan, "  ")) do
    local mark = line:match("^  (%[.%])")
    out.add(line, i == 1 and "harness9ChatNote" or PLAN_GROUP[mark] or (mark and nil or "harness9ChatDim"))
  end
end

-- A message the user sent into the run, where the agent read it (or on its way there).
local function add_steer(out, block)
  for i, line in ipairs(split(block.text)) do
    if i == 1 then
      local head = block.pending and "  ↪ You (on its way): " or "  ↪ You: "
      out.add(head .. line, block.pending and "harness9ChatDim" or "harness9ChatUser")
    else
      out.add("    " .. line, block.pending and "harness9ChatDim" or nil)
    end
  end
end

-- A prompt waiting in the session's queue: its place, and the key that takes it out.
local function add_queued(out, run, place)
  out.add("You", "harness9ChatUser")
  for _, line in ipairs(split(run.prompt)) do
    out.add(line)
    out.rows[out.size] = { queued_run = run }
  end
  local where = place == 1 and "next" or ("#" .. place .. " in line")
  -- Until the daemon says it is in the queue (its `queued`), it is on its way there.
  out.add(run.queued.id and string.format("  (queued · %s; x removes it)", where) or "  (queueing…)",
    "harness9ChatDim")
  out.rows[out.size] = { queued_run = run }
end

local function add_run(out, run, state)
  if run.note then
    out.add(run.note, "harness9ChatNote")
    return
  end
  out.add("You", "harness9ChatUser")
  for _, line in ipairs(split(run.prompt)) do
    out.add(line)
  end
  for _, label in ipairs(run.attached or {}) do
    out.add("  @ " .. label, "harness9ChatDim")
  end
  if run.plan_mode then
    out.add("  (plan first: the agent investigates and plans, changing nothing)", "harness9ChatDim")
  end
  out.add("")
  out.add("harness9", "harness9ChatAgent")
  if run.plan and #run.plan.items > 0 then
    add_plan(out, run.plan)
  end
  for _, block in ipairs(run.blocks) do
    if block.kind == "steer" then
      add_steer(out, block)
    elseif block.kind == "command" then
      out.add(view.command_line(block), "harness9ChatDim")
      for _, line in ipairs(block.text ~= "" and split((block.text:gsub("\n+$", ""))) or {}) do
        out.add(line)
      end
    elseif block.kind == "tool" and view.is_plan_call(block) and block.status ~= "failed" then
      -- update_plan changes nothing: its work is the checklist above
      out.add("  (updated the plan)", "harness9ChatDim")
    elseif block.kind == "turn" then
      for _, line in ipairs(block.thinking and split(block.thinking) or {}) do
        out.add("  ~ " .. line, "harness9ChatDim")
      end
      if block.text ~= "" then
        add_markdown(out, (block.text:gsub("\n+$", "")))
      end
    else
      add_tool(out, block, state)
    end
  end
  if run.compacted then
    out.add(string.format("  (conversation compacted: %s → %s tokens)", summary.count(run.compacted.before),
      summary.count(run.compacted.after)), "harness9ChatDim")
  end
  local last = footer(run)
  if last then
    out.add(last, run.status and run.status ~= "completed" and run.status ~= "max_turns"
      and "harness9ChatFailed" or "harness9ChatDim")
  end
  if view.go_run(state) == run then
    out.add("  ▶ :Harness9Go carries out the plan", "harness9ChatNote")
  end
end

--- The context fill of the newest run that reported one.
local function context_of(state)
  for i = #state.runs, 1, -1 do
    if state.runs[i].context then
      return state.runs[i].context
    end
  end
  return nil
end

--- The header: the session and the context fill.
function M.header(state)
  local session
  for i = #state.runs, 1, -1 do
    session = session or state.runs[i].session_id
  end
  session = session or state.session_id -- an empty session the chat moved to (/clear)
  local parts = { "harness9 chat", session and ("session " .. session) or "new session" }
  local fill = summary.context(context_of(state))
  if fill then
    table.insert(parts, fill)
  end
  return table.concat(parts, " · ")
end

--- { lines, highlights = {{row0, group, col_from, col_to, end_row = …, conceal = …, priority = …}},
--- rows = {line1 -> tool block} }.
function M.render(state)
  local out = builder()
  out.add(M.header(state), "harness9ChatHeader")
  -- The runs, then the prompts waiting in the queue under them (a steer's next run, which goes
  -- ahead of the queue, may come later in the list than prompts queued before it).
  for _, run in ipairs(state.runs) do
    if not run.queued and not run.removed then
      out.add("")
      add_run(out, run, state)
    end
  end
  local place = 0
  for _, run in ipairs(state.runs) do
    if run.queued and not run.removed then
      place = place + 1
      out.add("")
      add_queued(out, run, place)
    end
  end
  out.add("")
  out.add, out.mark = nil, nil
  return out
end

return M
