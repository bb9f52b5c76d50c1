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
  -- instead of window/showMessageRequest; after each edit it asks for the problems the other
  -- language servers report (harness9/diagnostics), and it may ask those servers for
  -- definitions, references, symbols, hovers and renames (harness9/languageQuery).
  capabilities = { experimental = { harness9 = {
    approvalRequests = true,
    diagnostics = true,
    languageFeatures = { "definition", "references", "symbols", "hover", "rename" },
  } } },
  on_init = function()
    require("harness9.editor").track()
  end,
  handlers = {
    ["agent/requestApproval"] = function(...)
      return require("harness9.approval").handler(...)
    end,
    ["$/cancelRequest"] = function(...)
      return require("harness9.approval").on_cancel(...)
    end,
    ["harness9/diagnostics"] = function(...)
      return require("harness9.editor").on_diagnostics(...)
    end,
    ["harness9/languageQuery"] = function(...)
      return require("harness9.editor").on_language_query(...)
    end,
  },
}
