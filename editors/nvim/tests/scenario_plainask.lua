-- Plain Neovim (no harness9 plugin): a prompt run with `client:exec_cmd` (`harness9.run`) in the
-- `ask` approval mode; the command the agent wants to run is asked with
-- `window/showMessageRequest`, which Neovim shows with `vim.ui.select`; "Allow once" runs it.
local plain = dofile(os.getenv("H9_TESTS") .. "/plain.lua")
local h = plain.h

h.main(function()
  local ok, why = plain.check()
  if not ok then
    return h.skip(why)
  end
  local buf, daemon = plain.open("total.py", { "def total(items):", "    return sum(items)" }, "ask")
  local asked = h.fake_select({ "Allow once" })
  daemon:exec_cmd({ title = "harness9", command = "harness9.run",
    arguments = { { prompt = "count the Python files into count.txt" } } }, { bufnr = buf })
  local message = plain.wait_finished(1)
  h.expect_equal("the closing message", "harness9 (completed): There is 1 Python file; count.txt says so.",
    message:match("^(.-) — the whole run: "))
  h.expect_equal("questions", 1, #asked)
  h.expect_equal("the question", "harness9 asks to run bash: ls *.py | wc -l > count.txt: ", asked[1].prompt)
  h.expect_equal("its answers", { "Allow once", "Allow for this session", "Reject" }, asked[1].labels)
  h.expect_equal("count.txt", "1\n", h.workspace_file("count.txt"))
end)
