-- Answers the daemon's `agent/requestApproval`: shows what the tool call would do (the diff of a
-- file tool, the command of bash) in a floating window, asks with `vim.ui.select` (and, for a
-- rejection, a reason with `vim.ui.input`), answers exactly once and closes the window.
-- `$/cancelRequest` from the daemon (the run was cancelled) withdraws the open question.
local M = {}

local api = vim.api
local float = require("harness9.approval_float")
local view = require("harness9.view")

-- The daemon's options, used when a request carries none.
local DEFAULT_OPTIONS = {
  { id = "allow_once", label = "Allow once" },
  { id = "allow_session", label = "Allow for this session" },
  { id = "reject", label = "Reject" },
}

M.max_height = 0.6 -- the preview's height at most, as a fraction of the editor's lines
-- How to ask: "float" (a focused floating window with keys, approval_float.lua), "select"
-- (vim.ui.select beside a preview), "auto": the float, unless vim.ui.select was replaced by a
-- picker plugin. Neovim before 0.10 always uses vim.ui.select (its handler cannot wait).
M.ui = "auto"
M.before_ask = nil -- called once the preview is open, before asking (the plugin redraws its view)

local pending = {} -- client id -> { finish = fn } while a question is open

--- What the call would do, and its filetype: the diff of a file tool, the command of a command
--- tool (`toolKind: "execute"`: bash), else the arguments.
local function body_of(params)
  if type(params.diff) == "string" and params.diff ~= "" then
    return require("harness9.text_lines").split((params.diff:gsub("\n$", ""))), "diff"
  end
  local args = type(params.arguments) == "table" and params.arguments or {}
  if params.toolKind == "execute" and type(args.command) == "string" then
    return require("harness9.text_lines").split(args.command), "sh"
  end
  local ok, encoded = pcall(vim.fn.json_encode, params.arguments)
  return { ok and encoded or tostring(params.arguments) }, "json"
end

--- The question in one line: "harness9 asks to run bash: npm test", and for a command that
--- would leave the OS sandbox "harness9 asks to run bash: curl … OUTSIDE the sandbox"; a child
--- agent's question names it: "harness9's explore agent asks to run bash: ls".
function M.heading(params)
  local who = type(params.agent) == "string" and ("harness9's " .. params.agent .. " agent") or "harness9"
  local heading = who .. " asks to run " .. tostring(params.title or params.tool)
  if view.leaves_sandbox(params.arguments, params.reason) then
    heading = heading .. " OUTSIDE the sandbox"
  end
  return heading
end

--- The lines above the preview: why the daemon asks (`reason`), and for a command that would
--- leave the sandbox what that means; commented out (`# `) in a shell preview.
function M.notes(params, filetype)
  local notes = {}
  if view.leaves_sandbox(params.arguments, params.reason) then
    table.insert(notes, "⚠ Allowed, this command runs OUTSIDE the sandbox: it can write anywhere you can and reach the network.")
  end
  if type(params.reason) == "string" and params.reason ~= "" then
    table.insert(notes, "Asked because it " .. params.reason)
  end
  if #notes == 0 then
    return notes
  end
  local prefix = filetype == "sh" and "# " or ""
  for i, note in ipairs(notes) do
    notes[i] = prefix .. note
  end
  table.insert(notes, "")
  return notes
end

--- The preview's lines and filetype: why it was asked (when the daemon says), then what it does.
local function preview_of(params)
  local lines, filetype = body_of(params)
  return vim.list_extend(M.notes(params, filetype), lines), filetype
end

