-- Background tasks: `:Harness9Background {prompt}` runs a prompt in a git worktree of its own
-- (`agent/run` with isolation `worktree`, a new session), beside the chat; `:Harness9Tasks` lists
-- the workspace's tasks (`agent/tasks`: status, changed files, +/−) in `harness9://tasks`, where
-- <CR> reviews a task (each changed file beside the task's version, in diff mode), `a` applies it
-- (`agent/applyTask`: merged with the user's changes, each open buffer one undo step; a conflict
-- opens its hunks and nothing is written), `d` discards it, `x` stops its run.
local M = {}

local api = vim.api
local buffer = require("harness9.buffer")
local client_mod = require("harness9.client")
local diff = require("harness9.diff")
local files = require("harness9.files")
local list = require("harness9.task_list")
local sessions_ui = require("harness9.sessions")

M.name = "harness9://tasks"

local host = nil -- set by init.lua: { config(), chosen_model(), collect(prompt, range) }
local shown = {} -- the tasks listed last, oldest first
local rows = {} -- line -> { task, path } of the list buffer
local titles = {} -- sessionId -> the prompt it was started with (or its session's title)
local pending = {} -- prompts of tasks asked for whose run has not started yet, oldest first
local watched = {} -- sessionId -> true: a task's session this Neovim saw run
local running = {} -- sessionId -> runId of its run in progress
local refresh_timer = nil

local function notify(message, level)
  vim.notify("harness9: " .. message, level or vim.log.levels.INFO)
end

--- Where the plugin's settings, the chosen model and context collection come from.
function M.configure(h)
  host = h
end

--- The title of `task`: the daemon's (what the task was asked to do); from a daemon that keeps
--- none, the prompt it was started with here, else its session id.
function M.title(task)
  if type(task.title) == "string" and task.title ~= "" then
    return task.title
  end
  return titles[task.sessionId] or task.sessionId
end

--- The tasks listed last, oldest first.
function M.shown()
  return shown
end

local function root_of(task)
  local root = task.workspace or vim.fn.fnamemodify(host.config().root_dir or vim.fn.getcwd(), ":p")
  return (root:gsub("(.)/$", "%1"))
end

-- Calls `method` and `on_result(result)`; an error is told, with `on_error()` after it.
local function request(client, method, params, on_result, on_error)
  client_mod.call(client, "request", method, params, function(err, result)
    if err then
      notify(tostring(err.message), vim.log.levels.WARN)
      return on_error and on_error()
    end
    on_result(type(result) == "table" and result or {})
  end)
end

local function with_client(fn)
  local ok, err = pcall(client_mod.with_client, host.config(), function(client)
    if not sessions_ui.supports(client, "agent/tasks") then
      return notify("this daemon has no background tasks (no agent/tasks); update harness9", vim.log.levels.WARN)
    end
    fn(client)
  end)
  if not ok then
    return false, "harness9: " .. tostring(err):gsub("^[^:]*:%d+: ", "")
  end
  return true
end

local function render()
  local buf = vim.fn.bufnr(M.name)
  if buf == -1 or not api.nvim_buf_is_valid(buf) then
    return
  end
  local lines
  lines, rows = list.lines(shown, function(task)
    return list.clip(M.title(task))
  end)
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
end

-- The titles of tasks started elsewhere (the terminal, another editor): their sessions'.
local function learn_titles(client, done)
  local folders = {}
  for _, task in ipairs(shown) do
    if M.title(task) == task.sessionId and task.workspace then
      folders[task.workspace] = true
    end
  end
  local left = vim.tbl_count(folders)
  if left == 0 or not sessions_ui.supports(client, "agent/sessions") then
    return done()
  end
  for folder, _ in pairs(folders) do
    client_mod.call(client, "request", "agent/sessions", { workspaceFolder = vim.uri_from_fname(folder) },
      function(_, result)
        for _, s in ipairs(type(result) == "table" and type(result.sessions) == "table" and result.sessions or {}) do
          if type(s) == "table" and type(s.title) == "string" and s.title ~= "" and s.sessionId then
            titles[s.sessionId] = titles[s.sessionId] or s.title
          end
        end
        left = left - 1
        if left == 0 then
          done()
        end
      end)
  end
end

--- Reads `agent/tasks` again and redraws the list; `done()` after.
function M.refresh(done)
  return with_client(function(client)
    request(client, "agent/tasks", vim.empty_dict(), function(result)
      shown = list.read(result)
      learn_titles(client, function()
        render()
        if done then
          done()
        end
      end)
    end)
  end)
end

local function refresh_soon(delay)
  if refresh_timer or vim.fn.bufnr(M.name) == -1 then
    return
  end
  refresh_timer = vim.defer_fn(function()
    refresh_timer = nil
    M.refresh()
  end, delay)
end

--- Follows `agent/progress`: true when the notification is a background task's (from its
--- `run_started` with a `worktree` on), which the chat then leaves alone.
function M.on_progress(params)
  local session = params.sessionId
  if params.kind == "run_started" and type(params.worktree) == "table" and type(session) == "string" then
    watched[session], running[session] = true, params.runId
    if not titles[session] and #pending > 0 then
      titles[session] = table.remove(pending, 1)
    end
    refresh_soon(0)
    return true
  end
  if not (type(session) == "string" and watched[session]) then
    return false
  end
  if params.kind == "run_finished" then
    running[session] = nil
    refresh_soon(0)
  elseif params.kind == "tool_completed" then
    refresh_soon(300)
  end
  return true
end

-- Told when a task's run ended: what it changed, and where to go on.
local function tell_ended(session_id)
  for _, task in ipairs(shown) do
    if task.sessionId == session_id then
      return notify(string.format('task "%s" %s: %s (:Harness9Tasks)', list.clip(M.title(task), 36), task.status,
        list.changes(task)))
    end
  end
end

--- `:Harness9Background {prompt}`: the prompt as a task in a worktree of its own (a new
--- session); `opts.range` attaches those lines, `%` and `%d` the file and its problems.
function M.run(prompt, opts)
  local items
  prompt, items = host.collect(prompt or "", (opts or {}).range)
  if not prompt then
    return false, items
  end
  if prompt:match("^%s*$") then
    return false, "harness9: the prompt is empty"
  end
  -- The params as they are now: the daemon may take a moment to come up.
  local params = vim.tbl_extend("force", {}, host.config().run_params or {}, host.chosen_model() or {})
  params.sessionId, params.prompt, params.isolation = nil, prompt, "worktree"
  params.context = #items > 0 and items or nil
  return with_client(function(client)
    table.insert(pending, prompt)
    client_mod.call(client, "request", "agent/run", params, function(err, result)
      if err then
        pending = vim.tbl_filter(function(p)
          return p ~= prompt
        end, pending)
        return notify("the background task did not start: " .. tostring(err.message), vim.log.levels.WARN)
      end
      if type(result) == "table" and type(result.sessionId) == "string" then
        titles[result.sessionId] = prompt
        M.refresh(function()
          tell_ended(result.sessionId)
        end)
      end
    end)
    notify(string.format('"%s" runs in the background (:Harness9Tasks)', list.clip(prompt, 40)))
  end)
end

--- Review: each changed file of the row's task (or the row's file), the workspace's beside the
--- task's, one tab each.
function M.review(row)
  if not row or #row.task.changedFiles == 0 then
    return false, "harness9: no changed file here"
  end
  local root = root_of(row.task)
  for _, path in ipairs(row.path and { row.path } or row.task.changedFiles) do
    local theirs = row.task.worktree.path .. "/" .. path
    diff.open_tab(root .. "/" .. path, vim.fn.filereadable(theirs) == 1 and vim.fn.readfile(theirs) or {}, "task",
      path, "right")
  end
  return true
