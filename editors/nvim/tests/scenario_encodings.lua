-- The agent edits, through the editor, open files whose bytes the buffer does not show as they
-- are: a UTF-8 BOM (kept out of the buffer text by 'bomb'), CRLF line endings ('fileformat=dos'
-- keeps the CR out of the lines), both, and neither; the edit turns a line into two. The disk
-- keeps its BOM and line endings; the buffer shows the edit (no BOM, no CR in its lines, 'bomb'
-- and 'fileformat' unchanged), is unmodified, and the first `u` undoes the edit.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")

local BOM = "\239\187\191"
local FILES = {
  { name = "plain.txt", bomb = false, fileformat = "unix" },
  { name = "bom.txt", bomb = true, fileformat = "unix" },
  { name = "dos.txt", bomb = false, fileformat = "dos" },
  { name = "both.txt", bomb = true, fileformat = "dos" },
}

local function bytes(file, lines)
  local eol = file.fileformat == "dos" and "\r\n" or "\n"
  return (file.bomb and BOM or "") .. table.concat(lines, eol) .. eol
end

-- What a buffer shows of its file: its lines and the options that say how they are written.
local function shown(buf)
  return { lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false), bomb = vim.bo[buf].bomb,
    fileformat = vim.bo[buf].fileformat }
end

h.main(function()
  for _, file in ipairs(FILES) do
    h.write_workspace_file(file.name, bytes(file, { "alpha", "beta" }))
  end
  h.setup({})
  for _, file in ipairs(FILES) do
    vim.cmd("edit " .. vim.fn.fnameescape(h.workspace .. "/" .. file.name))
    file.buf = vim.api.nvim_get_current_buf()
    h.expect_equal(file.name .. " opened", { lines = { "alpha", "beta" }, bomb = file.bomb,
      fileformat = file.fileformat }, shown(file.buf))
  end
  vim.cmd("Harness9Run edit the three files")
  vim.wait(20)
  h.wait_for("the end of the run", function()
    return not harness9.running()
  end)
  for _, file in ipairs(FILES) do
    h.expect_equal(file.name .. " on disk", bytes(file, { "alpha", "gamma", "delta" }), h.workspace_file(file.name))
    h.expect_equal(file.name .. " in its buffer", { lines = { "alpha", "gamma", "delta" }, bomb = file.bomb,
      fileformat = file.fileformat }, shown(file.buf))
    h.expect_equal(file.name .. " saved", false, vim.bo[file.buf].modified)
    vim.api.nvim_set_current_buf(file.buf)
    vim.cmd("normal! u")
    h.expect_equal(file.name .. " after u", { "alpha", "beta" }, vim.api.nvim_buf_get_lines(file.buf, 0, -1, false))
  end
end)
