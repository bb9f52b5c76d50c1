-- The plugin with the daemon on "another machine": `ssh host harness9 serve` as its command and
-- `pathMap` in init_options. The agent reads the unsaved buffer, edits it (asked first: the
-- question arrives over ssh and is answered here), runs bash on the remote side.
local remote = dofile(os.getenv("H9_TESTS") .. "/remote.lua")
local h = remote.h
local harness9 = require("harness9")

h.main(function()
  h.setup({ cmd = remote.cmd(), approvals = { mode = "ask" },
    init_options = { pathMap = remote.path_map() } })
  local asked = h.fake_select({ "Allow once", "Allow once" })
  local buf = remote.open_with_typing()
  vim.cmd("Harness9Run edit a.txt")
  h.wait_for("the end of the run", function()
    return not harness9.running()
  end)
  h.expect_equal("questions", { "harness9 asks to run edit_file: a.txt", "harness9 asks to run bash: pwd > where.txt" },
    vim.tbl_map(function(q) return q.prompt end, asked))
  local shown = table.concat(vim.api.nvim_buf_get_lines(harness9.buffer(), 0, -1, false), "\n")
  if not shown:find("typed, not saved", 1, true) then
    h.fail("read_file should have shown the unsaved line of the buffer")
  end
  remote.check_done(buf)
end)