end

-- Each conflict's hunks (the merge's text with its markers) in a tab of its own.
local function show_conflicts(result)
  for _, hunk in ipairs(type(result.hunks) == "table" and result.hunks or {}) do
    vim.cmd("tabnew")
    local buf = api.nvim_get_current_buf()
    api.nvim_buf_set_lines(buf, 0, -1, false, require("harness9.text_lines").split(tostring(hunk.text)))
    vim.bo[buf].buftype, vim.bo[buf].bufhidden, vim.bo[buf].swapfile = "nofile", "wipe", false
    vim.bo[buf].modifiable = false
    pcall(api.nvim_buf_set_name, buf, "harness9://conflicts/" .. tostring(hunk.path))
  end
end

--- Apply: the row's task merged into the workspace; `done(result)` after.
function M.apply(row, done)
  if not row then
    return false, "harness9: no task here"
  end
  local task = row.task
  return with_client(function(client)
    request(client, "agent/applyTask", { sessionId = task.sessionId }, function(result)
      local title = list.clip(M.title(task), 40)
      if result.applied then
        local written = type(result.files) == "table" and result.files or {}
        files.settle_paths(root_of(task), written)
        files.reload(root_of(task), written)
        notify(list.apply_note(title, result))
      else
        show_conflicts(result)
        notify(list.apply_note(title, result), vim.log.levels.WARN)
      end
      M.refresh()
      if done then
        done(result)
      end
    end)
  end)
