-- The agent's markdown in the chat, against the real daemon: its headings, bold, italic, code
-- span and fenced code block carry highlights, and the marks (#, **, *, `) are concealed. Neovim
-- 0.10+ highlights with the markdown tree-sitter parsers it bundles (the lua block with lua's); 0.7
-- with the plugin's line-by-line highlighter. The text stays as the model wrote it but for its
-- pipe table, laid out in aligned columns under a rule, its cells' marks taken out and their
-- bold, italic and code highlighted. The run buffer shows the same table, and its syntax conceals
-- a heading's marks (not a `#` line inside a code block).
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local markdown = require("harness9.markdown")

local ns = vim.api.nvim_create_namespace("harness9.chat")

-- The extmarks of the chat covering (row, col), 0-based: { group = conceal or true }.
local function marks_at(buf, row, col)
  local found = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    local r, c, d = m[2], m[3], m[4]
    local end_row, end_col = d.end_row or r, d.end_col or c
    local after_start = row > r or (row == r and col >= c)
    local before_end = row < end_row or (row == end_row and col < end_col)
    if d.hl_group and after_start and before_end then
      found[d.hl_group] = d.conceal or true
    end
  end
  return found
end

-- The 0-based row of `line` in the chat and the column of `text` in it.
local function position(buf, line, text)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l == line then
      return i - 1, l:find(text, 1, true) - 1
    end
  end
  h.fail("no line " .. line .. " in the chat")
end

-- Fails unless the chat highlights `text` on `line` with `group` (conceal: its value too).
local function expect_group(buf, line, text, group, conceal)
  local row, col = position(buf, line, text)
  local found = marks_at(buf, row, col)
  local got = found[group]
  if got == nil or (conceal ~= nil and got ~= conceal) then
    h.fail(string.format("%q in %q: want %s%s, got %s", text, line, group,
      conceal and (" concealed as " .. vim.inspect(conceal)) or "", vim.inspect(found)))
  end
end

-- The table as laid out: columns as wide as their widest cell, aligned as the delimiter row says.
local TABLE = {
  " File │ Lines │ Note",
  "──────┼───────┼───────",
  " a.py │    12 │ new",
  " b.py │ 1,024 │ moved",
}

local function check_headings_and_table(buf)
  -- Every heading's marks are concealed, a `#` line in a code block is no heading.
  local hidden = markdown.treesitter() and "" or nil -- 0.7 does not list an extmark's conceal
  expect_group(buf, "### Files", "### ", "harness9ChatMarkup", hidden)
  expect_group(buf, "## Done", "## ", "harness9ChatMarkup", hidden)
  expect_group(buf, "### Files", "Files", markdown.treesitter() and "@markup.heading.3.markdown" or "harness9ChatHeading")
  local row, col = position(buf, "# a comment, not a heading", "#")
  h.expect_equal("no heading in a code block", nil, marks_at(buf, row, col).harness9ChatMarkup)
  -- The table: its header, rules and bars, and its cells' marks as highlights.
  expect_group(buf, TABLE[1], "File", "harness9ChatTableHeader")
  expect_group(buf, TABLE[1], "Lines", "harness9ChatTableHeader")
  expect_group(buf, TABLE[1], "│", "harness9ChatTableBorder")
  expect_group(buf, TABLE[2], "┼", "harness9ChatTableBorder")
  expect_group(buf, TABLE[3], "a.py", "harness9ChatCode")
  expect_group(buf, TABLE[3], "new", "harness9ChatBold")
  expect_group(buf, TABLE[4], "moved", "harness9ChatItalic")
  h.expect_equal("a plain cell", {}, marks_at(buf, position(buf, TABLE[4], "b.py")))
end

local function check_run_buffer()
  local run = harness9.buffer()
  h.expect_equal("the run buffer's filetype", "harness9", vim.bo[run].filetype)
  vim.cmd("sbuffer " .. run)
  h.expect_equal("the run window conceals", 2, vim.wo.conceallevel)
  local lines = vim.api.nvim_buf_get_lines(run, 0, -1, false)
  local function syntax_at(line, text)
    for i, l in ipairs(lines) do
      if l == line then
        local col = l:find(text, 1, true)
        local id = vim.fn.synID(i, col, 1)
        return { vim.fn.synIDattr(id, "name"), vim.fn.synconcealed(i, col)[1] }
      end
    end
    h.fail("no line " .. line .. " in the run buffer: " .. vim.inspect(lines))
  end
  h.expect_equal("the run buffer's table", TABLE, vim.list_slice(lines, 9, 12))
  h.expect_equal("a heading's marks", { "harness9HeadingMark", 1 }, syntax_at("### Files", "#"))
  h.expect_equal("a heading's text", { "harness9Heading", 0 }, syntax_at("### Files", "Files"))
  h.expect_equal("a table's rule", "harness9TableRule", syntax_at(TABLE[2], "┼")[1])
  h.expect_equal("a # line in a code block", { "harness9Code", 0 }, syntax_at("# a comment, not a heading", "#"))
  h.expect_equal("the row after the run", "harness9Done", syntax_at(lines[#lines], "■")[1])
  -- A code block the agent left open ends at the next row of the run, which keeps its colour.
  local scratch = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, { "── turn 1", "```sh", "# x", "  ✓ bash: ls  (1 ms)" })
  vim.cmd("sbuffer " .. scratch)
  vim.bo[scratch].filetype = "harness9"
  h.expect_equal("after an open code block", { "harness9Code", "harness9Ok" },
    { vim.fn.synIDattr(vim.fn.synID(3, 1, 1), "name"), vim.fn.synIDattr(vim.fn.synID(4, 3, 1), "name") })
end

h.main(function()
  vim.cmd("syntax on") -- as in a user's configuration: before the plugin's buffers exist
  h.setup({})
  local buf = harness9.chat()
  vim.api.nvim_feedkeys("Aexplain\r", "tx", false)
  h.wait_idle("the run")
  local lines = h.normalized(buf)
  h.expect_equal("the agent's text as written, its table laid out", { "## Done", "Some **bold**, *italic* and `code`.",
    "```lua", "local x = 1", "```", "### Files", TABLE[1], TABLE[2], TABLE[3], TABLE[4], "```sh",
    "# a comment, not a heading", "```", "The end." }, vim.list_slice(lines, 7, 20))
  h.expect_equal("the chat window conceals", 2, vim.wo.conceallevel)
  local body = "Some **bold**, *italic* and `code`."
  if markdown.treesitter() then
    expect_group(buf, "## Done", "Done", "@markup.heading.2.markdown")
    expect_group(buf, body, "bold", "@markup.strong.markdown_inline")
    expect_group(buf, body, "italic", "@markup.italic.markdown_inline")
    expect_group(buf, body, "code", "@markup.raw.markdown_inline")
    expect_group(buf, body, "**", "@conceal.markdown_inline", "")
    expect_group(buf, body, "`", "@conceal.markdown_inline", "")
    expect_group(buf, "local x = 1", "x", "@markup.raw.block.markdown")
    expect_group(buf, "local x = 1", "local", "@keyword.lua") -- the block's language, injected
  else
    h.expect_equal("tree-sitter on " .. h.nvim_version(), false, vim.fn.has("nvim-0.10") == 1)
    expect_group(buf, "## Done", "Done", "harness9ChatHeading")
    expect_group(buf, body, "bold", "harness9ChatBold")
    expect_group(buf, body, "italic", "harness9ChatItalic")
    expect_group(buf, body, "code", "harness9ChatCode")
    expect_group(buf, body, "**", "harness9ChatMarkup")
    expect_group(buf, body, "`", "harness9ChatMarkup")
    expect_group(buf, "local x = 1", "x", "harness9ChatCode")
    expect_group(buf, "```lua", "lua", "harness9ChatMarkup")
  end
  h.expect_equal("the plain last line", {}, marks_at(buf, position(buf, "The end.", "The")))
  check_headings_and_table(buf)
  check_run_buffer()
end)
