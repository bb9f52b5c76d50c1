-- Diffs of the agent's edits: the text before a change is rebuilt from the change's unified
-- diff (`tool_completed.diff`) and the file's current text, then shown with `:diffsplit`-style
-- windows (the file beside a scratch buffer of its old text, both in diff mode). A review shows
-- every file a run edited that way, one tab each, its text before the run beside it: `do`,
-- `dp` and `:diffget` take hunks back, and `:write` keeps the result.
local M = {}

local api = vim.api

--- The hunks of a unified diff: { { new_start, old = {lines}, new = {lines} } }.
function M.hunks(diff)
  local hunks, hunk = {}, nil
  for _, line in ipairs(require("harness9.text_lines").split(diff)) do
    local new_start = line:match("^@@ %-%d+,?%d* %+(%d+),?%d* @@")
    if new_start then
      hunk = { new_start = tonumber(new_start), old = {}, new = {} }
      table.insert(hunks, hunk)
    elseif hunk and not line:match("^\\") then
      local mark, text = line:sub(1, 1), line:sub(2)
      if mark == " " or mark == "-" then
        table.insert(hunk.old, text)
      end
      if mark == " " or mark == "+" then
        table.insert(hunk.new, text)
      end
    end
  end
  return hunks
end

local function matches_at(lines, block, at)
  if at < 1 or at + #block - 1 > #lines then
    return false
  end
  for i, text in ipairs(block) do
    if lines[at + i - 1] ~= text then
      return false
    end
  end
  return true
end

-- Where the hunk's new side is in `lines` from line `from` on: at `want` if it is there, else
-- the nearest place (the user may have edited above it since).
local function locate(lines, block, want, from)
  if matches_at(lines, block, want) then
    return want
  end
  for distance = 1, #lines do
    for _, at in ipairs({ want - distance, want + distance }) do
      if at >= from and matches_at(lines, block, at) then
        return at
      end
    end
  end
  return nil
end

--- The lines before the change: `current` (the lines now) with each hunk of `diff` turned back.
--- Returns nil and a message when the current text no longer holds the change.
function M.before(diff, current)
  local out, next_line, drift = {}, 1, 0
  for _, hunk in ipairs(M.hunks(diff)) do
    -- An empty new side sits after line new_start; others start at it.
    local want = (#hunk.new == 0 and hunk.new_start + 1 or hunk.new_start) + drift
    local at = locate(current, hunk.new, want, next_line)
    if not at then
      return nil, "the file no longer holds the change (edited since?)"
    end
    drift = at - (#hunk.new == 0 and hunk.new_start + 1 or hunk.new_start)
    for i = next_line, at - 1 do
      table.insert(out, current[i])
    end
    vim.list_extend(out, hunk.old)
    next_line = at + #hunk.new
  end
  for i = next_line, #current do
    table.insert(out, current[i])
  end
  return out
end

local function current_lines(file)
  local buf = vim.fn.bufnr(file)
  if buf ~= -1 and api.nvim_buf_is_loaded(buf) then
    return api.nvim_buf_get_lines(buf, 0, -1, false)
  end
  if vim.fn.filereadable(file) == 1 then
    return vim.fn.readfile(file)
  end
  return {}
end

-- Opens `file` in a new tab beside a read-only scratch buffer holding `lines`, named
-- `harness9://<scheme>/<path>` (numbered when an earlier one still holds the name), both in
-- diff mode: the scratch on the left for "before" (`side` "left") or on the right for another
-- version; the cursor ends in the file's window.
function M.open_tab(file, lines, scheme, path, side)
  vim.cmd("tabnew " .. vim.fn.fnameescape(file))
  local filetype = vim.bo.filetype
  vim.cmd("diffthis")
  vim.cmd(side == "left" and "leftabove vnew" or "rightbelow vnew")
  local scratch = api.nvim_get_current_buf()
  api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
  vim.bo[scratch].buftype = "nofile"
  vim.bo[scratch].bufhidden = "wipe"
  vim.bo[scratch].swapfile = false
  vim.bo[scratch].modifiable = false
  vim.bo[scratch].filetype = filetype
  local name = "harness9://" .. scheme .. "/" .. path
  for n = 2, 100 do
    if vim.fn.bufexists(name) == 0 then
      break
    end
    name = string.format("harness9://%s/%s (%d)", scheme, path, n)
  end
  pcall(api.nvim_buf_set_name, scratch, name)
  vim.cmd("diffthis")
  vim.cmd(side == "left" and "wincmd l" or "wincmd h")
end

-- Why a change cannot be turned back, or nil.
local function unusable(change)
  if type(change.diff) ~= "string" or change.diff == "" then
    return "this change carries no diff (the daemon sends one from protocol 1.1 on)"
  end
  if change.diff_truncated then
    return "the diff of this change was cut (too long): no before-text to compare"
  end
  return nil
end

--- Opens, in a new tab, the file of a change beside its text before the change, in diff mode.
--- `change`: { path, diff, diff_truncated }; `root`: the workspace root. Returns true, or false
--- and why not.
function M.open(change, root)
  local why = unusable(change)
  if why then
    return false, why
  end
  local file = vim.fn.fnamemodify(root .. "/" .. change.path, ":p")
  local before, err = M.before(change.diff, current_lines(file))
  if not before then
    return false, change.path .. ": " .. err
  end
  M.open_tab(file, before, "before", change.path, "left")
  return true
end

--- The lines of a file before several changes of it (oldest first), from its lines now: each
--- change turned back, the newest first. Returns nil and a message when one cannot be.
function M.before_all(changes, current)
  local lines = current
  for i = #changes, 1, -1 do
    local why = unusable(changes[i])
    if why then
      return nil, why
    end
    local err
    lines, err = M.before(changes[i].diff, lines)
    if not lines then
      return nil, err
    end
  end
  return lines
end

--- Opens each file a run edited in a tab of its own, beside its text before the run, in diff
--- mode. `files`: { { path, changes = { {diff, diff_truncated}, … } }, … } in the order first
--- changed. `kept`: the before-texts rebuilt by an earlier review of the run, by path (filled
--- here), so a review after taking hunks back still compares with the text before the run.
--- Returns the number of tabs opened and the messages of the files that could not be.
function M.review(files, root, kept)
  local opened, problems = 0, {}
  for _, entry in ipairs(files) do
    local file = vim.fn.fnamemodify(root .. "/" .. entry.path, ":p")
    local before, err = kept[entry.path], nil
    if not before then
      before, err = M.before_all(entry.changes, current_lines(file))
      kept[entry.path] = before
    end
    if before then
      M.open_tab(file, before, "before", entry.path, "left")
      opened = opened + 1
    else
      table.insert(problems, entry.path .. ": " .. err)
    end
  end
  return opened, problems
end

return M
