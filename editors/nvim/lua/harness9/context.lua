-- Editor context attached to a run (`agent/run` `context` items, protocol 1.1): the lines of a
-- range (`:'<,'>Harness9Run …`), the whole buffer (a `%` word in the prompt) and its diagnostics
-- (a `%d` word, from `vim.diagnostic.get`; within the range when one is given).
local M = {}

local api = vim.api

local SEVERITY = { "error", "warning", "info", "hint" }

local last_file_win = nil -- the window of a file buffer entered last (see M.track)

local function is_file(buf)
  return api.nvim_buf_is_valid(buf) and vim.bo[buf].buftype == "" and api.nvim_buf_get_name(buf) ~= ""
end

-- The file buffer `win` shows, or nil (a floating window, such as completion's info, is no file's).
local function file_of(win)
  if not (win and win ~= 0 and api.nvim_win_is_valid(win)) or api.nvim_win_get_config(win).relative ~= "" then
    return nil
  end
  local buf = api.nvim_win_get_buf(win)
  return is_file(buf) and buf or nil
end

--- Remembers the file window entered last: the previous window alone is not enough, since
--- insert-mode completion's info window (a float, or the preview window) becomes the previous one.
function M.track()
  api.nvim_create_autocmd({ "WinEnter", "BufEnter" }, {
    group = api.nvim_create_augroup("harness9_context", { clear = true }),
    callback = function()
      local win = api.nvim_get_current_win()
      if file_of(win) then
        last_file_win = win
      end
    end,
  })
end

--- The buffer the context is taken from: the current one when it is a file, else the file you
--- came from (the file window entered last, the previous window, another window of the tab).
function M.target_buffer()
  local current = api.nvim_get_current_buf()
  if is_file(current) then
    return current
  end
  local tab_wins = api.nvim_tabpage_list_wins(0)
  local candidates = { vim.fn.win_getid(vim.fn.winnr("#")), unpack(tab_wins) }
  if vim.tbl_contains(tab_wins, last_file_win) then
    table.insert(candidates, 1, last_file_win)
  end
  for _, win in ipairs(candidates) do
    local buf = file_of(win)
    if buf then
      return buf
    end
  end
  return nil
end

--- Splits the `%` and `%d` words off a prompt: returns the prompt without them and which were
--- there ({ file = bool, diagnostics = bool }).
function M.parse(prompt)
  local wants, words = { file = false, diagnostics = false }, {}
  for word in prompt:gmatch("%S+") do
    if word == "%" then
      wants.file = true
    elseif word == "%d" then
      wants.diagnostics = true
    else
      table.insert(words, word)
    end
  end
  if not wants.file and not wants.diagnostics then
    return prompt, wants
  end
  return table.concat(words, " "), wants
end

local function lines_text(lines)
  return table.concat(lines, "\n") .. "\n"
end

--- A `selection` item: lines `first`..`last` (1-based) of `buf`, with their text as the buffer has it.
function M.selection(buf, first, last)
  return {
    uri = vim.uri_from_bufnr(buf),
    kind = "selection",
    range = { start = { line = first - 1, character = 0 }, ["end"] = { line = last, character = 0 } },
    text = lines_text(api.nvim_buf_get_lines(buf, first - 1, last, false)),
  }
end

--- A `file` item for `buf`; its text is sent when the buffer has unsaved changes (else the
--- daemon reads the file).
function M.file(buf)
  local item = { uri = vim.uri_from_bufnr(buf), kind = "file" }
  if vim.bo[buf].modified then
    item.text = lines_text(api.nvim_buf_get_lines(buf, 0, -1, false))
  end
  return item
end

--- A `diagnostics` item listing the buffer's diagnostics (lines `first`..`last` when given), one
--- a line: `3:5 error: undefined name 'x' (pyflakes)`; nil when there are none.
function M.diagnostics(buf, first, last)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if not first or (d.lnum + 1 >= first and d.lnum + 1 <= last) then
      table.insert(found, d)
    end
  end
  if #found == 0 then
    return nil
  end
  table.sort(found, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  local lines = {}
  for _, d in ipairs(found) do
    local source = d.source and (" (" .. d.source .. ")") or ""
    table.insert(lines, string.format("%d:%d %s: %s%s", d.lnum + 1, d.col + 1, SEVERITY[d.severity] or "note",
      (d.message:gsub("\n", " ")), source))
  end
  local item = { uri = vim.uri_from_bufnr(buf), kind = "diagnostics", text = lines_text(lines) }
  if first then
    item.range = { start = { line = first - 1, character = 0 }, ["end"] = { line = last, character = 0 } }
  end
  return item
end

--- The prompt without its context words, and the items for it: `range` = { first, last } or nil.
--- Returns nil and a message when context is asked for but there is no file buffer.
function M.collect(prompt, range)
  local text, wants = M.parse(prompt)
  if not range and not wants.file and not wants.diagnostics then
    return prompt, {}
  end
  local buf = M.target_buffer()
  if not buf then
    return nil, "harness9: no file buffer to attach (a range, % and %d take the current file)"
  end
  local items = {}
  if range then
    table.insert(items, M.selection(buf, range[1], range[2]))
  end
  if wants.file then
    table.insert(items, M.file(buf))
  end
  if wants.diagnostics then
    local item = M.diagnostics(buf, range and range[1], range and range[2])
    if item then
      table.insert(items, item)
    end
  end
  return text, items
end

--- How an item reads under the prompt: `calc.py:3-7`, `calc.py`, `calc.py diagnostics`.
function M.label(item, root)
  local path = vim.uri_to_fname(item.uri)
  if root and path:sub(1, #root + 1) == root .. "/" then
    path = path:sub(#root + 2)
  end
  local where = ""
  if item.range then
    local first, last = item.range.start.line + 1, item.range["end"].line
    where = first == last and (":" .. first) or string.format(":%d-%d", first, last)
  end
  return path .. where .. (item.kind == "diagnostics" and " diagnostics" or "")
end

return M
