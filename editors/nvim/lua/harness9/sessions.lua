-- `:Harness9Sessions`: lists the workspace's stored sessions (`agent/sessions`, newest first)
-- with `vim.ui.select`, then resumes the one picked (`agent/session`: its conversation comes back
-- in the chat and the next prompt continues it) or deletes it (`agent/deleteSession`).
local M = {}

local client_mod = require("harness9.client")
local restore = require("harness9.restore")

local function warn(message)
  vim.notify("harness9: " .. message, vim.log.levels.WARN)
end

--- True when the client's daemon serves `method` (its experimental.harness9.methods).
function M.supports(client, method)
  local caps = client and client.server_capabilities or {}
  local ours = type(caps.experimental) == "table" and caps.experimental.harness9 or nil
  return type(ours) == "table" and type(ours.methods) == "table" and vim.tbl_contains(ours.methods, method)
end

--- The picker's label: `fix the parser · 3 turns · 15:11:30` (the date too when not today).
function M.label(session, now)
  local title = type(session.title) == "string" and session.title ~= "" and session.title or session.sessionId
  local turns = tonumber(session.turns) or 0
  return string.format("%s · %d turn%s · %s", title, turns, turns == 1 and "" or "s",
    restore.local_time(session.updatedAt or session.createdAt, now))
end

local function request(client, method, params, on_result)
  client_mod.call(client, "request", method, params, function(err, result)
    if err then
      local kind = type(err.data) == "table" and err.data.kind and (" (" .. err.data.kind .. ")") or ""
      return warn(string.format("%s failed: %s%s", method, tostring(err.message), kind))
    end
    on_result(type(result) == "table" and result or {})
  end)
end

local ACTIONS = { "Resume", "Delete", "Cancel" }

local function act(client, session, handlers)
  vim.ui.select(ACTIONS, { prompt = M.label(session), format_item = tostring }, function(action)
    if action == "Resume" then
      request(client, "agent/session", { sessionId = session.sessionId }, handlers.resume)
    elseif action == "Delete" then
      request(client, "agent/deleteSession", { sessionId = session.sessionId }, function(result)
        handlers.deleted(session, result.deleted == true)
      end)
    end
  end)
end

--- Lists the sessions of the client's workspace and acts on the one picked: `handlers.resume(
--- session)` with the `agent/session` result, `handlers.deleted(session, deleted)`.
function M.pick(client, handlers)
  if not M.supports(client, "agent/sessions") then
    return warn("this daemon does not keep sessions (it serves no agent/sessions); update harness9")
  end
  local root = client.config.root_dir
  local params = root and { workspaceFolder = vim.uri_from_fname(root) } or {}
  request(client, "agent/sessions", params, function(result)
    local list = type(result.sessions) == "table" and result.sessions or {}
    if #list == 0 then
      return warn("no stored sessions in this workspace yet")
    end
    vim.ui.select(list, { prompt = "harness9: sessions", format_item = M.label }, function(choice)
      if choice then
        act(client, choice, handlers)
      end
    end)
  end)
end

return M
