-- What the editor knows, for the daemon: the problems the other language servers (and any other
-- source of vim.diagnostic) report for a file (`harness9/diagnostics`), and those servers'
-- definitions, references, workspace symbols, hovers and renames (`harness9/languageQuery`).
-- The client announces both in `experimental.harness9` (see `M.capabilities`). harness9's own
-- client and diagnostics are left out. Positions are converted between the daemon's position
-- encoding and each server's.
local await = require("harness9.await")

local M = {}

M.FEATURES = { "definition", "references", "symbols", "hover", "rename" }
M.NAME = "harness9" -- the daemon's client, never asked
M.query_timeout_ms = 8000 -- the daemon waits 10 s for a language query
M.quiet_ms = 150 -- servers that report no versions: problems unchanged this long are settled
M.indexing_wait_ms = 4000 -- the longest a query waits for servers that report work in progress

local METHODS = {
  definition = "textDocument/definition",
  references = "textDocument/references",
  symbols = "workspace/symbol",
  hover = "textDocument/hover",
  rename = "textDocument/rename",
}

--- The `experimental.harness9` fields this module answers for.
function M.capabilities()
  return { diagnostics = true, languageFeatures = M.FEATURES }
end

local uv = vim.loop
local has_011 = vim.fn.has("nvim-0.11") == 1

local function call(client, method, ...)
  if has_011 then
    return client[method](client, ...)
  end
  return client[method](...)
end

-- The version each client last published problems for, by URI; when each buffer's problems last
-- changed (its changedtick then, and the time).
local published = {}
local changed = {}
local tracking = false

--- Starts noting which document version the servers' problems are of: a wrapper around the
--- publishDiagnostics handler (it records `version`, then calls the handler it replaced) and a
--- DiagnosticChanged autocommand. Called once by setup and by the first request.
function M.track()
  if tracking then
    return
  end
  tracking = true
  local method = "textDocument/publishDiagnostics"
  local original = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, result, ctx, config)
    if type(result) == "table" and type(result.uri) == "string" and ctx and ctx.client_id then
      published[ctx.client_id] = published[ctx.client_id] or {}
      published[ctx.client_id][result.uri] = tonumber(result.version) or false
    end
    return original(err, result, ctx, config)
  end
  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    group = vim.api.nvim_create_augroup("harness9_editor_problems", { clear = true }),
    callback = function(args)
      local buf = args.buf
      if buf and vim.api.nvim_buf_is_valid(buf) then
        changed[buf] = { tick = vim.api.nvim_buf_get_changedtick(buf), at = uv.now() }
      end
    end,
  })
end

local function response_error(message)
  return vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, message)
end

local function real(path)
  return uv.fs_realpath(path) or vim.fn.fnamemodify(path, ":p")
end

local function path_of(uri)
  local ok, path = pcall(vim.uri_to_fname, uri)
  return ok and path or nil
end

