-- What the editor knows, with a real second language server (ruff, from the repo's .venv) on a
-- Python buffer: the agent's edit brings an undefined name, and the edit's result lists ruff's
-- problem with its line (and the chat shows it under the edit); the next edit fixes it and its
-- result says no new problems. The agent's hover reaches ruff's hover (of a `noqa` code); a
-- definition, which ruff does not serve, is an error naming what no server answers. Asked for
-- the problems of a change it has not checked yet, the plugin waits for ruff's.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local client_mod = require("harness9.client")
local editor = require("harness9.editor")

local RUFF = vim.fn.fnamemodify(h.daemon, ":h") .. "/ruff"
local TEXT = { "import os  # noqa: F401", "value = 1", "print(value)" }

local events = h.progress_events

h.main(function()
  if vim.fn.executable(RUFF) == 0 then
    error(RUFF .. " is missing (scripts/bootstrap --test installs it)")
  end
  h.write_workspace_file("main.py", table.concat(TEXT, "\n") .. "\n")
  h.write_workspace_file("ruff.toml", '[lint]\nselect = ["F"]\n') -- whatever configuration is around
  h.setup({})
  vim.cmd("edit " .. vim.fn.fnameescape(h.workspace .. "/main.py"))
  local buf = vim.api.nvim_get_current_buf()
  local ruff_id = client_mod.start_detached({ name = "ruff", cmd = { RUFF, "server" }, cmd_cwd = h.workspace, root_dir = h.workspace,
    workspace_folders = { { uri = vim.uri_from_fname(h.workspace), name = h.workspace } } })
  vim.lsp.buf_attach_client(buf, ruff_id)
  h.wait_for("ruff to start", function()
    local ruff = vim.lsp.get_client_by_id(ruff_id)
    return ruff ~= nil and ruff.initialized
  end)
  vim.cmd("Harness9Run break it, fix it, look it up")
  vim.wait(20)
  h.wait_idle("the end of the run")
  h.expect_equal("main.py", table.concat(TEXT, "\n") .. "\n", h.workspace_file("main.py"))

  local edits = events("tool_completed", "edit_file")
  h.expect_equal("edits", 2, #edits)
  h.expect_equal("the first edit's problems", { { path = "main.py", line = 3, column = 7, severity = "error",
    message = "Undefined name `valeu`", source = "Ruff", code = "F821" } }, edits[1].diagnostics)
  local said = edits[1].output:match("New problems in main.py after this edit, as the editor's language servers report them:\n(.*)$")
  h.expect_equal("what the model read of it",
    "<editor-diagnostics>\nmain.py:3:7: error: Undefined name `valeu` (Ruff F821)\n</editor-diagnostics>", said)
  h.expect_equal("the second edit's problems", {}, edits[2].diagnostics)
  h.expect_equal("what the model read of the fix", "No new problems in main.py.",
    edits[2].output:match("No new problems in main%.py%.$"))

  local hovers = events("tool_completed", "hover")
  h.expect_equal("hovers", 1, #hovers)
  if not hovers[1].output:find("unused-import (F401)", 1, true) then
    error("ruff's hover of F401 did not reach the agent: " .. hovers[1].output)
  end
  local definitions = events("tool_failed", "find_definition")
  vim.list_extend(definitions, events("tool_completed", "find_definition"))
  h.expect_equal("definitions", 1, #definitions)
  local wanted = "no language server in Neovim answers textDocument/definition for main.py"
  if not vim.inspect(definitions[1]):find(wanted, 1, true) then
    error("the definition's error does not say " .. wanted .. ": " .. vim.inspect(definitions[1]))
  end

  -- Asked for the version a change made, the answer waits for ruff's problems of it (the
  -- change reaches ruff after a debounce); asked for what it has now, it answers at once.
  local own = client_mod.find(harness9.config)
  local uri = vim.uri_from_bufnr(buf)
  vim.api.nvim_buf_set_lines(buf, 2, 3, false, { "print(valeu)" })
  local version = vim.api.nvim_buf_get_changedtick(buf)
  local now = editor.on_diagnostics(nil, { uri = uri, timeoutMs = 0 }, { client_id = own.id })
  h.expect_equal("the problems at once", {}, now.diagnostics)
  local settled = editor.on_diagnostics(nil, { uri = uri, version = version, timeoutMs = 5000 }, { client_id = own.id })
  h.expect_equal("the problems of the change", { { range = { start = { line = 2, character = 6 },
    ["end"] = { line = 2, character = 11 } }, severity = 1, message = "Undefined name `valeu`", source = "Ruff",
    code = "F821" } }, settled.diagnostics)
  h.expect_equal("their version", version, settled.version)
  local all = editor.on_diagnostics(nil, { uri = vim.uri_from_fname(h.workspace), timeoutMs = 0 }, { client_id = own.id })
  h.expect_equal("the workspace's problems", { { uri = uri, diagnostics = settled.diagnostics } }, all.items)
  vim.cmd("silent! undo")

  -- The chat shows the problem under the edit that brought it, and that the fix brought none.
  local chat = harness9.chat()
  vim.cmd("stopinsert")
  local lines = h.normalized(chat)
  local first = vim.fn.index(lines, "harness9")
  h.expect_lines("the chat's run", {
    "harness9",
    "  ✓ edited main.py +1 −1 · N ms",
    "    ┆ @@ -1,3 +1,3 @@",
    "    ┆  import os  # noqa: F401",
    "    ┆  value = 1",
    "    ┆ -print(value)",
    "    ┆ +print(valeu)",
    "    ✗ main.py:3 error: Undefined name `valeu` (Ruff F821)",
    "  ✓ edited main.py +1 −1 · N ms",
    "    ┆ @@ -1,3 +1,3 @@",
    "    ┆  import os  # noqa: F401",
    "    ┆  value = 1",
    "    ┆ -print(valeu)",
    "    ┆ +print(value)",
    "    ✓ no new problems",
    "  ✓ hover main.py · N ms",
    "  ✗ find_definition main.py (failed) · N ms",
  }, vim.list_slice(lines, first + 1, first + 17))
end)
