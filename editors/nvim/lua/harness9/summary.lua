-- What a tool call did, in English, from its structured fields (tool, its kind, arguments, path,
-- diff counts, bytes, exitCode or signal, duration, reason): "edited a.txt +1 −1", "ran `make` ·
-- exit 2 · 291 ms". The model-facing output text is never the summary. Pure Lua.
local M = {}

local WIDTH = 72 -- a command is cut to this many characters

--- `412 B`, `1.2 kB`, `3.4 MB`.
function M.bytes(size)
  size = tonumber(size) or 0
  if size < 1000 then
    return string.format("%d B", size)
  elseif size < 1000000 then
    return string.format("%.1f kB", size / 1000)
  end
  return string.format("%.1f MB", size / 1000000)
end

--- `12 ms` below a second, `1.3 s` above.
function M.duration(ms)
  ms = tonumber(ms) or 0
  if ms < 1000 then
    return string.format("%d ms", math.floor(ms + 0.5))
  end
  return string.format("%.1f s", ms / 1000)
end

--- `1,234,567`.
function M.count(n)
  local text = tostring(math.floor(tonumber(n) or 0))
  local out = text:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (out:gsub("^,", ""))
end

-- The first line of a command, cut to WIDTH, in backquotes.
local function command_text(command)
  local first, rest = command:match("^([^\n]*)(.*)$")
  if vim.fn.strchars(first) > WIDTH then
    first = vim.fn.strcharpart(first, 0, WIDTH - 1) .. "…"
  elseif rest ~= "" then
    first = first .. " …"
  end
  return "`" .. first .. "`"
end

--- How a finished command ended, from the block's `exitCode` / `signal` (protocol 1.2):
--- "exit 2", "killed (SIGKILL)", or nil when the daemon sent neither.
function M.exit_status(block)
  if tonumber(block.exit_code) then
    return "exit " .. math.floor(block.exit_code)
  elseif type(block.signal) == "string" then
    return "killed (" .. block.signal .. ")"
  end
  return nil
end

--- Whether a block's command completed but failed: it exited non-zero or a signal killed it
--- (`exitCode` / `signal`). The model got a normal result; the user sees a failed row.
function M.command_failed(block)
  if block.status ~= "ok" then
    return false
  end
  local code = tonumber(block.exit_code)
  return (code ~= nil and code ~= 0) or type(block.signal) == "string"
end

--- The status a block's row shows: its own, or "failed" for a command that failed.
function M.shown_status(block)
  return M.command_failed(block) and "failed" or block.status
end

local VERBS = {
  read_file = { running = "reading", ok = "read", failed = "read", asking = "read" },
  write_file = { running = "writing", ok = "wrote", failed = "write", asking = "write" },
  edit_file = { running = "editing", ok = "edited", failed = "edit", asking = "edit" },
}

local FAILURE = {
  timeout = "timed out",
  cancelled = "cancelled",
  rejected = "rejected",
  denied = "denied",
  bad_arguments = "bad arguments",
  unknown_tool = "unknown tool",
}

--- Why a call failed, once: "rejected: not now" (with the daemon's `message`: the user's reason,
--- a denial's rule or mode), else the reason's word alone ("rejected", "timed out").
function M.failure(block)
  local word = FAILURE[block.reason] or "failed"
  return block.message and (word .. ": " .. block.message) or word
end

--- Whether a refused call's row says all there is to it (its approval note, the model's text
--- would only repeat it): rejected by the user, or denied with the daemon's message saying why.
function M.refused_plainly(block)
  return block.status == "failed" and (block.reason == "rejected" or (block.reason == "denied" and block.message ~= nil))
end

local function counts(block)
  if tonumber(block.added) and tonumber(block.removed) then
    return string.format(" +%d −%d", block.added, block.removed)
  end
  return ""
end

local function file_summary(block, verbs)
  local path = block.path or (block.args and block.args.path) or "?"
  if block.status == "ok" then
    local size = block.tool_kind == "read" and block.bytes and (" · " .. M.bytes(block.bytes)) or ""
    return verbs.ok .. " " .. path .. counts(block) .. size
  elseif block.status == "failed" then
    return string.format("could not %s %s (%s)", verbs.failed, path, M.failure(block))
  elseif block.status == "asking" then
    return string.format("wants to %s %s", verbs.asking, path)
  end
  return verbs.running .. " " .. path
end

local function bash_summary(block)
  local command = block.args and type(block.args.command) == "string" and command_text(block.args.command)
    or ("`" .. tostring(block.summary) .. "`")
  if block.status == "ok" then
    local exit = M.exit_status(block)
    return "ran " .. command .. (exit and (" · " .. exit) or "")
  elseif block.status == "failed" then
    return command .. " " .. M.failure(block)
  elseif block.status == "asking" then
    return "wants to run " .. command
  end
  return "running " .. command
end

--- The row's text for a tool block of the view (see view.lua), without icon or duration.
--- The name of the agent a task ran ("explore" unless it asked for another).
function M.agent_of(block)
  local asked = type(block.args) == "table" and block.args.agent or nil
  return tostring(block.agent or (type(asked) == "string" and asked) or "explore")
end

function M.tool(block)
  local verbs = VERBS[block.tool]
  if block.tool == "task" then -- a child agent: "explore agent: find where alpha is defined"
    local text = M.agent_of(block) .. " agent: " .. tostring(block.summary or "")
    return block.status == "failed" and (text .. " (" .. M.failure(block) .. ")") or text
  end
  if verbs then
    return file_summary(block, verbs)
  elseif block.tool_kind == "execute" then
    return bash_summary(block)
  end
  local text = block.tool .. (block.summary and block.summary ~= "" and (" " .. block.summary) or "")
  if block.status == "failed" then
    text = text .. " (" .. M.failure(block) .. ")"
  end
  return text
end

--- "$0.0123" (or "$12.50" from a dollar up) for a run's cost in US dollars, or nil without one.
function M.dollars(amount)
  amount = tonumber(amount)
  if not amount then
    return nil
  end
  return string.format(amount < 1 and "$%.4f" or "$%.2f", amount)
end

--- "context 12% · 15,230 / 128,000 tokens", or nil without a window.
function M.context(context)
  if type(context) ~= "table" or not tonumber(context.window) or context.window <= 0 then
    return nil
  end
  local percent = math.floor(100 * context.tokens / context.window + 0.5)
  return string.format("context %d%% · %s / %s tokens", percent, M.count(context.tokens), M.count(context.window))
end

return M
