-- Plain Neovim (no harness9 plugin): an instruction comment (`# harness9: …`) is offered as a code
-- action on its line; picked, the run does it and the comment is removed from the buffer and the
-- file once the run succeeded.
local plain = dofile(os.getenv("H9_TESTS") .. "/plain.lua")
local h = plain.h

local BEFORE = { "# harness9: add mean(items) below total, built on it", "def total(items):", "    return sum(items)" }
local AFTER = { "def total(items):", "    return sum(items)", "", "", "def mean(items):",
  "    return total(items) / len(items)" }

h.main(function()
  local ok, why = plain.check()
  if not ok then
    return h.skip(why)
  end
  local buf = plain.open("stats.py", BEFORE, "yolo")
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local title = "harness9: add mean(items) below total, built on it"
  plain.expect_listed("the code actions", title .. " [harness9]", plain.pick_action(title))
  local message = plain.wait_finished(1)
  h.expect_equal("the closing message", "harness9 (completed): Added mean(items), built on total.",
    message:match("^(.-) — the whole run: "))
  h.wait_for("the run's edit without the comment in the buffer", function()
    return vim.deep_equal(vim.api.nvim_buf_get_lines(buf, 0, -1, false), AFTER)
  end)
  h.expect_equal("stats.py", table.concat(AFTER, "\n") .. "\n", h.workspace_file("stats.py"))
  local _, transcript = plain.transcript()
  if not table.concat(transcript, "\n"):find("removed the instruction comment from stats.py", 1, true) then
    error("the transcript does not note the comment's removal:\n" .. table.concat(transcript, "\n"))
  end
end)
