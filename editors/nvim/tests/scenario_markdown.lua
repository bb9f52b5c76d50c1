-- The agent's markdown in the chat, against the real daemon: its heading, bold, italic, code span
-- and fenced code block carry highlights, and the marks (**, *, `) are concealed. Neovim 0.10+
-- highlights with the markdown tree-sitter parsers it bundles (the lua block with lua's); 0.7
-- with the plugin's line-by-line highlighter. The text itself stays as the model wrote it.
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

h.main(function()
  h.setup({})
  local buf = harness9.chat()
  vim.api.nvim_feedkeys("Aexplain\r", "tx", false)
  h.wait_idle("the run")
  local lines = h.normalized(buf)
  h.expect_equal("the agent's text as written", { "## Done", "Some **bold**, *italic* and `code`.", "```lua",
    "local x = 1", "```", "The end." }, vim.list_slice(lines, 7, 12))
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
end)
