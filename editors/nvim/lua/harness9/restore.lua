-- `:Harness9Restore`: lists the session's checkpoints (`agent/checkpoints`), lets the user pick
-- one and confirm with `vim.ui.select`, restores it (`agent/restore`) and reloads the open
-- buffers of the restored files.
local M = {}

local client_mod = require("harness9.client")
local files = require("harness9.files")

-- Seconds to add to a UTC time to get local time (os.time reads its table as local time).
local function utc_offset(at)
  return os.time(os.date("*t", at)) - os.time(os.date("!*t", at))
end

--- `createdAt` (ISO 8601 in UTC, `2026-04-29T15:11:30.123Z`) as local time: `15:11:30`, with
--- the date in front when it is not today. Text that does not parse is returned as it is.
function M.local_time(iso, now)
  local y, mo, d, h, mi, s = tostring(iso):match("^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)")
  if not y then
    return tostring(iso)
  end
  local as_local = os.time({ year = tonumber(y), month = tonumber(mo), day = tonumber(d),
                             hour = tonumber(h), min = tonumber(mi), sec = tonumber(s) })
  local at = as_local + utc_offset(as_local)
  if os.date("%Y-%m-%d", at) == os.date("%Y-%m-%d", now or os.time()) then
    return os.date("%H:%M:%S", at)
  end
  return os.date("%Y-%m-%d %H:%M:%S", at)
end

--- The picker's label of a checkpoint: `turn 2 · 3 files · 15:11:30`, or, for the one a
--- restore took of what it replaced, `undo the restore · 3 files · 15:12:02`.
function M.label(checkpoint, now)
  local count = type(checkpoint.files) == "table" and #checkpoint.files or 0
  local what = type(checkpoint.undoes) == "string" and "undo the restore"
    or ("turn " .. tostring(checkpoint.turn))
  return string.format("%s · %d file%s · %s", what, count,
    count == 1 and "" or "s", M.local_time(checkpoint.createdAt, now))
end

local function warn(message)
  vim.notify("harness9: " .. message, vim.log.levels.WARN)
end

local function error_text(err)
  if type(err.data) == "table" and err.data.kind then
    return string.format("%s (%s)", err.message, err.data.kind)
  end
  return tostring(err.message)
end

local function send_restore(client, session_id, checkpoint, on_restored)
  local params = { sessionId = session_id, checkpointId = checkpoint.checkpointId }
  client_mod.call(client, "request", "agent/restore", params, function(err, result)
    if err then
      return warn("restore failed: " .. error_text(err))
    end
    local paths = type(result) == "table" and type(result.restored) == "table" and result.restored or {}
    files.reload(client.config.root_dir or vim.fn.getcwd(), paths)
    local message = string.format("restored %d file%s", #paths, #paths == 1 and "" or "s")
    on_restored(message, checkpoint)
    vim.notify("harness9: " .. message, vim.log.levels.INFO)
  end)
end

local CONFIRM = { "Restore", "Cancel" }

local function confirm(client, session_id, checkpoint, on_restored)
  local prompt = string.format("Restore the workspace to %s? Later changes to its files are undone "
    .. "and the session's history is cut back", M.label(checkpoint))
  vim.ui.select(CONFIRM, { prompt = prompt, format_item = tostring }, function(choice)
    if choice == "Restore" then
      send_restore(client, session_id, checkpoint, on_restored)
    end
  end)
end

--- Asks for a checkpoint of `session_id`, confirms and restores it; `on_restored(message,
--- checkpoint)` runs after a restore. Problems are reported with `vim.notify`.
function M.pick(client, session_id, on_restored)
  client_mod.call(client, "request", "agent/checkpoints", { sessionId = session_id }, function(err, result)
    if err then
      return warn("could not list the checkpoints: " .. error_text(err))
    end
    local checkpoints = type(result) == "table" and result.checkpoints or {}
    if #checkpoints == 0 then
      return warn("this session has no checkpoints")
    end
    vim.ui.select(checkpoints, { prompt = "harness9: restore which checkpoint?", format_item = M.label },
      function(choice)
        if choice then
          confirm(client, session_id, choice, on_restored)
        end
      end)
  end)
end

return M
