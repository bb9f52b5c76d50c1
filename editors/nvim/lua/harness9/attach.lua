-- Keeps the workspace's file buffers synced with the daemon (didOpen / didChange / didClose),
-- so the agent reads what the user sees, unsaved text included, and its edits of an open file
-- land in the buffer through Neovim's own workspace/applyEdit handler: one undo step, `u`
-- takes it back. Set `sync_buffers = false` in the setup options to leave buffers alone.
local M = {}

local function root_of(client)
  local root = client.config.root_dir
  if type(root) ~= "string" then
    return nil
  end
  return (vim.loop.fs_realpath(root) or root):gsub("/$", "")
end

local function file_of(buf)
  if not vim.api.nvim_buf_is_loaded(buf) or vim.bo[buf].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" then
    return nil
  end
  return vim.loop.fs_realpath(name) or vim.fn.fnamemodify(name, ":p")
end

--- Attaches `buf` to `client` when its file lies inside the client's workspace root.
function M.buffer(client, buf)
  local root, file = root_of(client), file_of(buf)
  if root and file and file:sub(1, #root + 1) == root .. "/" then
    vim.lsp.buf_attach_client(buf, client.id)
  end
end

--- Attaches every loaded buffer of the workspace to `client` (a client that just started).
function M.all(client)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    M.buffer(client, buf)
  end
end

--- Attaches buffers opened from now on to the running harness9 client found by `find()`.
function M.setup(find)
  local group = vim.api.nvim_create_augroup("harness9_sync_buffers", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile", "BufWinEnter" }, {
    group = group,
    callback = function(args)
      local client = find()
      if client and client.initialized then
        M.buffer(client, args.buf)
      end
    end,
  })
end

return M