--- Opens the preview of `params` in a floating window that does not take the focus.
local function open_preview(params)
  local lines, filetype = preview_of(params)
  local title = " " .. M.heading(params) .. " "
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = filetype
  local width = vim.fn.has("nvim-0.9") == 1 and vim.fn.strdisplaywidth(title) or 20
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width, math.max(vim.o.columns - 4, 1))
  local height = math.min(#lines, math.max(math.floor(vim.o.lines * M.max_height), 1))
  local config = {
    relative = "editor",
    row = 1,
    col = math.max(math.floor((vim.o.columns - width) / 2) - 1, 0),
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
    focusable = true,
  }
  if vim.fn.has("nvim-0.9") == 1 then -- window titles came with 0.9
    config.title = title
  end
  return api.nvim_open_win(buf, false, config)
end

local function close_preview(win)
  if win and api.nvim_win_is_valid(win) then
    api.nvim_win_close(win, true)
  end
end

local function options_of(params)
  return type(params.options) == "table" and #params.options > 0 and params.options or DEFAULT_OPTIONS
end

--- Turns the option picked into the answer (a rejection asks for a reason) and calls `finish`.
local function answer_with(choice, finish, is_open)
  if not is_open() then
    return -- withdrawn meanwhile: the answer was already given
  end
  if not choice then -- dismissed
    return finish({ decision = "reject" })
  end
  if choice.id == "allow_once" or choice.id == "allow_session" then
    return finish({ decision = choice.id })
  end
  vim.ui.input({ prompt = "Reason for rejecting (optional): " }, function(reason)
    local answer = { decision = "reject" }
    if type(reason) == "string" and reason:match("%S") then
      answer.message = reason
    end
    finish(answer)
  end)
end

--- Asks the user with vim.ui.select: the choice, then for a rejection a reason.
local function ask(params, finish, is_open)
  local prompt = M.heading(params)
  if type(params.reason) == "string" and params.reason ~= "" then
    prompt = prompt .. " (it " .. params.reason .. ")"
  end
  vim.ui.select(options_of(params), {
    prompt = prompt,
    kind = "harness9.approval",
    format_item = function(option)
      return option.label or option.id
    end,
  }, function(choice)
    answer_with(choice, finish, is_open)
  end)
end

--- Asks in a focused floating window; returns the function that closes it.
local function ask_in_float(params, finish, is_open)
  local lines, filetype = preview_of(params)
  return float.open({
    lines = lines,
    filetype = filetype,
    title = " " .. M.heading(params) .. " ",
    options = options_of(params),
    max_height = M.max_height,
  }, function(choice)
    answer_with(choice, finish, is_open)
  end)
end

local function stock_select()
  local info = debug.getinfo(vim.ui.select, "S")
  return info ~= nil and type(info.source) == "string" and info.source:match("vim/ui%.lua$") ~= nil
end

--- True when this question is asked in the float: 0.10+ in a coroutine, as `M.ui` says.
local function use_float()
  local co, is_main = coroutine.running()
  if co == nil or is_main or vim.fn.has("nvim-0.10") == 0 or M.ui == "select" then
    return false
  end
  return M.ui == "float" or stock_select()
end

--- Runs `start(finish, is_open)` and returns the answer passed to `finish` (see await.lua):
--- an interrupted wait (CTRL-C) rejects, so nothing runs that was not allowed.
local function await(start)
  return require("harness9.await").await(start, { decision = "reject" }, function(err)
    return { decision = "reject", message = "the editor could not ask: " .. tostring(err) }
  end)
end

--- The `agent/requestApproval` handler: returns `{ decision, message? }`.
function M.handler(_, params, ctx)
  params = type(params) == "table" and params or {}
  local client_id = ctx and ctx.client_id or 0
  if use_float() then
    return M.ask_in_float(params, client_id)
  end
  local win
  local ok, opened = pcall(open_preview, params)
  if ok then
    win = opened
  end
  if M.before_ask then
    pcall(M.before_ask)
  end
  -- A synchronous picker (the default inputlist) blocks redraws: show the preview first.
  pcall(vim.cmd, "redraw")
  local question = {}
  local answer = await(function(finish, is_open)
    question.finish = finish
    pending[client_id] = question
    ask(params, finish, is_open)
  end)
  if pending[client_id] == question then
    pending[client_id] = nil
  end
  close_preview(win)
  return answer
end

--- The question in a focused float (0.10+, in the handler's coroutine); returns the answer.
function M.ask_in_float(params, client_id)
  if M.before_ask then
    pcall(M.before_ask)
  end
  local question, close = {}, nil
  local answer = await(function(finish, is_open)
    question.finish = finish
    pending[client_id] = question
    close = ask_in_float(params, finish, is_open)
  end)
  if pending[client_id] == question then
    pending[client_id] = nil
  end
  if close then
    close()
  end
  return answer
end

--- The `$/cancelRequest` handler: the daemon withdrew its question (the run was cancelled).
--- Neovim does not tell a handler its request's id; the daemon asks one question at a time.
function M.on_cancel(_, _, ctx)
  local client_id = ctx and ctx.client_id or 0
  local question = pending[client_id]
  if question then
    pending[client_id] = nil
    question.finish({ decision = "reject", message = "cancelled" })
  end
end

--- True while a question of client `client_id` (any client when nil) waits for the user.
function M.asking(client_id)
  if client_id then
    return pending[client_id] ~= nil
  end
  return next(pending) ~= nil
end

return M
