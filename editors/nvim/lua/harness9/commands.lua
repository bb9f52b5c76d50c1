-- Slash commands (`agent/commands`): the daemon runs a prompt that starts with `/name` as that
-- command. The chat completes `/name` on its prompt line (omnifunc, and <Tab> there), and
-- `:Harness9Commands` lists them to put one on the prompt line.
local M = {}

local client_mod = require("harness9.client")

local known = {} -- the last agent/commands list
local source = nil -- function() -> client, params: where to ask (set by init.lua)

--- Where the list comes from: `get()` returns the client and the `agent/commands` params.
function M.set_source(get)
  source = get
end

local function remember(result)
  known = {}
  for _, command in ipairs(type(result) == "table" and type(result.commands) == "table" and result.commands or {}) do
    if type(command) == "table" and type(command.name) == "string" then
      table.insert(known, command)
    end
  end
  return known
end

--- The commands listed last (without asking again).
function M.known()
  return known
end

--- Asks for the commands again; `on_result(commands)` when they came.
function M.refresh(on_result)
  local client, params = nil, nil
  if source then
    client, params = source()
  end
  if not client then
    return false
  end
  client_mod.call(client, "request", "agent/commands", params, function(err, result)
    if err then
      vim.notify("harness9: agent/commands failed: " .. tostring(err.message), vim.log.levels.WARN)
      return
    end
    remember(result)
    if on_result then
      on_result(known)
    end
  end)
  return true
end

-- The list now: the one kept, else asked for and waited on (a moment at most).
local function current()
  if #known > 0 or not source then
    return known
  end
  local client, params = source()
  if client then
    local ok, answer = pcall(client_mod.call, client, "request_sync", "agent/commands", params, 2000)
    if ok and type(answer) == "table" then
      remember(answer.result)
    end
  end
  return known
end

--- The completion items for `base` (`/na`): the commands whose `/name` starts with it.
function M.matches(base)
  local items = {}
  for _, command in ipairs(current()) do
    local word = "/" .. command.name
    if word:sub(1, #base) == base then
      local hint = type(command.argumentHint) == "string" and command.argumentHint or ""
      local description = type(command.description) == "string" and command.description or ""
      local menu = (hint ~= "" and description ~= "") and (hint .. " · " .. description) or (hint .. description)
      table.insert(items, { word = word, menu = menu, info = description })
    end
  end
  return items
end

-- Where the `/name` being typed starts on `line` (0-based byte column), or nil when the text
-- after the prompt does not start with `/` or the cursor is past the name.
local function name_start(line, col, prompt)
  local offset = line:sub(1, #prompt) == prompt and #prompt or 0
  local typed = line:sub(offset + 1, col)
  if typed:match("^/[%w_:%-]*$") then
    return offset
  end
  return nil
end

--- Offers the commands completing the `/name` before the cursor (insert mode, `complete()`);
--- false when the text after the prompt does not start with one, or none matches.
function M.complete_here(prompt)
  local line, col = vim.api.nvim_get_current_line(), vim.api.nvim_win_get_cursor(0)[2]
  local start = name_start(line, col, prompt)
  local items = start and M.matches(line:sub(start + 1, col)) or {}
  if #items == 0 then
    return false
  end
  vim.fn.complete(start + 1, items)
  return true
end

--- The chat's 'omnifunc' (see :h complete-functions): completes `/name` at the prompt's start.
function M.omnifunc(findstart, base, prompt)
  if findstart == 1 then
    local start = name_start(vim.api.nvim_get_current_line(), vim.api.nvim_win_get_cursor(0)[2], prompt)
    return start or -3 -- -3: no completion, and leave completion mode
  end
  return M.matches(base)
end

--- `/review  ARGS · Review the diff`: a command's line in the picker.
function M.label(command)
  local parts = { "/" .. command.name }
  if type(command.argumentHint) == "string" and command.argumentHint ~= "" then
    parts[1] = parts[1] .. " " .. command.argumentHint
  end
  if type(command.description) == "string" and command.description ~= "" then
    table.insert(parts, command.description)
  end
  if command.source and command.source ~= "builtin" then
    table.insert(parts, "(" .. command.source .. ")")
  end
  return table.concat(parts, " · ")
end

--- Lists the commands (`vim.ui.select`); `on_choice(command)` with the one picked.
function M.pick(on_choice)
  local asked = M.refresh(function(commands)
    if #commands == 0 then
      return vim.notify("harness9: the daemon lists no commands", vim.log.levels.WARN)
    end
    vim.ui.select(commands, { prompt = "harness9: commands", format_item = M.label }, function(command)
      if command then
        on_choice(command)
      end
    end)
  end)
  if not asked then
    vim.notify("harness9: this daemon lists no slash commands (it serves no agent/commands); update harness9",
      vim.log.levels.WARN)
  end
  return asked
end

return M
