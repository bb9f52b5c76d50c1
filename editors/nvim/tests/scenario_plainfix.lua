-- Plain Neovim (no harness9 plugin): ruff reports a real error, `vim.lsp.buf.code_action()` lists
-- "Fix with harness9: …" beside ruff's own actions, the picker's answer starts the run
-- (`harness9.fix`), the agent's edit reaches the buffer and the file, the run ends with a
-- `window/showMessage` naming its transcript, which `window/showDocument` opened in a window.
-- Neovim sends each server only its own diagnostics, so the call passes every diagnostic of the
-- line (the README's mapping).
local plain = dofile(os.getenv("H9_TESTS") .. "/plain.lua")
local h = plain.h

local BROKEN = { "def total(items):", "    return sum(item for item in itemz)" }
local FIXED = { "def total(items):", "    return sum(item for item in items)" }

h.main(function()
  local ok, why = plain.check()
  if not ok then
    return h.skip(why)
  end
  local buf = plain.open("total.py", BROKEN, "yolo")
  h.wait_for("ruff's diagnostic", function()
    return #vim.diagnostic.get(buf, { lnum = 1 }) > 0
  end)
  local problem = vim.diagnostic.get(buf, { lnum = 1 })[1]
  h.expect_equal("ruff's problem", { "Ruff", "F821", "Undefined name `itemz`" },
    { problem.source, problem.code, problem.message })
  vim.api.nvim_win_set_cursor(0, { 2, 32 })
  local title = "Fix with harness9: Undefined name `itemz`"
  local labels = plain.pick_action(title, { context = {
    diagnostics = vim.lsp.diagnostic.from(vim.diagnostic.get(buf, { lnum = 1 })) } })
  plain.expect_listed("the code actions", title .. " [harness9]", labels)
  plain.expect_listed("ruff's own actions beside", "Ruff (F821): Disable for this line [ruff]", labels)

  local message = plain.wait_finished(1)
  if not message:find("^harness9 %(completed%): Fixed: `itemz` was a typo of `items`%. — the whole run: /") then
    error("the closing message: " .. message)
  end
  h.wait_for("the fix in the buffer", function()
    return vim.deep_equal(vim.api.nvim_buf_get_lines(buf, 0, -1, false), FIXED)
  end)
  h.expect_equal("total.py", table.concat(FIXED, "\n") .. "\n", h.workspace_file("total.py"))
  h.wait_for("ruff to see the fix", function()
    return #vim.diagnostic.get(buf) == 0
  end)
  local name, transcript = plain.transcript()
  if not name or not message:find(name, 1, true) then
    error("the transcript was not opened, or is not the one the message names: " .. tostring(name))
  end
  local text = table.concat(transcript, "\n")
  for _, want in ipairs({ "> Fix this problem in total.py", "Undefined name `itemz` (Ruff F821)", "edit_file: total.py",
    "**completed**" }) do
    if not text:find(want, 1, true) then
      error("the transcript lacks " .. want .. ":\n" .. text)
    end
  end
end)
