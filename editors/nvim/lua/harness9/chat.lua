-- The chat buffer `harness9://chat`: a prompt buffer (`buftype=prompt`) whose last line is the
-- prompt ("» "); Enter sends it, CTRL-C stops the run, and the lines above show the session's
-- conversation (chat_view.lua), redrawn as events arrive without touching what is being typed.
local chat_view = require("harness9.chat_view")
local commands = require("harness9.commands")
local markdown = require("harness9.markdown")

local M = {}

local api = vim.api
local ns = api.nvim_create_namespace("harness9.chat")

M.name = "harness9://chat"
M.prompt = "» "

local rows = {} -- line (1-based) -> tool block of the last render

local HIGHLIGHTS = {
  harness9ChatHeader = "Title",
  harness9ChatUser = "Statement",
  harness9ChatAgent = "Special",
  harness9ChatRunning = "WarningMsg",
  harness9ChatAsking = "WarningMsg",
  harness9ChatOk = "String",
  harness9ChatFailed = "ErrorMsg",
  harness9ChatDim = "Comment",
  harness9ChatNote = "Title",
}

local function define_highlights()
  for group, link in pairs(HIGHLIGHTS) do
    vim.cmd(string.format("highlight default link %s %s", group, link))
  end
  markdown.define_highlights()
end

--- The chat buffer's number, or nil when it does not exist.
function M.find()
  local buf = vim.fn.bufnr(M.name)
  if buf ~= -1 and api.nvim_buf_is_valid(buf) then
    return buf
  end
  return nil
end