--- The buffer of the file `uri` names (loaded or not), or nil.
local function buffer_of(uri)
  local path = path_of(uri)
  if not path then
    return nil
  end
  local want = real(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if name ~= "" and vim.bo[buf].buftype == "" and (name == path or real(name) == want) then
      return buf
    end
  end
  return nil
end

local function clients_of(buf)
  local found = {}
  if vim.lsp.get_clients then
    found = vim.lsp.get_clients({ bufnr = buf })
  else
    for _, client in pairs(vim.lsp.buf_get_clients(buf)) do
      table.insert(found, client)
    end
  end
  return found
end

local function all_clients()
  return vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
end

local function is_other(client, own_id)
  return client.id ~= own_id and client.name ~= M.NAME
end

local function encoding_of(client)
  return client and client.offset_encoding or "utf-16"
end

-- Positions: a character offset in one encoding, through the byte offset, into another.
local function char_length(byte)
  return byte < 0x80 and 1 or byte < 0xE0 and 2 or byte < 0xF0 and 3 or 4
end

local function units(len, encoding)
  if encoding == "utf-8" then
    return len
  end
  return (encoding == "utf-16" and len == 4) and 2 or 1
end

local function byte_of(line, character, encoding)
  local i, counted = 1, 0
  while counted < character and i <= #line do
    local len = char_length(line:byte(i))
    counted = counted + units(len, encoding)
    i = i + len
  end
  return i - 1 + math.max(character - counted, 0)
end

local function character_of(line, byte, encoding)
  local i, counted = 1, 0
  while i - 1 < byte and i <= #line do
    local len = char_length(line:byte(i))
    counted = counted + units(len, encoding)
    i = i + len
  end
  return counted + math.max(byte - #line, 0)
end

--- The text of a line of a file, as its buffer holds it (else the disk), by URI; cached.
local function line_reader()
  local files = {}
  return function(uri, number)
    if files[uri] == nil then
      local buf = buffer_of(uri)
      if buf and vim.api.nvim_buf_is_loaded(buf) then
        files[uri] = { buf = buf }
      else
        local path = path_of(uri)
        local ok, lines = pcall(vim.fn.readfile, path or "")
        files[uri] = { lines = ok and lines or {} }
      end
    end
    local file = files[uri]
    if file.buf then
      return vim.api.nvim_buf_get_lines(file.buf, number, number + 1, false)[1] or ""
    end
    return file.lines[number + 1] or ""
  end
end

local function convert_position(line_of, uri, position, from, to)
  if from == to or type(position) ~= "table" or type(position.line) ~= "number" then
    return position
  end
  local line = line_of(uri, position.line)
  return { line = position.line, character = character_of(line, byte_of(line, position.character or 0, from), to) }
end

local function convert_range(line_of, uri, range, from, to)
  if from == to or type(range) ~= "table" then
    return range
  end
  return { start = convert_position(line_of, uri, range.start, from, to),
           ["end"] = convert_position(line_of, uri, range["end"], from, to) }
end

-- Problems ----------------------------------------------------------------------------------

local function own_namespaces(own_id)
  local skip = {}
  for _, client in ipairs(all_clients()) do
    if client.id == own_id or client.name == M.NAME then
      skip[vim.lsp.diagnostic.get_namespace(client.id)] = true
      if vim.fn.has("nvim-0.10") == 1 then
        skip[vim.lsp.diagnostic.get_namespace(client.id, true)] = true
      end
    end
  end
  return skip
end

local SEVERITY_NAMES = { ERROR = 1, WARN = 2, INFO = 3, HINT = 4 }

--- A vim.diagnostic entry as an LSP Diagnostic, its columns in `encoding`.
local function lsp_diagnostic(d, uri, line_of, encoding)
  local lsp = type(d.user_data) == "table" and type(d.user_data.lsp) == "table" and d.user_data.lsp or {}
  local function position(line, col)
    line = line or 0
    return { line = line, character = character_of(line_of(uri, line), col or 0, encoding) }
  end
  local severity = tonumber(d.severity) or SEVERITY_NAMES[d.severity] or 1
  local out = {
    range = { start = position(d.lnum, d.col), ["end"] = position(d.end_lnum or d.lnum, d.end_col or d.col) },
    severity = severity,
    message = tostring(d.message or ""),
  }
  out.source = type(d.source) == "string" and d.source or lsp.source
  local code = d.code ~= nil and d.code or lsp.code
  if type(code) == "string" or type(code) == "number" then
    out.code = code
  end
  return out
end

local function problems_of(buf, skip, line_of, encoding)
  local uri = vim.uri_from_bufnr(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if not skip[d.namespace] then
      table.insert(out, lsp_diagnostic(d, uri, line_of, encoding))
    end
  end
  return out
end

--- True when the problems of `buf` are those of its `version`: every other server that reports
--- versions has published this one (or a later); without versions, the problems changed since
--- the buffer had that version and have not changed for `M.quiet_ms`.
local function settled(buf, uri, version, own_id)
  local others, unversioned = 0, false
  for _, client in ipairs(clients_of(buf)) do
    if is_other(client, own_id) then
      others = others + 1
      local seen = (published[client.id] or {})[uri]
      if type(seen) == "number" then
        if seen < version then
          return false
        end
      else
        unversioned = true
      end
    end
  end
  if others == 0 or not unversioned then
    return true
  end
  local last = changed[buf]
  return last ~= nil and last.tick >= version and uv.now() - last.at >= M.quiet_ms
end

--- Calls `finish()` once `ready()` holds (checked now and every 20 ms) or after `timeout_ms`.
local function when(ready, timeout_ms, finish)
  if timeout_ms <= 0 or ready() then
    return finish()
  end
  local timer = uv.new_timer()
  local deadline = uv.now() + timeout_ms
  timer:start(20, 20, vim.schedule_wrap(function()
    if timer:is_closing() then
      return
    end
    if ready() or uv.now() >= deadline then
      timer:stop()
      timer:close()
      finish()
    end
  end))
end

local function workspace_items(folder, skip, encoding)
  local root = real(folder)
  local line_of = line_reader()
  local buffers = {}
  for _, d in ipairs(vim.diagnostic.get()) do
    if not skip[d.namespace] and d.bufnr and vim.api.nvim_buf_is_valid(d.bufnr) then
      buffers[d.bufnr] = true
    end
  end
  local items = {}
  for buf in pairs(buffers) do
    local name = vim.api.nvim_buf_get_name(buf)
    if name ~= "" and real(name):sub(1, #root + 1) == root .. "/" then
      local diagnostics = problems_of(buf, skip, line_of, encoding)
      if #diagnostics > 0 then
        table.insert(items, { uri = vim.uri_from_bufnr(buf), diagnostics = diagnostics })
      end
    end
  end
  table.sort(items, function(a, b)
    return a.uri < b.uri
  end)
  return items
end

-- Whether anything but harness9 checks each file (by its real path), as last asked.
local checked = {}

--- True when something besides harness9 checks `buf`: another language client is attached, or
--- another source has reported problems for it.
local function checker_of(buf, own_id)
  for _, client in ipairs(clients_of(buf)) do
    if is_other(client, own_id) then
      return true
    end
  end
  local skip = own_namespaces(own_id)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if not skip[d.namespace] then
      return true
    end
  end
  return false
end

--- True when the file at `path` had a checker (see above) when its problems were last asked for.
function M.checked(path)
  return checked[real(path)] == true
end

--- The `harness9/diagnostics` handler: `{diagnostics, version?}` for a file, `{items}` for the
--- workspace folder. With `version`, waits (up to `timeoutMs`) for the problems of that version.
function M.on_diagnostics(_, params, ctx)
  M.track()
  params = type(params) == "table" and params or {}
  local own_id = ctx and ctx.client_id
  local encoding = encoding_of(own_id and vim.lsp.get_client_by_id(own_id))
  local uri = params.uri
  local path = type(uri) == "string" and path_of(uri)
  if not path then
    return nil, response_error("harness9/diagnostics: no file URI")
  end
  if vim.fn.isdirectory(path) == 1 then
    return { items = workspace_items(path, own_namespaces(own_id), encoding) }
  end
  local buf = buffer_of(uri)
  checked[real(path)] = buf ~= nil and checker_of(buf, own_id)
  if not buf then
    return { diagnostics = {} } -- not open: no server reports its problems here
  end
  local version = tonumber(params.version)
  local timeout = tonumber(params.timeoutMs) or 0
  if version then
    local buf_uri = vim.uri_from_bufnr(buf)
    await.await(function(finish)
      when(function()
        return not vim.api.nvim_buf_is_valid(buf) or settled(buf, buf_uri, version, own_id)
      end, timeout, finish)
    end)
  end
  if not vim.api.nvim_buf_is_valid(buf) then
    return { diagnostics = {} }
  end
  local answer = { diagnostics = problems_of(buf, own_namespaces(own_id), line_reader(), encoding) }
  if vim.api.nvim_buf_is_loaded(buf) then
    answer.version = vim.api.nvim_buf_get_changedtick(buf)
  end
  return answer
end

-- Language queries ----------------------------------------------------------------------------

local function supports(client, method)
  local ok, yes = pcall(call, client, "supports_method", method)
  return ok and yes
end

--- The file's buffer, loaded (opened hidden when it was not), so its language servers attach;
--- and whether it was loaded just now.
local function loaded_buffer(uri)
  local buf = buffer_of(uri)
  if not buf then
    buf = vim.fn.bufadd(path_of(uri))
  end
  if vim.api.nvim_buf_is_loaded(buf) then
    return buf, false
  end
  vim.fn.bufload(buf)
  if vim.bo[buf].filetype == "" then
    vim.api.nvim_buf_call(buf, function()
      vim.cmd("filetype detect")
    end)
  end
  return buf, true
end

--- The other clients that can answer `method` (for `buf`, or any for workspace symbols).
local function capable(method, buf, own_id)
  local found = {}
  for _, client in ipairs(buf and clients_of(buf) or all_clients()) do
    if is_other(client, own_id) and client.initialized ~= false and supports(client, method) then
      table.insert(found, client)
    end
  end
  return found
end

--- Whether `client` reports work in progress (`$/progress` begun, not ended): a server that
--- is still indexing answers from what it has read so far (no symbols at all, at first).
local function working(client)
  local progress = client.progress
  if type(progress) == "table" and type(progress.pending) == "table" then -- 0.10+
    return next(progress.pending) ~= nil
  end
  local messages = client.messages
  if type(messages) == "table" and type(messages.progress) == "table" then -- 0.7 to 0.9
    for _, item in pairs(messages.progress) do
      if type(item) == "table" and not item.done then
        return true
      end
    end
  end
  return false
end

--- Asks `clients` with `params_for(client)`; `finish(answers)`: {client, err?, result?} each,
--- once all have answered or `timeout_ms` is up.
local function ask_all(clients, method, params_for, buf, timeout_ms, finish)
  local answers, pending = {}, #clients
  local timer = uv.new_timer()
  local function done()
    if not timer:is_closing() then
      timer:stop()
      timer:close()
    end
    finish(answers)
  end
  timer:start(timeout_ms, 0, vim.schedule_wrap(function()
    if not timer:is_closing() then
      done()
    end
  end))
  for _, client in ipairs(clients) do
    local ok = call(client, "request", method, params_for(client), function(err, result)
      table.insert(answers, { client = client, err = err, result = result })
      pending = pending - 1
      if pending == 0 and not timer:is_closing() then
        done()
      end
    end, buf)
    if not ok then
      pending = pending - 1
    end
  end
  if pending == 0 and not timer:is_closing() then
    done()
  end
end

local function hover_text(contents)
  if type(contents) == "string" then
    return contents
  end
  if type(contents) ~= "table" then
    return ""
  end
  if contents.value ~= nil then
    if contents.language and contents.language ~= "" then
      return "```" .. contents.language .. "\n" .. tostring(contents.value) .. "\n```"
    end
    return tostring(contents.value)
  end
  local parts = {}
  for _, part in ipairs(contents) do
    local text = hover_text(part)
    if text ~= "" then
      table.insert(parts, text)
    end
  end
  return table.concat(parts, "\n\n")
end

-- Locations and LocationLinks (one or a list), their ranges in encoding `to`.
local function locations_of(result, line_of, from, to)
  if type(result) ~= "table" then
    return {}
  end
  if result.uri or result.targetUri then
    result = { result }
  end
  local out = {}
  for _, item in ipairs(result) do
    if type(item) == "table" and type(item.uri) == "string" then
      table.insert(out, { uri = item.uri, range = convert_range(line_of, item.uri, item.range, from, to) })
    elseif type(item) == "table" and type(item.targetUri) == "string" then
      local uri = item.targetUri
      table.insert(out, {
        targetUri = uri,
        targetRange = convert_range(line_of, uri, item.targetRange, from, to),
        targetSelectionRange = convert_range(line_of, uri, item.targetSelectionRange, from, to),
      })
    end
  end
  return out
end

local function symbols_of(result, line_of, from, to)
  local out = {}
  for _, item in ipairs(type(result) == "table" and result or {}) do
    local location = type(item) == "table" and item.location
    if type(location) == "table" and type(location.uri) == "string" and type(location.range) == "table" then
      table.insert(out, { name = item.name, kind = item.kind, location = {
        uri = location.uri, range = convert_range(line_of, location.uri, location.range, from, to) } })
    end
  end
  return out
end

local function edits_converted(edits, uri, line_of, from, to)
  local out = {}
  for _, edit in ipairs(edits or {}) do
    local copy = vim.deepcopy(edit)
    copy.range = convert_range(line_of, uri, edit.range, from, to)
    table.insert(out, copy)
  end
  return out
end

local function workspace_edit(edit, line_of, from, to)
  if type(edit) ~= "table" or from == to then
    return edit
  end
  local out = vim.deepcopy(edit)
  for uri, edits in pairs(edit.changes or {}) do
    out.changes[uri] = edits_converted(edits, uri, line_of, from, to)
  end
  for i, change in ipairs(edit.documentChanges or {}) do
    if type(change.textDocument) == "table" and type(change.edits) == "table" then
      out.documentChanges[i].edits = edits_converted(change.edits, change.textDocument.uri, line_of, from, to)
    end
  end
  return out
end

-- The file's path as the daemon's workspace names it (relative to its root), else as given.
local function file_label(uri, own_id)
  local path = path_of(uri) or tostring(uri)
  local client = own_id and vim.lsp.get_client_by_id(own_id)
  local root = client and type(client.config.root_dir) == "string" and real(client.config.root_dir)
  local file = real(path)
  if root and file:sub(1, #root + 1) == root .. "/" then
    return file:sub(#root + 2)
  end
  return path
end

--- The `harness9/languageQuery` handler: asks the other language servers of the file (or, for
--- symbols, every other one) and answers `{locations}`, `{symbols}`, `{hover}` or `{edit}`.
function M.on_language_query(_, params, ctx)
  params = type(params) == "table" and params or {}
  local kind, uri = params.kind, params.uri
  local method = METHODS[kind]
  if not method then
    return nil, response_error("unknown language query: " .. tostring(kind))
  end
  if type(uri) ~= "string" or not path_of(uri) then
    return nil, response_error("harness9/languageQuery: no file URI")
  end
  local own_id = ctx and ctx.client_id
  local own_encoding = encoding_of(own_id and vim.lsp.get_client_by_id(own_id))
  local buf, opened = nil, false
  if kind ~= "symbols" then
    local ok, loaded, just = pcall(loaded_buffer, uri)
    if not ok then
      return nil, response_error("could not open " .. file_label(uri, own_id) .. ": " .. tostring(loaded))
    end
    buf, opened = loaded, just
  end
  local line_of = line_reader()
  local clients = capable(method, buf, own_id)
  if #clients == 0 and opened then -- a file opened just now: its servers are still starting
    await.await(function(finish)
      when(function()
        clients = capable(method, buf, own_id)
        return #clients > 0
      end, 3000, finish)
    end)
  end
  if #clients == 0 then
    local where = buf and (" for " .. file_label(uri, own_id)) or ""
    return nil, response_error(string.format("no language server in Neovim answers %s%s", method, where))
  end
  local asked = uv.now()
  local function settled()
    return not vim.tbl_contains(vim.tbl_map(working, clients), true)
  end
  if not settled() then
    await.await(function(finish) -- an answer from a server still indexing would be partial
      when(settled, M.indexing_wait_ms, finish)
    end)
  end
  local doc_uri = buf and vim.uri_from_bufnr(buf) or uri
  local answers = await.await(function(finish)
    ask_all(clients, method, function(client)
      if kind == "symbols" then
        return { query = params.query or "" }
      end
      local position = convert_position(line_of, doc_uri, params.position, own_encoding, encoding_of(client))
      local request = { textDocument = { uri = doc_uri }, position = position }
      if kind == "references" then
        request.context = { includeDeclaration = true }
      elseif kind == "rename" then
        request.newName = params.newName
      end
      return request
    end, buf, math.max(1000, M.query_timeout_ms - (uv.now() - asked)), finish)
  end, {})
  local results, errors = {}, {}
  for _, answer in ipairs(answers or {}) do
    if answer.err then
      table.insert(errors, string.format("%s: %s", answer.client.name, answer.err.message or vim.inspect(answer.err)))
    elseif answer.result ~= nil and answer.result ~= vim.NIL then
      table.insert(results, answer)
    end
  end
  if kind == "hover" then
    for _, answer in ipairs(results) do
      local text = hover_text(answer.result.contents)
      if text ~= "" then
        return { hover = text }
      end
    end
  elseif kind == "rename" then
    for _, answer in ipairs(results) do
      return { edit = workspace_edit(answer.result, line_of, encoding_of(answer.client), own_encoding) }
    end
  else
    local found = {}
    for _, answer in ipairs(results) do
      local from = encoding_of(answer.client)
      if kind == "symbols" then
        vim.list_extend(found, symbols_of(answer.result, line_of, from, own_encoding))
      else
        vim.list_extend(found, locations_of(answer.result, line_of, from, own_encoding))
      end
    end
    if #found > 0 or #errors == 0 then
      return kind == "symbols" and { symbols = found } or { locations = found }
    end
  end
  if #errors > 0 then
    return nil, response_error(table.concat(errors, "; "))
  end
  if kind == "hover" then
    return { hover = "" }
  end
  return nil, response_error(string.format("no language server in Neovim could rename at this place in %s",
    file_label(uri, own_id)))
end

return M
