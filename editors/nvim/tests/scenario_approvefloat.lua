-- Approvals in the focused floating window (Neovim 0.10+, the default when vim.ui.select is
-- Neovim's own): the diff of an edit_file with its keys, `a` allows it once; the command of a
-- bash call, `r` rejects it with a reason; the focus comes back; nothing is left open. Then a
-- run cancelled while its question is open: the daemon withdraws it and the float closes. Then a
-- question that comes while the user types opens in Normal mode: its keys answer it.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")

local function wait_float(what)
  h.wait_for(what, function()
    return vim.api.nvim_win_get_config(0).relative ~= ""
  end)
  local buf = vim.api.nvim_get_current_buf()
  return { filetype = vim.bo[buf].filetype, lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false) }
end

local KEYS = "[a] Allow once  [s] Allow for this session  [r] Reject  [q] Reject"

h.main(function()
  if vim.fn.has("nvim-0.10") == 0 then
    return h.skip(h.nvim_version() .. " asks with vim.ui.select (its request handlers cannot wait)")
  end
  h.setup({ approvals = { mode = "ask" } })
  local reasons = h.fake_input("not in the root, please")
  local start_win = vim.api.nvim_get_current_win()
  vim.cmd("Harness9Run change a.txt")
  h.expect_equal("the edit's question", {
    filetype = "diff",
    lines = { "--- a/a.txt", "+++ b/a.txt", "@@ -1 +1 @@", "-hello from a.txt", "+bye from a.txt", "", KEYS },
  }, wait_float("the edit's question"))
  vim.api.nvim_feedkeys("a", "x", false)
  h.expect_equal("the bash question", { filetype = "sh", lines = { "echo planted > planted.txt", "", KEYS } },
    wait_float("the bash question"))
  vim.api.nvim_feedkeys("r", "x", false)
  h.wait_for("the end of the run", function()
    return not harness9.running()
  end)
  h.expect_equal("reasons asked", { "Reason for rejecting (optional): " }, reasons)
  h.expect_equal("floating windows after the run", {}, h.floats())
  h.expect_equal("the window after the questions", start_win, vim.api.nvim_get_current_win())
  h.expect_equal("a.txt (allowed)", "bye from a.txt\n", h.workspace_file("a.txt"))
  h.expect_equal("planted.txt (rejected)", nil, h.workspace_file("planted.txt"))
  local lines = h.normalized(harness9.buffer())
  h.expect_equal("the edit's row", "  ✓ edit_file: a.txt  (allowed once, N ms)", lines[4])
  h.expect_equal("the edit's diff", { "    ┆ @@ -1 +1 @@", "    ┆ -hello from a.txt", "    ┆ +bye from a.txt" },
    vim.list_slice(lines, 5, 7))
  local next_row = 8 -- after the edit's output (the daemon's to word)
  while (lines[next_row] or ""):find("^    │ ") do
    next_row = next_row + 1
  end
  h.expect_equal("the bash row", "  ✗ bash: echo planted > planted.txt  (rejected: not in the root, please; N ms)",
    lines[next_row])

  harness9.config.run_params = { replayFile = h.replay:gsub("approvefloat%.json$", "approvecancel.json") }
  vim.cmd("Harness9Run plant a file")
  wait_float("the question of the run to cancel")
  vim.cmd("Harness9Cancel")
  h.wait_for("the run to end after the cancel", function()
    return not harness9.running()
  end)
  h.wait_for("the float to close", function()
    return #h.floats() == 0 and not require("harness9.approval").asking()
  end)
  h.expect_equal("the window after the withdrawn question", start_win, vim.api.nvim_get_current_win())
  h.expect_equal("planted.txt (never allowed)", nil, h.workspace_file("planted.txt"))

  -- A question that arrives while the user types (here from an Insert-mode key, as the daemon's
  -- request arrives while the chat's prompt line is being edited): the next key answers it.
  local float = require("harness9.approval_float")
  local picked, mode_in_question = {}, nil
  local spec = { lines = { "echo hi" }, title = " bash ", filetype = "sh", max_height = 0.5,
    options = { { id = "allow_once", label = "Allow once" }, { id = "reject", label = "Reject" } } }
  vim.cmd("enew")
  local typing_win = vim.api.nvim_get_current_win()
  vim.keymap.set("i", "<F2>", function()
    float.open(spec, function(option)
      table.insert(picked, option and option.id or "none")
    end)
  end, { buffer = 0 })
  vim.keymap.set("n", "<F3>", function()
    mode_in_question = vim.api.nvim_get_mode().mode
  end)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("ityped<F2><F3>a", true, false, true), "tx!", false)
  h.expect_equal("the answer typed while inserting", { "allow_once" }, picked)
  h.expect_equal("the mode the question was answered in", "n", mode_in_question)
  h.expect_equal("the window after it", typing_win, vim.api.nvim_get_current_win())
  h.expect_equal("the text typed before it (no key went astray)", { "typed" },
    vim.api.nvim_buf_get_lines(0, 0, -1, false))
  h.expect_equal("floating windows after it", {}, h.floats())
end)
