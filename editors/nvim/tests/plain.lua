-- What the plain-client scenarios (tests/scenario_plain*.lua) share: Neovim without the harness9
-- plugin (test.sh leaves it off the runtimepath), the daemon started with `vim.lsp.start` as the
-- README's "Helix, Zed, Sublime, Kate, Kakoune" section says for any LSP client, beside a real
-- ruff server; what the daemon shows (`window/showMessage`) is recorded from `vim.notify`.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local M = { h = h, notes = {} }

M.RUFF = os.getenv("H9_RUFF")

--- Fails unless Neovim runs without the plugin and can start a client with `vim.lsp.start`.
function M.check()
  if vim.fn.has("nvim-0.11") == 0 then
    return false, "plain vim.lsp.start with client:exec_cmd needs Neovim 0.11+; this is " .. h.nvim_version()
  end
  if #vim.api.nvim_get_runtime_file("lua/harness9/init.lua", true) > 0 then
    error("the harness9 plugin is on the runtimepath: these scenarios run without it")
  end
  if not M.RUFF or vim.fn.executable(M.RUFF) == 0 then
    error("H9_RUFF is not ruff's executable (test.sh sets it): " .. tostring(M.RUFF))
  end
  return true
end

--- Records every vim.notify (the daemon's `window/showMessage` arrives through it).
function M.record_notes()
  local notify = vim.notify
  vim.notify = function(message, level, opts)
    table.insert(M.notes, message)
    return notify(message, level, opts)
  end
end

--- The harness9 messages shown so far ("harness9 (completed): …").
function M.finished()
  local found = {}
  for _, note in ipairs(M.notes) do
    local message = note:match("^LSP%[harness9%] (harness9 %(.*)$")
    if message then
      table.insert(found, message)
    end
  end
  return found
end

--- Opens `name` (written with `lines` first) and starts the daemon and ruff on it with plain
--- `vim.lsp.start`; `approvals`: the daemon's approval mode. Returns the buffer, the daemon's
--- client and ruff's.
function M.open(name, lines, approvals)
  M.record_notes()
  h.write_workspace_file(name, table.concat(lines, "\n") .. "\n")
  vim.cmd("edit " .. vim.fn.fnameescape(h.workspace .. "/" .. name))
  local buf = vim.api.nvim_get_current_buf()
  local daemon = vim.lsp.start({
    name = "harness9",
    cmd = { h.daemon, "serve" },
    root_dir = h.workspace,
    init_options = { provider = "replay", replayFile = h.replay, approvals = { mode = approvals } },
  })
  local ruff = vim.lsp.start({ name = "ruff", cmd = { M.RUFF, "server" }, root_dir = h.workspace })
  h.wait_for("both servers to start", function()
    local a, b = vim.lsp.get_client_by_id(daemon), vim.lsp.get_client_by_id(ruff)
    return a ~= nil and a.initialized and b ~= nil and b.initialized
  end)
  local caps = vim.lsp.get_client_by_id(daemon).server_capabilities
  h.expect_equal("the daemon's commands", { "harness9.cancel", "harness9.fix", "harness9.run", "harness9.transcript" },
    vim.fn.sort(vim.deepcopy(caps.executeCommandProvider.commands)))
  return buf, vim.lsp.get_client_by_id(daemon), vim.lsp.get_client_by_id(ruff)
end

--- Waits for the `count`th harness9 message and returns it.
function M.wait_finished(count)
  h.wait_for("the run's closing message", function()
    return #M.finished() >= count
  end)
  return M.finished()[count]
end

--- Calls `vim.lsp.buf.code_action(opts)` and picks, as a person in the picker would, the action
--- titled `want` (Neovim lists it as "TITLE [server]"). Returns the picker's labels.
function M.pick_action(want, opts)
  local labels
  vim.ui.select = function(items, select_opts, on_choice)
    labels = vim.tbl_map(select_opts.format_item or tostring, items)
    vim.schedule(function()
      for i, label in ipairs(labels) do
        if label == want .. " [harness9]" then
          return on_choice(items[i], i)
        end
      end
      on_choice(nil, nil)
    end)
  end
  vim.lsp.buf.code_action(opts)
  h.wait_for("the code action menu", function()
    return labels ~= nil
  end)
  return labels
end

--- Fails unless `labels` holds `want`.
function M.expect_listed(what, want, labels)
  if not vim.tbl_contains(labels, want) then
    h.fail(string.format("%s: %q is not among %s", what, want, vim.inspect(labels)))
  end
end

--- The lines of the run's transcript, the markdown file the daemon opened with window/showDocument.
function M.transcript()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if name:match("/transcripts/.*%.md$") then
      return name, vim.fn.readfile(name)
    end
  end
  return nil, {}
end

return M
