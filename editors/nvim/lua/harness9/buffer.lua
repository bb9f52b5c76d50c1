-- Scratch buffers for the run view and the log: created once, read-only for the user,
-- shown in a split, and kept scrolled to the end while the run streams.
local M = {}

local api = vim.api

--- The scratch buffer called `name` (created on first use) with `filetype`; `conceal`: the
--- windows showing it hide what its syntax conceals (the `#` of the agent's headings).
function M.get(name, filetype, conceal)
  local existing = vim.fn.bufnr(name)
  if existing ~= -1 and api.nvim_buf_is_valid(existing) then
    return existing
  end
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, name)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = filetype
  if conceal then
    api.nvim_create_autocmd("BufWinEnter", { buffer = buf, callback = function()
      vim.opt_local.conceallevel = 2
    end })
  end
  return buf
end

--- Windows showing `buf` whose cursor is on the last line (they follow new output).
local function following(buf)
  local count = api.nvim_buf_line_count(buf)
  local current = api.nvim_get_current_win()
  local wins = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if win ~= current or api.nvim_win_get_cursor(win)[1] >= count then
      table.insert(wins, win)
    end
  end
  return wins
end

--- Replaces the lines of `buf` from line `from` (0-based) on, keeping followers at the end.
function M.set_lines(buf, lines, from)
  if not api.nvim_buf_is_valid(buf) then
    return
  end
  local wins = following(buf)
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, from or 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  local last = api.nvim_buf_line_count(buf)
  for _, win in ipairs(wins) do
    api.nvim_win_set_cursor(win, { last, 0 })
  end
end

--- Shows `buf` in a window (`split` is an Ex command such as "botright vsplit") unless visible.
function M.show(buf, split)
  if #vim.fn.win_findbuf(buf) > 0 then
    return
  end
  local previous = api.nvim_get_current_win()
  vim.cmd(split)
  api.nvim_win_set_buf(0, buf)
  api.nvim_set_current_win(previous)
end

return M