local function prompt_text(buf)
  local last = api.nvim_buf_get_lines(buf, -2, -1, false)[1] or ""
  if last:sub(1, #M.prompt) == M.prompt then
    return last:sub(#M.prompt + 1)
  end
  return last
end

--- The chat's 'omnifunc': `/name` of the daemon's slash commands at the start of the prompt.
function M.omnifunc(findstart, base)
  return commands.omnifunc(findstart, base, M.prompt)
end

-- Windows showing `buf` whose cursor is on its last line: they keep following the prompt.
local function at_prompt(buf)
  local count, wins = api.nvim_buf_line_count(buf), {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if api.nvim_win_get_cursor(win)[1] >= count then
      table.insert(wins, win)
    end
  end
  return wins
end

--- Puts `text` on the prompt line (replacing what was typed there).
function M.set_prompt(buf, text)
  api.nvim_buf_set_lines(buf, -2, -1, false, { M.prompt .. text })
end

--- Puts `text` back on the prompt line (a prompt that could not be sent), the cursor of the
--- windows on that line after it, as if it had just been typed.
function M.restore_prompt(buf, text)
  if not api.nvim_buf_is_valid(buf) then
    return
  end
  local wins = at_prompt(buf)
  M.set_prompt(buf, text)
  local last = api.nvim_buf_line_count(buf)
  for _, win in ipairs(wins) do
    api.nvim_win_set_cursor(win, { last, #M.prompt + #text })
  end
  vim.bo[buf].modified = false
end

--- The tool block shown on line `line` (1-based) of the chat, if any.
function M.row(line)
  return rows[line]
end

--- The chat buffer (created on first use). `actions`: submit(text), queue(text), plan(text),
--- background(text), unqueue(run), interrupt(), diff(block), each called from the buffer's keys
--- (see the README).
function M.get(actions)
  local existing = M.find()
  if existing then
    return existing
  end
  define_highlights()
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, M.name)
  vim.bo[buf].buftype = "prompt"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = "harness9chat"
  vim.fn.prompt_setprompt(buf, M.prompt)
  api.nvim_buf_set_lines(buf, 0, -1, false, { M.prompt }) -- shown before the first insert too
  vim.fn.prompt_setcallback(buf, function(text)
    actions.submit(text)
  end)
  vim.fn.prompt_setinterrupt(buf, actions.interrupt)
  vim.bo[buf].omnifunc = "v:lua.require'harness9.chat'.omnifunc"
  -- <Tab> after `/` at the start of the prompt completes the command's name (run as the key is
  -- reached, after the text typed before it is in the line).
  vim.keymap.set("i", "<Tab>", function()
    local keys = vim.fn.pumvisible() == 1 and "<C-n>" or not commands.complete_here(M.prompt) and "<Tab>"
    if keys then
      api.nvim_feedkeys(api.nvim_replace_termcodes(keys, true, false, true), "n", false)
    end
  end, { buffer = buf, desc = "harness9: complete the /command's name" })
  local function map(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = buf, desc = desc, nowait = true })
  end
  map("<CR>", function()
    local line = api.nvim_win_get_cursor(0)[1]
    if line == api.nvim_buf_line_count(buf) then
      local text = prompt_text(buf)
      api.nvim_buf_set_lines(buf, -2, -1, false, { M.prompt })
      return actions.submit(text)
    end
    if rows[line] and not rows[line].queued_run then
      actions.diff(rows[line])
    end
  end, "harness9: send the prompt (into the run while one goes), or open the diff of the tool row")
  map("d", function()
    local block = rows[api.nvim_win_get_cursor(0)[1]]
    if block and not block.queued_run then
      actions.diff(block)
    end
  end, "harness9: open the diff of the tool row")
  map("Q", function()
    local text = prompt_text(buf)
    api.nvim_buf_set_lines(buf, -2, -1, false, { M.prompt })
    return actions.queue(text)
  end, "harness9: queue the prompt line (it runs after the run in progress)")
  map("P", function()
    local text = prompt_text(buf)
    api.nvim_buf_set_lines(buf, -2, -1, false, { M.prompt })
    return actions.plan(text)
  end, "harness9: send the prompt line as plan first (the agent plans, changing nothing)")
  map("B", function()
    local text = prompt_text(buf)
    api.nvim_buf_set_lines(buf, -2, -1, false, { M.prompt })
    return actions.background(text)
  end, "harness9: run the prompt line in the background (a task in a git worktree; :Harness9Tasks)")
  map("x", function()
    local row = rows[api.nvim_win_get_cursor(0)[1]]
    if row and row.queued_run then
      actions.unqueue(row.queued_run)
    end
  end, "harness9: remove the queued prompt under the cursor")
  map("<C-c>", actions.interrupt, "harness9: stop the run")
  map("q", "<cmd>close<CR>", "harness9: close the chat window")
  return buf
end

--- Window options for a window showing the chat: long rows wrap at word boundaries.
function M.window_options(win)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].breakindent = true -- a wrapped row stays under its start (a child agent's, indented)
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].conceallevel = 2 -- the marks of the agent's markdown (**, `) are hidden
end

--- Redraws the conversation of `state` above the prompt line of `buf`.
function M.render(buf, state)
  if not api.nvim_buf_is_valid(buf) then
    return
  end
  local out = chat_view.render(state)
  local followers = at_prompt(buf)
  local count = api.nvim_buf_line_count(buf)
  api.nvim_buf_set_lines(buf, 0, count - 1, false, out.lines)
  api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  for _, hl in ipairs(out.highlights) do
    -- pcall: a highlight of the model's text past its line (a parser's quirk) is dropped, not raised.
    pcall(api.nvim_buf_set_extmark, buf, ns, hl[1], hl[3], { end_row = hl.end_row, end_col = hl[4],
      hl_group = hl[2], conceal = hl.conceal, conceal_lines = hl.conceal_lines, priority = hl.priority })
  end
  rows = out.rows
  local last = api.nvim_buf_line_count(buf)
  for _, win in ipairs(followers) do
    local col = api.nvim_win_get_cursor(win)[2]
    api.nvim_win_set_cursor(win, { last, col })
  end
  vim.bo[buf].modified = false
end

return M
