-- The harness9 language client: registration with lspconfig / vim.lsp.config, finding or
-- starting the daemon, and method calls that work from Neovim 0.7 to current releases.
local M = {}

M.name = "harness9"

-- Set by the plugin: handlers, and callbacks for the clients it starts (once ready, on exit).
M.handlers = {}
M.on_ready = nil
M.on_exit = nil

local has_011 = vim.fn.has("nvim-0.11") == 1

--- Calls a client method: `client:m(...)` on 0.11+, `client.m(...)` before (0.7 has no self).
function M.call(client, method, ...)
  if has_011 then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = M.name })
  end
  return vim.lsp.get_active_clients()
end

local function stopped(client)
  if has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

local function root_of(opts)
  local root = opts.root_dir
  if type(root) == "function" then
    root = root()
  end
  local path = vim.fn.fnamemodify(root or vim.fn.getcwd(), ":p")
  if #path > 1 then
    path = path:gsub("/$", "")
  end
  return path
end

--- Neovim's client capabilities plus `experimental.harness9`: `approvalRequests` (the daemon
--- asks through `agent/requestApproval`, with the diff, instead of `window/showMessageRequest`),
--- `diagnostics` and `languageFeatures` (it asks for the other language servers' problems and
--- answers, see editor.lua).
function M.capabilities()
  local harness9 = vim.tbl_extend("force", { approvalRequests = true }, require("harness9.editor").capabilities())
  return vim.tbl_deep_extend("force", vim.lsp.protocol.make_client_capabilities(),
    { experimental = { harness9 = harness9 } })
end

--- The initializationOptions: `opts.init_options` with `opts.approvals` as its `approvals`.
function M.init_options(opts)
  if opts.approvals == nil then
    return opts.init_options
  end
  return vim.tbl_extend("force", opts.init_options or {}, { approvals = opts.approvals })
end

--- The client config for `opts` (cmd, cmd_env, init_options, approvals, root_dir), as start_client
--- takes it. On 0.11+ it is the resolved `vim.lsp.config.harness9` (the plugin's lsp/harness9.lua,
--- the user's vim.lsp.config and setup's registration) with the root of `opts`.
function M.config(opts)
  local root = root_of(opts)
  local config
  if has_011 and vim.lsp.config then
    config = vim.deepcopy(vim.lsp.config[M.name] or {})
  else
    config = {
      cmd = opts.cmd,
      cmd_env = opts.cmd_env,
      init_options = M.init_options(opts),
      settings = { harness9 = opts.settings or vim.empty_dict() },
      capabilities = M.capabilities(),
      handlers = M.handlers,
    }
  end
  config.name = M.name
  config.root_dir = root
  config.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  return config
end

-- The fields of the registration: what the user gave to setup() (`given`), so that setup({}) keeps
-- a cmd or init_options set with vim.lsp.config, plus the plugin's capability and handlers.
local function registration(opts, given)
  local fields = { capabilities = M.capabilities(), handlers = M.handlers }
  if given.cmd ~= nil then
    fields.cmd = opts.cmd
  end
  if given.cmd_env ~= nil then
    fields.cmd_env = opts.cmd_env
  end
  if given.init_options ~= nil or given.approvals ~= nil then
    fields.init_options = M.init_options(opts)
  end
  if given.settings ~= nil then
    fields.settings = { harness9 = opts.settings }
  end
  return fields
end

--- Registers the server: `vim.lsp.config("harness9")` on 0.11+ (merged over the plugin's
--- lsp/harness9.lua), else lspconfig's `configs.harness9` when lspconfig is installed, so
--- `vim.lsp.enable` / `lspconfig.harness9.setup{}` can start it. `given`: the options as passed.
function M.register(opts, given)
  given = given or opts
  if has_011 and vim.lsp.config then
    vim.lsp.config(M.name, registration(opts, given))
    return
  end
  local ok, configs = pcall(require, "lspconfig.configs")
  if not ok or type(configs) ~= "table" or configs[M.name] then
    return
  end
  local util = require("lspconfig.util")
  configs[M.name] = {
    default_config = {
      cmd = opts.cmd,
      cmd_env = opts.cmd_env,
      init_options = M.init_options(opts),
      capabilities = M.capabilities(),
      handlers = M.handlers,
      root_dir = function(fname)
        return util.root_pattern(".git")(fname) or vim.fn.getcwd()
      end,
    },
    docs = { description = "harness9: a coding agent daemon speaking LSP (agent/run, agent/progress)." },
  }
end

--- A running harness9 client for this root (started by us, lspconfig or vim.lsp.enable), or nil.
function M.find(opts)
  local root = root_of(opts)
  for _, client in ipairs(all_clients()) do
    if client.name == M.name and not stopped(client) then
      if client.config.root_dir == nil or root_of({ root_dir = client.config.root_dir }) == root then
        return client
      end
    end
  end
  return nil
end

--- Starts an LSP client of `config` attached to no buffer, a new one even when one for the same
--- root runs; returns its id (nil when it could not start).
function M.start_detached(config)
  if has_011 then
    return vim.lsp.start(config, { attach = false, reuse_client = function()
      return false
    end })
  end
  return vim.lsp.start_client(config)
end

-- Roots whose client is starting (not listed among the clients before it is initialized): the
-- callbacks waiting for it, so that two commands in a row start one daemon, not two.
local starting = {}

--- Starts a client for `opts`; `on_ready(client)` runs once it is initialized.
local function start(opts, on_ready)
  local config = M.config(opts)
  local root = root_of(opts)
  starting[root] = { on_ready }
  config.on_init = function(client)
    if opts.settings then
      M.call(client, "notify", "workspace/didChangeConfiguration", { settings = { harness9 = opts.settings } })
    end
    vim.schedule(function()
      local waiting = starting[root] or { on_ready }
      starting[root] = nil
      if M.on_ready then
        M.on_ready(client)
      end
      for _, ready in ipairs(waiting) do
        ready(client)
      end
    end)
  end
  config.on_exit = function(code, signal, client_id)
    starting[root] = nil
    if M.on_exit then
      vim.schedule(function()
        M.on_exit(code, signal, client_id)
      end)
    end
  end
  local id = M.start_detached(config)
  if not id then
    starting[root] = nil
    error("could not start " .. table.concat(opts.cmd, " "), 0)
  end
  return id
end

--- Calls `on_ready(client)` with an initialized client, starting the daemon if needed.
function M.with_client(opts, on_ready)
  local client = M.find(opts)
  if client and client.initialized then
    return on_ready(client)
  end
  if client then
    -- Started elsewhere and still initializing: poll until it is ready.
    local timer = vim.loop.new_timer()
    timer:start(20, 20, vim.schedule_wrap(function()
      if client.initialized or stopped(client) then
        timer:stop()
        timer:close()
        if client.initialized then
          on_ready(client)
        end
      end
    end))
    return
  end
  local waiting = starting[root_of(opts)]
  if waiting then
    table.insert(waiting, on_ready) -- ours, still starting
    return
  end
  start(opts, on_ready)
end

return M
