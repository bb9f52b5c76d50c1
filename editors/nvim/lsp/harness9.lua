-- The harness9 server for Neovim 0.11+'s own LSP configuration: with this plugin on the
-- runtimepath, `vim.lsp.enable("harness9")` starts `harness9 serve` for file buffers (no
-- nvim-lspconfig needed), rooted at the buffer's repository or the current directory.
-- Override any field with `vim.lsp.config("harness9", { cmd = …, init_options = … })`.
return {
  cmd = { "harness9", "serve" },
  root_dir = function(bufnr, on_dir)
    on_dir(vim.fs.root(bufnr, { ".git" }) or vim.fn.getcwd())
  end,
  -- The daemon asks for approvals with agent/requestApproval (a diff or command preview)
  -- instead of window/showMessageRequest.
  capabilities = { experimental = { harness9 = { approvalRequests = true } } },
  handlers = {
    ["agent/requestApproval"] = function(...)
      return require("harness9.approval").handler(...)
    end,
    ["$/cancelRequest"] = function(...)
      return require("harness9.approval").on_cancel(...)
    end,
  },
}
