-- Plain Neovim (no plugin) with the daemon on "another machine": `vim.lsp.start` with `ssh host
-- harness9 serve` and `pathMap`; a run with `harness9.run`, its questions through
-- `window/showMessageRequest`.
local remote = dofile(os.getenv("H9_TESTS") .. "/remote.lua")
local plain = dofile(os.getenv("H9_TESTS") .. "/plain.lua")
local h = remote.h

h.main(function()
  if vim.fn.has("nvim-0.11") == 0 then
    return h.skip("plain vim.lsp.start with client:exec_cmd needs Neovim 0.11+; this is " .. h.nvim_version())
  end
  plain.record_notes()
  local buf = remote.open_with_typing()
  local id = vim.lsp.start({
    name = "harness9",
    cmd = remote.cmd(),
    root_dir = remote.here,
    init_options = { provider = "replay", replayFile = h.replay, approvals = { mode = "ask" },
      pathMap = remote.path_map() },
  })
  h.wait_for("the daemon to start", function()
    local client = vim.lsp.get_client_by_id(id)
    return client ~= nil and client.initialized
  end)
  local asked = h.fake_select({ "Allow once", "Allow once" })
  vim.lsp.get_client_by_id(id):exec_cmd({ title = "harness9", command = "harness9.run",
    arguments = { { prompt = "edit a.txt", uri = vim.uri_from_bufnr(buf) } } }, { bufnr = buf })
  local message = plain.wait_finished(1)
  h.expect_equal("the closing message", "harness9 (completed): Edited in your buffer, from the other side.",
    message:match("^(.-) — the whole run: "))
  h.expect_equal("questions", 2, #asked)
  remote.check_done(buf)
end)