end

--- Discard: after a confirmation, the row's task's worktree and branch are removed.
function M.discard(row)
  if not row then
    return false, "harness9: no task here"
  end
  local task = row.task
  local prompt = string.format('Discard the task "%s"? Its worktree and branch %s are removed.',
    list.clip(M.title(task), 40), task.worktree.branch)
  vim.ui.select({ "Discard", "Keep" }, { prompt = prompt }, function(choice)
    if choice == "Discard" then
      with_client(function(client)
        request(client, "agent/discardTask", { sessionId = task.sessionId }, function()
          M.refresh()
        end)
      end)
    end
  end)
  return true
end

--- Stop: cancels the row's task's run in progress (one this Neovim saw start).
function M.stop(row)
  local run_id = row and running[row.task.sessionId]
  if not run_id then
    return false, "harness9: no run of this task in progress that this Neovim started"
  end
  return with_client(function(client)
    request(client, "agent/cancel", { runId = run_id }, function() end)
  end)
end

local function act(fn)
  return function()
    local ok, message = fn(rows[api.nvim_win_get_cursor(0)[1]])
    if ok == false then
      vim.notify(message, vim.log.levels.WARN)
    end
  end
end

--- `:Harness9Tasks`: the list in a window of its own (the cursor in it), read again.
function M.open()
  local fresh = vim.fn.bufnr(M.name) == -1
  local buf = buffer.get(M.name, "harness9tasks")
  if fresh then
    local function map(lhs, fn, desc)
      vim.keymap.set("n", lhs, fn, { buffer = buf, desc = "harness9: " .. desc, nowait = true })
    end
    map("<CR>", act(M.review), "review the task (or file) under the cursor")
    map("a", act(M.apply), "apply the task under the cursor")
    map("d", act(M.discard), "discard the task under the cursor")
    map("x", act(M.stop), "stop the task's run")
    map("R", function()
      M.refresh()
    end, "read the tasks again")
    map("q", "<cmd>close<CR>", "close the list")
  end
  local wins = vim.fn.win_findbuf(buf)
  if #wins > 0 then
    api.nvim_set_current_win(wins[1])
  else
    vim.cmd(host.config().split)
    api.nvim_win_set_buf(0, buf)
  end
  vim.wo.wrap = false -- a long title runs off the window rather than between the rows
  render()
  return M.refresh()
end

--- What line `line` of the list shows: { task, path }, or nil.
function M.row(line)
  return rows[line]
end

return M
