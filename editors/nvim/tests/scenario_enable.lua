-- Neovim 0.11+ the native way: with only the plugin on the runtimepath (no setup(), no
-- lspconfig), vim.lsp.config + vim.lsp.enable("harness9") start the daemon for a file buffer from
-- the plugin's lsp/harness9.lua (root, harness9 capabilities and handlers); stock LspProgress
-- fires; then setup({}) keeps the user's cmd and :Harness9Run reuses that client.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")

local function clients()
  return vim.lsp.get_clients({ name = "harness9" })
end

h.main(function()
  if vim.fn.has("nvim-0.11") == 0 then
    return h.skip(h.nvim_version() .. " has no vim.lsp.enable (0.11+)")
  end
  vim.cmd("filetype on") -- vim.lsp.enable starts servers on FileType (-u NONE leaves it off)
  vim.cmd("cd " .. vim.fn.fnameescape(h.workspace))
  local progress = 0
  vim.api.nvim_create_autocmd("LspProgress", { callback = function()
    progress = progress + 1
  end })
  vim.lsp.config("harness9", {
    cmd = { h.daemon, "serve" },
    init_options = { provider = "replay", replayFile = h.replay, approvals = { mode = "yolo" } },
  })
  vim.lsp.enable("harness9")
  vim.cmd("edit a.txt")
  local client
  h.wait_for("vim.lsp.enable to start the daemon for a.txt", function()
    client = vim.lsp.get_clients({ bufnr = 0, name = "harness9" })[1]
    return client ~= nil and client.initialized
  end)
  h.expect_equal("the root (no .git: the current directory)", vim.fn.getcwd(), client.config.root_dir)
  h.expect_equal("the harness9 capabilities", { approvalRequests = true, diagnostics = true,
    languageFeatures = { "definition", "references", "symbols", "hover", "rename" } },
    client.config.capabilities.experimental.harness9)
  for _, method in ipairs({ "agent/requestApproval", "harness9/diagnostics", "harness9/languageQuery" }) do
    h.expect_equal("the handler of " .. method, "function", type(client.config.handlers[method]))
  end
  local reply
  client:request("agent/run", { prompt = "read it" }, function(err, result)
    reply = err or result
  end)
  h.wait_for("the run's reply", function()
    return reply ~= nil
  end)
  h.expect_equal("the reply", { status = "completed", text = "It says hello." },
    { status = reply.status, text = reply.text })
  h.wait_for("stock LspProgress events", function()
    return progress > 0
  end)
  -- setup({}) after vim.lsp.config keeps the user's cmd; the commands reuse the running client.
  require("harness9").setup({})
  h.expect_equal("the registered cmd", { h.daemon, "serve" }, vim.lsp.config.harness9.cmd)
  vim.cmd("Harness9Run! read it again")
  h.wait_for("the second run", function()
    return not require("harness9").running()
  end)
  h.expect_equal("harness9 clients", 1, #clients())
  local lines = h.normalized(require("harness9").buffer())
  h.expect_equal("the run buffer's last line", "■ completed · 2 turns · 1 tool call · N in / N out tokens",
    lines[#lines])
end)
