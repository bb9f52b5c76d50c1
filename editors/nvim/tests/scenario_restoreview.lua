-- A session resumed into the chat reads as it did live. Under approvals "ask": an edit allowed
-- for the session, a command rejected, a read that fails, then a command that writes a file and
-- exits 3 (allowed once). The chat's lines after the run are kept; the daemon is stopped, a new
-- one started, :Harness9Sessions resumes the session into a new chat, and its lines must be the
-- same (durations included: the stored outcome keeps them).
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local chat = require("harness9.chat")

-- The chat's lines without what a stored session does not keep: the context fill of the header
-- and the token counts of the footer (the run's usage).
local function chat_lines()
  local lines = vim.api.nvim_buf_get_lines(chat.find(), 0, -1, false)
  for i, line in ipairs(lines) do
    lines[i] = line:gsub("^(harness9 chat · session %S+) · context .*$", "%1"):gsub(" · [%d,]+ in / [%d,]+ out tokens$", "")
  end
  return lines
end

local function live_run()
  h.setup({ approvals = { mode = "ask" } })
  local asked = h.fake_select({ "Allow for this session", "Reject", "Allow once" })
  h.fake_input("keep it")
  harness9.chat()
  vim.api.nvim_feedkeys("Aedit, clean up and build\r", "tx", false)
  h.wait_idle("the run")
  vim.cmd("stopinsert")
  h.expect_equal("questions", 3, #asked)
  h.expect_equal("a.txt (allowed)", "bye from a.txt\n", h.workspace_file("a.txt"))
  h.expect_equal("built.txt (allowed once)", "built\n", h.workspace_file("built.txt"))
  return chat_lines()
end

-- A new daemon, as after a restart of Neovim: it reads the session from its file.
local function restart_daemon()
  for _, client in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    vim.lsp.stop_client(client.id)
  end
  h.wait_for("the daemon to stop", function()
    return #(vim.lsp.get_clients or vim.lsp.get_active_clients)() == 0
  end)
end

local function resumed()
  vim.cmd("Harness9Chat!")
  vim.cmd("stopinsert")
  local asked = h.fake_select({ 1, "Resume" })
  vim.cmd("Harness9Sessions")
  h.wait_for("the resumed session", function()
    return #asked == 2 and (chat_lines()[4] or "") == "edit, clean up and build"
  end)
  vim.wait(50) -- the scheduled redraw
  return chat_lines()
end

h.main(function()
  local live = live_run()
  restart_daemon()
  local shown = resumed()
  h.expect_lines("the resumed chat", live, shown)
  -- What the rows say, spelt out once: the session shown again is not merely as poor as the live one.
  h.expect_lines("the rows", {
    "Editing, cleaning up, reading.",
    "  ✓ edited a.txt +1 −1 · allowed for the session · N ms",
    "    ┆ @@ -1 +1 @@",
    "    ┆ -hello from a.txt",
    "    ┆ +bye from a.txt",
    "  ✗ `rm a.txt` rejected: keep it · N ms", -- the user's reason, once
    "  ✗ could not read missing.txt (failed) · N ms",
    "Now the build.",
    "  ✗ ran `echo built > built.txt; exit 3` · exit 3 · allowed once · N ms · <sandbox>",
    "    + built.txt",
    "The build wrote built.txt and failed with exit 3.",
    "  ── done · 3 turns · 4 tool calls",
  }, vim.list_slice(h.normalized(chat.find()), 7, 18))
end)
