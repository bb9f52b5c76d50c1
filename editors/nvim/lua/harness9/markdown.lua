-- The agent's markdown in the chat: highlights for its text (headings, bold, italic, code spans,
-- fenced code blocks), its marks concealed. On Neovim 0.10+ with the markdown tree-sitter parsers
-- (bundled since 0.10) they come from their highlight queries, code blocks in languages with a
-- parser included; elsewhere from a small line-by-line highlighter. No buffer is touched: the
-- highlights are data, placed by chat.lua.
local M = {}

--- The highlight groups of the line-by-line highlighter, linked to these unless already defined.
M.GROUPS = {
  harness9ChatHeading = "Title",
  harness9ChatCode = "String",
  harness9ChatMarkup = "Comment",
}

-- Bold and italic are attributes, not links.
M.ATTRIBUTES = {
  harness9ChatBold = "cterm=bold gui=bold",
  harness9ChatItalic = "cterm=italic gui=italic",
}

--- Whether this Neovim highlights with tree-sitter (0.10+ with the markdown parsers).
function M.treesitter()
  if M.has_treesitter == nil then
    -- A parser made is the proof: language.add() returns nothing on 0.10, nil and why on 0.11+.
    M.has_treesitter = vim.fn.has("nvim-0.10") == 1
      and pcall(vim.treesitter.get_string_parser, "x", "markdown")
      and pcall(vim.treesitter.get_string_parser, "x", "markdown_inline")
  end
  return M.has_treesitter
end

-- A highlight: { row, group, col, end_col, end_row = …, conceal = …, conceal_lines = …,
-- priority = … } (rows counted from the text's first line, 0-based; end_row defaults to row).
local function mark(out, row, group, from, to, extra)
  local hl = { row, group, from, to }
  for key, value in pairs(extra or {}) do
    hl[key] = value
  end
  table.insert(out, hl)
end

---------------------------------------------------------------------------------------------------
-- The line-by-line highlighter.

-- Inline spans: the pattern of the whole span, its delimiter's length, its group. Code first: what
-- is inside a code span is not emphasis, and `**` is bold before `*` can be italic.
local SPANS = {
  { "`[^`]+`", 1, "harness9ChatCode" },
  { "%*%*[^%*]+%*%*", 2, "harness9ChatBold" },
  { "__[^_]+__", 2, "harness9ChatBold" },
  { "%*[^%*%s][^%*]-%*", 1, "harness9ChatItalic" },
  { "%f[%w_]_[^_%s][^_]-_%f[^%w_]", 1, "harness9ChatItalic" },
}

local function taken(spans, from, to)
  for _, span in ipairs(spans) do
    if from <= span[2] and to >= span[1] then
      return true
    end
  end
  return false
end

local function inline(out, row, line)
  local spans = {}
  for _, rule in ipairs(SPANS) do
    local pattern, width, group = rule[1], rule[2], rule[3]
    local init = 1
    while true do
      local from, to = line:find(pattern, init)
      if not from then
        break
      end
      if taken(spans, from, to) then
        init = from + 1 -- its closing mark may open the next span
      else
        init = to + 1
        table.insert(spans, { from, to })
        mark(out, row, "harness9ChatMarkup", from - 1, from - 1 + width, { conceal = "" })
        mark(out, row, group, from - 1 + width, to - width)
        mark(out, row, "harness9ChatMarkup", to - width, to, { conceal = "" })
      end
    end
  end
end

--- The highlights of `lines` (the agent's text) by the line-by-line highlighter.
function M.simple(lines)
  local out, fenced = {}, false
  for i, line in ipairs(lines) do
    local row = i - 1
    if line:match("^%s*```") or line:match("^%s*~~~") then
      fenced = not fenced
      mark(out, row, "harness9ChatMarkup", 0, #line)
    elseif fenced then
      mark(out, row, "harness9ChatCode", 0, #line)
    elseif line:match("^#+%s") and #line:match("^#+") <= 6 then
      mark(out, row, "harness9ChatHeading", 0, #line)
    else
      inline(out, row, line)
    end
  end
  return out
end

---------------------------------------------------------------------------------------------------
-- Tree-sitter: the markdown parser, with markdown_inline (and code blocks' languages) injected.

local CONCEAL_LINES = vim.fn.has("nvim-0.11") == 1 -- extmarks' conceal_lines

local function capture_highlights(out, query, tree, text, lang)
  for id, node, metadata in query:iter_captures(tree:root(), text, 0, -1) do
    local name = query.captures[id]
    -- "spell", "nospell" and "_private" captures say nothing about colours.
    if not name:match("^_") and name ~= "spell" and name ~= "nospell" then
      local row, col, end_row, end_col = node:range()
      local conceal = metadata.conceal or (metadata[id] and metadata[id].conceal)
      -- A code block's fence lines are hidden whole where Neovim can (0.11+), not left blank.
      local lines = CONCEAL_LINES and metadata.conceal_lines or nil
      mark(out, row, "@" .. name .. "." .. lang, col, end_col, { end_row = end_row, conceal = conceal,
        conceal_lines = lines, priority = tonumber(metadata.priority or 100) })
    end
  end
end

--- The highlights of `text` from the tree-sitter queries, or nil when it cannot parse it.
function M.from_treesitter(text)
  local ok, parser = pcall(vim.treesitter.get_string_parser, text, "markdown")
  if not ok or not parser then
    return nil
  end
  parser:parse(true) -- with the injected trees: inline markdown, code blocks' languages
  local out = {}
  parser:for_each_tree(function(tree, ltree)
    local lang = ltree:lang()
    local query = vim.treesitter.query.get(lang, "highlights")
    if query then
      capture_highlights(out, query, tree, text, lang)
    end
  end)
  return out
end

---------------------------------------------------------------------------------------------------

-- The same text is highlighted at every redraw of the chat (each event redraws it): the last
-- results are kept, by text.
local cache, cached = {}, 0
local CACHE_MAX = 200

--- The highlights of the agent's `text` (its lines as the chat shows them, joined by "\n").
function M.highlights(text)
  local hit = cache[text]
  if hit then
    return hit
  end
  local out = M.treesitter() and M.from_treesitter(text)
    or M.simple(require("harness9.text_lines").split(text))
  if cached >= CACHE_MAX then
    cache, cached = {}, 0
  end
  cache[text], cached = out, cached + 1
  return out
end

--- Defines the line-by-line highlighter's groups (`default`: a colour scheme's win).
function M.define_highlights()
  for group, link in pairs(vim.tbl_extend("force", M.GROUPS, require("harness9.markdown_layout").GROUPS)) do
    vim.cmd(string.format("highlight default link %s %s", group, link))
  end
  for group, attributes in pairs(M.ATTRIBUTES) do
    vim.cmd(string.format("highlight default %s %s", group, attributes))
  end
end

return M
