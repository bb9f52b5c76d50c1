-- Keeping buffers in step with what the agent changed on disk (a bash call's `changedFiles`, a
-- file tool that wrote to disk, a restore): their loaded, unmodified buffers are reloaded.
local M = {}

local api = vim.api

--- The loaded buffers of `paths` (workspace-relative, under `root`), as { buf = path }.
local function buffers_of(root, paths)
  local wanted = {}
  for _, path in ipairs(paths) do
    wanted[vim.fn.fnamemodify(root .. "/" .. path, ":p")] = path
  end
  local found = {}
  for _, buf in ipairs(api.nvim_list_bufs()) do
    local name = api.nvim_buf_get_name(buf)
    if api.nvim_buf_is_loaded(buf) and name ~= "" and wanted[vim.fn.fnamemodify(name, ":p")] then
      found[buf] = wanted[vim.fn.fnamemodify(name, ":p")]
    end
  end
  return found
end

--- Reloads the loaded buffers of `paths` from disk (`:checktime`). A buffer with unsaved
--- changes is left alone (Neovim would ask); the paths of those are returned.
function M.reload(root, paths)
  local kept = {}
  for buf, path in pairs(buffers_of(root, paths)) do
    if vim.bo[buf].modified then
      table.insert(kept, path)
    else
      vim.cmd("checktime " .. buf)
    end
  end
  table.sort(kept)
  return kept
end


-- Takes the file's new timestamp as the one `buf` was read at, without reloading it: Neovim
-- would otherwise see a file changed since it was read and reload the unmodified buffer (an
-- undo step the user's `u` would take back first, with no change to see) or warn. While `buf`
-- is still modified, :checktime records the timestamp and asks FileChangedShell what to do:
-- nothing.
local function adopt_timestamp(buf)
  local id = api.nvim_create_autocmd("FileChangedShell", {
    buffer = buf,
    callback = function()
      vim.v.fcs_choice = ""
    end,
  })
  vim.cmd("checktime " .. buf)
  pcall(api.nvim_del_autocmd, id)
end

-- The files an edit tool's call (`toolKind: "edit"`) wrote through the editor and then to disk:
-- write_file's and edit_file's own path when it went `via: "editor"`, every file a rename
-- changed (`changedFiles`: its open documents got the rename through the editor).
local function through_editor(ev, args)
  if ev.toolKind ~= "edit" then
    return {}
  end
  if ev.via == "editor" then
    local path = ev.path or (type(args) == "table" and args.path)
    return type(path) == "string" and { path } or {}
  end
  local paths = {}
  if ev.via == nil and type(ev.changedFiles) == "table" then
    for _, file in ipairs(ev.changedFiles) do
      table.insert(paths, file.path)
    end
  end
  return paths
end

--- After an edit that went through the editor, the daemon has also written the buffer's new
--- text to disk: a buffer whose text now equals the file takes the file's timestamp and is
--- marked unmodified, so a later reload (after bash changed the file) is not held back by it,
--- and the agent's edit stays the buffer's last undo step.
function M.settle(root, ev, args)
  M.settle_paths(root, through_editor(ev, args))
end

--- The loaded buffers of `paths` (workspace-relative, under `root`) that the daemon edited
--- through the editor and then wrote to disk: each one whose text now equals its file takes the
--- file's timestamp and is marked unmodified (see `settle`).
function M.settle_paths(root, paths)
  for buf, _ in pairs(buffers_of(root, paths)) do
    local name = api.nvim_buf_get_name(buf)
    if vim.bo[buf].modified and vim.fn.filereadable(name) == 1
        and vim.deep_equal(api.nvim_buf_get_lines(buf, 0, -1, false), vim.fn.readfile(name)) then
      adopt_timestamp(buf)
      vim.bo[buf].modified = false
    end
  end
end

--- The workspace-relative paths a finished tool changed on disk: bash's `changedFiles`, or the
--- path of an edit tool's call that did not go through the editor (`via: "disk"`, or a daemon
--- that does not say; with `via: "editor"` the buffer already has the edit). `args`: the call's
--- arguments (the path when the event carries none).
function M.changed_by(ev, args)
  local paths = {}
  if type(ev.changedFiles) == "table" then
    for _, file in ipairs(ev.changedFiles) do
      if type(file) == "table" and type(file.path) == "string" and file.status ~= "deleted" then
        table.insert(paths, file.path)
      end
    end
  elseif ev.toolKind == "edit" and ev.via ~= "editor" and ev.tool ~= "rename_symbol" then
    local path = ev.path or (type(args) == "table" and args.path)
    if type(path) == "string" then
      table.insert(paths, path)
    end
  end
  return paths
end

return M
