-- The lines of the `:Harness9Tasks` buffer: each background task with its status, its changed
-- files and their +/− counts, then its files one a line; which task (and file) each line is.
-- Pure: no buffers, no daemon.
local M = {}

M.HEADER = "<CR> review · a apply · d discard · x stop · R refresh"

local ICONS = { running = "●", completed = "✓", applied = "⇲", error = "✗", cancelled = "■" }

--- `n file(s)`.
function M.files_count(n)
  return string.format("%d file%s", n, n == 1 and "" or "s")
end

--- `1 file +1 −1`, or `no changes`.
function M.changes(task)
  if #task.changedFiles == 0 then
    return "no changes"
  end
  return string.format("%s +%d −%d", M.files_count(#task.changedFiles), task.insertions, task.deletions)
end

--- The tasks of an `agent/tasks` answer, oldest first; malformed entries are left out.
function M.read(result)
  local tasks = {}
  for _, t in ipairs(type(result) == "table" and type(result.tasks) == "table" and result.tasks or {}) do
    if type(t) == "table" and type(t.sessionId) == "string" and type(t.worktree) == "table"
        and type(t.worktree.path) == "string" then
      local files = {}
      for _, path in ipairs(type(t.changedFiles) == "table" and t.changedFiles or {}) do
        if type(path) == "string" then
          table.insert(files, path)
        end
      end
      table.insert(tasks, {
        sessionId = t.sessionId,
        status = type(t.status) == "string" and t.status or "unknown",
        worktree = { path = t.worktree.path, branch = type(t.worktree.branch) == "string" and t.worktree.branch or "" },
        workspace = type(t.workspace) == "string" and t.workspace or nil,
        title = type(t.title) == "string" and t.title ~= "" and t.title or nil, -- the daemon's name of it
        changedFiles = files,
        insertions = tonumber(t.insertions) or 0,
        deletions = tonumber(t.deletions) or 0,
      })
    end
  end
  return tasks
end

-- `text` padded with spaces to `width` display cells.
local function pad(text, width)
  return text .. string.rep(" ", math.max(0, width - vim.fn.strdisplaywidth(text)))
end

--- The buffer's lines for `tasks` (newest first), each task's title from `title(task)`; and what
--- each line shows: rows[line] = { task = …, path = … (a file's line) }.
function M.lines(tasks, title)
  local lines, rows = { M.HEADER, "" }, {}
  if #tasks == 0 then
    table.insert(lines, "no background tasks (:Harness9Background {prompt} starts one)")
    return lines, rows
  end
  local status_width, changes_width = 0, 0
  for _, task in ipairs(tasks) do
    status_width = math.max(status_width, vim.fn.strdisplaywidth(task.status))
    changes_width = math.max(changes_width, vim.fn.strdisplaywidth(M.changes(task)))
  end
  for i = #tasks, 1, -1 do
    local task = tasks[i]
    table.insert(lines, string.format("%s %s  %s  %s", ICONS[task.status] or "!", pad(task.status, status_width),
      pad(M.changes(task), changes_width), title(task)))
    rows[#lines] = { task = task }
    for _, path in ipairs(task.changedFiles) do
      table.insert(lines, "    " .. path)
      rows[#lines] = { task = task, path = path }
    end
  end
  return lines, rows
end

--- The note after `agent/applyTask`: the files written, or the conflicts (nothing written).
function M.apply_note(title, result)
  if result.applied then
    local files = type(result.files) == "table" and result.files or {}
    local written = #files == 0 and "nothing to write" or string.format("%s (%s)", M.files_count(#files),
      table.concat(files, ", "))
    return string.format('applied "%s": %s; u takes it back', title, written)
  end
  local conflicts = type(result.conflicts) == "table" and result.conflicts or {}
  return string.format('"%s" not applied: %s %s with your changes; nothing written', title,
    table.concat(conflicts, ", "), #conflicts == 1 and "conflicts" or "conflict")
end

--- A title cut to `max` characters (default 50) on one line.
function M.clip(text, max)
  max = max or 50
  local line = text:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
  if vim.fn.strchars(line) > max then
    return vim.fn.strcharpart(line, 0, max - 1) .. "…"
  end
  return line
end

return M
