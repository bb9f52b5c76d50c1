-- The agent's markdown laid out for reading: a pipe table becomes aligned columns under its
-- header, with a separator line (its cells' inline marks taken out and their bold, italic and
-- code highlighted), and a heading's `#` marks are concealed (its text is highlighted by
-- markdown.lua). Fenced code blocks are left as they are. Pure Lua but for display widths.
local M = {}

M.GROUPS = {
  harness9ChatTableHeader = "Title",
  harness9ChatTableBorder = "Comment",
}

local BAR, RULE, CROSS = "│", "─", "┼"

-- Inline marks in a cell: the pattern, the width of its marks, the group of what they enclose.
-- Code first: what is inside a code span is not emphasis.
local INLINE = {
  { "^`([^`]+)`", "harness9ChatCode" },
  { "^%*%*(.-[^%s])%*%*", "harness9ChatBold" },
  { "^__(.-[^%s])__", "harness9ChatBold" },
  { "^%*([^%s%*][^%*]-)%*", "harness9ChatItalic" },
  { "^_([^%s_][^_]-)_%f[^%w_]", "harness9ChatItalic" },
  { "^%[([^%]]+)%]%([^%)]*%)", "Underlined" }, -- a link: its text
}

--- A cell's text without its inline marks, and the highlights of what they marked:
--- { text, spans = { { from, to, group } } } (0-based byte columns in the text).
function M.cell(raw)
  local out, spans, i = {}, {}, 1
  local size = 0
  while i <= #raw do
    local matched = false
    if raw:sub(i, i) == "\\" and raw:sub(i + 1, i + 1):match("%p") then
      table.insert(out, raw:sub(i + 1, i + 1))
      size, i, matched = size + 1, i + 2, true
    elseif i == 1 or not raw:sub(i - 1, i - 1):match("[%w]") then
      for _, rule in ipairs(INLINE) do
        local from, to, inner = raw:find(rule[1], i)
        if from then
          table.insert(spans, { size, size + #inner, rule[2] })
          table.insert(out, inner)
          size, i, matched = size + #inner, to + 1, true
          break
        end
      end
    end
    if not matched then
      table.insert(out, raw:sub(i, i))
      size, i = size + 1, i + 1
    end
  end
  return { text = table.concat(out), spans = spans }
end

-- The cells of a table line: split at `|` but not at `\|` or inside a code span, the outer
-- pipes dropped, each cell trimmed.
local function cells(line)
  local body = vim.trim(line):gsub("^|", "")
  if body:sub(-1) == "|" and body:sub(-2, -2) ~= "\\" then
    body = body:sub(1, -2)
  end
  local out, start, code = {}, 1, false
  for i = 1, #body do
    local char = body:sub(i, i)
    if char == "`" then
      code = not code
    elseif char == "|" and not code and body:sub(i - 1, i - 1) ~= "\\" then
      table.insert(out, vim.trim(body:sub(start, i - 1)))
      start = i + 1
    end
  end
  table.insert(out, vim.trim(body:sub(start)))
  return out
end

-- The alignments of a delimiter row (`| :-- | --: | :-: |`), or nil when `line` is not one.
local function delimiter(line)
  if not line:find("-", 1, true) or not line:find("|", 1, true) or not line:match("^[%s:|%-]+$") then
    return nil
  end
  local aligns = {}
  for _, cell in ipairs(cells(line)) do
    if not cell:match("^:?%-+:?$") then
      return nil
    end
    local left, right = cell:sub(1, 1) == ":", cell:sub(-1) == ":"
    table.insert(aligns, (left and right) and "center" or right and "right" or "left")
  end
  return aligns
end

local function is_row(line)
  return line:find("|", 1, true) ~= nil and not line:match("^%s*$")
end

-- The rows of the table starting at `lines[i]` (header, delimiter, body rows) and the index
-- after it; nil when no table starts there (the header's cells must match the delimiter's).
local function table_at(lines, i)
  local aligns = is_row(lines[i]) and lines[i + 1] and delimiter(lines[i + 1])
  if not aligns or #cells(lines[i]) ~= #aligns then
    return nil
  end
  local rows, j = { cells(lines[i]) }, i + 2
  while lines[j] and is_row(lines[j]) do
    table.insert(rows, cells(lines[j]))
    j = j + 1
  end
  return { rows = rows, aligns = aligns }, j
end

local function padded(text, width, align)
  local gap = width - vim.fn.strdisplaywidth(text)
  if align == "right" then
    return string.rep(" ", gap) .. text, gap
  elseif align == "center" then
    local left = math.floor(gap / 2)
    return string.rep(" ", left) .. text .. string.rep(" ", gap - left), left
  end
  return text .. string.rep(" ", gap), 0
end

-- The lines and highlights of a parsed table whose first line is row `row` (0-based).
local function lay_table(parsed, row, out)
  local rows, aligns, widths = {}, parsed.aligns, {}
  for r, raw in ipairs(parsed.rows) do
    rows[r] = {}
    for c = 1, #aligns do
      rows[r][c] = M.cell(raw[c] or "") -- a short row gets empty cells, a long one is cut
      widths[c] = math.max(widths[c] or 1, vim.fn.strdisplaywidth(rows[r][c].text))
    end
  end
  for r, cols in ipairs(rows) do
    local parts, col, marks = {}, 0, {}
    for c, cell in ipairs(cols) do
      local text, shift = padded(cell.text, widths[c], aligns[c])
      local from = col + (c > 1 and #BAR or 0) + 1
      if c > 1 then
        table.insert(marks, { col, col + #BAR, "harness9ChatTableBorder" })
      end
      if r == 1 then
        table.insert(marks, { from + shift, from + shift + #cell.text, "harness9ChatTableHeader" })
      end
      for _, span in ipairs(cell.spans) do
        table.insert(marks, { from + shift + span[1], from + shift + span[2], span[3] })
      end
      table.insert(parts, " " .. text .. " ")
      col = from + #text + 1
    end
    local line = table.concat(parts, BAR):gsub("%s+$", "")
    out.add(line, vim.tbl_filter(function(m)
      return m[2] <= #line and m[1] < m[2] -- none past the blanks cut off the end
    end, marks))
    if r == 1 then
      local rules = {}
      for c = 1, #aligns do
        rules[c] = string.rep(RULE, widths[c] + 2)
      end
      local rule = table.concat(rules, CROSS)
      out.add(rule, { { 0, #rule, "harness9ChatTableBorder" } })
    end
  end
  return row
end

-- A heading line outside a code block: the byte ranges of its opening marks (with the blank
-- after them) and of its closing ones, or nil.
local function heading_marks(line)
  local indent, marks = line:match("^( ? ? ?)(#+)%s")
  if not marks or #marks > 6 then
    return nil
  end
  local open_to = #line:match("^%s*#+%s+")
  local closing = line:find("%s+#+%s*$", open_to + 1)
  return { #indent, open_to }, closing and { closing - 1, #line } or nil
end

--- Lays out the agent's `text`: { lines, highlights = { { row, group, col, end_col, conceal? } },
--- own = { [row] = true } (rows laid out here, whose markdown highlights are these alone) }.
function M.layout(text)
  local source = require("harness9.text_lines").split(text)
  local laid = { lines = {}, highlights = {}, own = {} }
  function laid.add(line, marks, conceal_only)
    table.insert(laid.lines, line)
    local row = #laid.lines - 1
    laid.own[row] = not conceal_only or nil
    for _, m in ipairs(marks or {}) do
      table.insert(laid.highlights, { row, m[3], m[1], m[2], conceal = m.conceal })
    end
  end
  local fenced, i = false, 1
  while i <= #source do
    local line = source[i]
    local parsed, after = nil, nil
    if line:match("^%s*```") or line:match("^%s*~~~") then
      fenced = not fenced
    elseif not fenced then
      parsed, after = table_at(source, i)
    end
    if parsed then
      lay_table(parsed, #laid.lines, laid)
      i = after
    else
      local open, close = nil, nil
      if not fenced then
        open, close = heading_marks(line)
      end
      local marks = {}
      for _, range in ipairs({ open, close }) do
        table.insert(marks, { range[1], range[2], "harness9ChatMarkup", conceal = "" })
      end
      laid.add(line, marks, true)
      i = i + 1
    end
  end
  return laid
end

local cache, cached = {}, 0
local CACHE_MAX = 200

--- `M.layout(text)`, kept for the same text (the chat redraws every text at each event).
function M.cached(text)
  local hit = cache[text]
  if not hit then
    if cached >= CACHE_MAX then
      cache, cached = {}, 0
    end
    hit = M.layout(text)
    cache[text], cached = hit, cached + 1
  end
  return hit
end

return M
