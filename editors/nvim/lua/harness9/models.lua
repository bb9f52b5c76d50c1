-- `:Harness9Model`: the models the daemon can use (`agent/models`), picked with `vim.ui.select`
-- (then the reasoning effort, for a model that takes one), or named on the command line as
-- `provider:model` (completed from the last list). The choice is a table
-- { provider, model, reasoningEffort? } that init.lua applies to the chat's session.
local M = {}

local client_mod = require("harness9.client")

M.EFFORTS = { "default", "low", "medium", "high" }

local known = {} -- the last agent/models list: its models, for the command line's completion

local function warn(message)
  vim.notify("harness9: " .. message, vim.log.levels.WARN)
end

--- `provider/id`: a model's label in the picker.
function M.label(model)
  return string.format("%s/%s", tostring(model.provider), tostring(model.id))
end

--- True when `model` ({provider, id}) is `current` ({provider, model}).
function M.is_current(model, current)
  return type(current) == "table" and current.model == model.id
    and (current.provider == nil or current.provider == model.provider)
end

--- `openai/gpt-4o (in use)` for the model in use, else its label.
function M.item_label(model, current)
  return M.label(model) .. (M.is_current(model, current) and " (in use)" or "")
end

--- The choice a command line names: `provider:model [low|medium|high]`, or `model` alone.
--- Returns nil and a message when the effort is not one of them.
function M.parse(text)
  local words = vim.split(vim.trim(text or ""), "%s+")
  local name, effort = words[1] or "", words[2]
  if name == "" or #words > 2 then
    return nil, "give the model as provider:model (and low, medium or high)"
  end
  if effort and not vim.tbl_contains({ "low", "medium", "high", "default" }, effort) then
    return nil, "the reasoning effort is low, medium or high, not " .. effort
  end
  local provider, model = name:match("^([%w_%-%.]+):(.+)$")
  local choice = { provider = provider, model = model or name }
  if effort and effort ~= "default" then
    choice.reasoningEffort = effort
  end
  return choice
end

--- How a choice reads in a message: `openai:gpt-4o · effort high`.
function M.describe(choice)
  local name = choice.provider and (choice.provider .. ":" .. choice.model) or choice.model
  return choice.reasoningEffort and (name .. " · effort " .. choice.reasoningEffort) or name
end

local function remember(result)
  known = {}
  for _, model in ipairs(type(result.models) == "table" and result.models or {}) do
    if type(model) == "table" and model.id then
      table.insert(known, model)
    end
  end
end

--- Asks the daemon for the models (`agent/models`, the session's current one marked);
--- `on_result(result)` with the answer, or a warning when it failed.
function M.list(client, session_id, on_result)
  local params = session_id and { sessionId = session_id } or vim.empty_dict()
  client_mod.call(client, "request", "agent/models", params, function(err, result)
    if err or type(result) ~= "table" then
      return warn("agent/models failed: " .. tostring(err and err.message or "no answer"))
    end
    remember(result)
    for _, failed in ipairs(type(result.errors) == "table" and result.errors or {}) do
      warn(string.format("%s: %s", tostring(failed.provider), tostring(failed.message)))
    end
    on_result(result)
  end)
end

local function pick_effort(model, on_choice)
  local choice = { provider = model.provider, model = model.id }
  if not model.reasoning then
    return on_choice(choice)
  end
  vim.ui.select(M.EFFORTS, { prompt = "harness9: reasoning effort of " .. M.label(model) }, function(effort)
    if not effort then
      return
    end
    if effort ~= "default" then
      choice.reasoningEffort = effort
    end
    on_choice(choice)
  end)
end

--- Lists the models and lets the user pick one (and its effort when it takes one);
--- `on_choice(choice)` with the model picked, nothing when the user backed out.
function M.pick(client, session_id, on_choice)
  M.list(client, session_id, function(result)
    local models = known
    if #models == 0 then
      return warn("the daemon lists no models (is a provider configured?)")
    end
    local current = type(result.current) == "table" and result.current or nil
    vim.ui.select(models, {
      prompt = "harness9: model",
      format_item = function(model)
        return M.item_label(model, current)
      end,
    }, function(model)
      if model then
        pick_effort(model, on_choice)
      end
    end)
  end)
end

--- Command-line completion of `:Harness9Model`: `provider:id` of the models listed last, asked
--- for (a moment at most) when none were.
function M.complete(client, lead)
  if #known == 0 and client then
    local ok, answer = pcall(client_mod.call, client, "request_sync", "agent/models", vim.empty_dict(), 2000)
    if ok and type(answer) == "table" and type(answer.result) == "table" then
      remember(answer.result)
    end
  end
  local names = {}
  for _, model in ipairs(known) do
    local name = string.format("%s:%s", tostring(model.provider), tostring(model.id))
    if name:sub(1, #lead) == lead or tostring(model.id):sub(1, #lead) == lead then
      table.insert(names, name)
    end
  end
  return names
end

return M
