-- The approval question as a floating window that takes the focus: what the call would do (the
-- diff of a file tool, the command of bash) and a line of keys — `a` allow once, `s` allow for
-- the session, `r` reject (asks a reason), `1`…`9` any option, `q`/`<Esc>` reject. Used where the
-- request handler can wait without blocking Neovim (0.10+, see approval.lua).
local M = {}

local api = vim.api

local KEYS = { allow_once = "a", allow_session = "s", reject = "r" }

--- The footer naming each option's key: "[a] Allow once  [s] Allow for this session  [r] Reject".
function M.footer(options)
  local parts = {}
  for i, option in ipairs(options) do
    table.insert(parts, string.format("[%s] %s", KEYS[option.id] or tostring(i), option.label or option.id))
  end
  return table.concat(parts, "  ") .. "  [q] Reject"
end

local function size(lines, title, max_height)
  local width = vim.fn.strdisplaywidth(title)
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width, math.max(vim.o.columns - 4, 1))
  return width, math.min(#lines, math.max(math.floor(vim.o.lines * max_height), 3))
end

local open_questions = 0 -- questions on screen (one at a time, but one may open as one closes)
local resume_insert = false -- a question came while the user typed: Insert mode comes back

--- Opens the question and calls `answer(option)` once: the option picked, or nil (rejected
--- without a reason: `q`, `<Esc>`, the window closed). Returns a function that closes it.
function M.open(spec, answer)
  local lines = vim.list_extend(vim.deepcopy(spec.lines), { "", M.footer(spec.options) })
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = spec.filetype
  local width, height = size(lines, spec.title, spec.max_height)
  local previous = api.nvim_get_current_win()
  -- Asked while typing (the chat's prompt line is in Insert mode): the keys must answer, not be
  -- typed into the question, so it opens in Normal mode; Insert mode comes back after the last.
  if api.nvim_get_mode().mode:sub(1, 1) == "i" then
    resume_insert = true
  end
  local win = api.nvim_open_win(buf, true, {
    relative = "editor", row = 1, col = math.max(math.floor((vim.o.columns - width) / 2) - 1, 0),
    width = width, height = height, style = "minimal", border = "rounded", title = spec.title,
  })
  api.nvim_win_set_cursor(win, { #lines, 0 }) -- the keys are on the last line
  vim.cmd("stopinsert")
  open_questions = open_questions + 1
  local answered, closed = false, false
  local function close()
    if not closed then
      closed, open_questions = true, open_questions - 1
    end
    if api.nvim_win_is_valid(win) then
      api.nvim_win_close(win, true)
    end
    if api.nvim_win_is_valid(previous) then
      api.nvim_set_current_win(previous)
      if resume_insert then
        vim.schedule(function()
          -- Not while another question is open (it would take the keys again).
          if resume_insert and open_questions == 0 and api.nvim_get_current_win() == previous then
            resume_insert = false
            vim.cmd("startinsert!") -- back at the end of the line being typed
          end
        end)
      end
    end
  end
  local function pick(option)
    if answered then
      return
    end
    answered = true
    close()
    answer(option)
  end
  for i, option in ipairs(spec.options) do
    for _, key in ipairs({ KEYS[option.id], i <= 9 and tostring(i) or nil }) do
      vim.keymap.set("n", key, function()
        pick(option)
      end, { buffer = buf, nowait = true, desc = option.label })
    end
  end
  for _, key in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", key, function()
      pick(nil)
    end, { buffer = buf, nowait = true, desc = "Reject" })
  end
  api.nvim_create_autocmd("BufWipeout", { buffer = buf, once = true, callback = function()
    vim.schedule(function()
      pick(nil)
    end)
  end })
  return function()
    answered = true
    close()
  end
end

return M
