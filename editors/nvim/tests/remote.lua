-- What the remote scenarios (scenario_remote.lua, scenario_plainremote.lua) share: the daemon
-- reached through ssh (test.sh starts a loopback sshd), the editor in its own path of the
-- workspace (H9_WORKSPACE, a bind mount only Neovim sees) and the daemon in the workspace itself
-- (H9_REMOTE_WORKSPACE), joined by `pathMap`.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local M = { h = h, here = h.workspace, there = os.getenv("H9_REMOTE_WORKSPACE") }

--- The editor's server command: `ssh host harness9 serve`.
function M.cmd()
  return { "ssh", "-F", os.getenv("H9_SSH_CONFIG"), "harness9-test", os.getenv("H9_REMOTE_SERVE") }
end

--- The `pathMap` setting: the editor's folder is the daemon's.
function M.path_map()
  return { { ["local"] = M.here, remote = M.there } }
end

--- Opens a.txt in the editor's path and types a line that is not saved; returns the buffer.
function M.open_with_typing()
  vim.cmd("edit " .. vim.fn.fnameescape(M.here .. "/a.txt"))
  local buf = vim.api.nvim_get_current_buf()
  vim.cmd("normal! otyped, not saved")
  return buf
end

--- Checks what the run did: the edit landed in the editor's buffer (its URI mapped back to the
--- editor's path), on disk, bash ran in the daemon's path, and the daemon stored the session
--- under its own path (nothing of the editor's path reached it).
function M.check_done(buf)
  h.expect_equal("the buffer", { "hello from the remote agent", "typed, not saved" },
    vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  h.expect_equal("buffers", { M.here .. "/a.txt" }, vim.tbl_filter(function(name)
    return name:match("a%.txt$") ~= nil
  end, vim.tbl_map(vim.api.nvim_buf_get_name, vim.api.nvim_list_bufs())))
  h.expect_equal("a.txt on disk", "hello from the remote agent\ntyped, not saved\n", h.workspace_file("a.txt"))
  h.expect_equal("where bash ran", M.there .. "\n", h.workspace_file("where.txt"))
  local stored = table.concat(vim.fn.readfile(vim.fn.globpath(os.getenv("XDG_STATE_HOME"), "**/s-*.meta.json", true, true)[1]), "\n")
  if not stored:find('"' .. M.there .. '"', 1, true) or stored:find(M.here, 1, true) then
    local at = stored:find(M.here, 1, true)
    h.fail("the session should be stored under the daemon's path " .. M.there .. " only: "
      .. (at and stored:sub(math.max(1, at - 200), at + 100) or stored:sub(1, 300)))
  end
end

return M
