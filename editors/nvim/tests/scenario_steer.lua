-- Working with the agent while it runs, in the chat against the real daemon: a prompt sent while
-- a run goes is steered into it (shown where the agent read it), `Q` queues a prompt behind the
-- run and `x` takes a queued one out again, the plan is a checklist that follows each
-- update_plan; then :Harness9Plan asks for a plan only and :Harness9Go carries it out.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")

local function replay(n)
  return (h.replay:gsub("steer%.json$", "steer" .. n .. ".json"))
end

-- Types `text` on the prompt line and sends it with Enter (insert mode): a run, or a steer.
local function type_prompt(text)
  vim.api.nvim_feedkeys("A" .. text .. "\r", "tx", false)
end

-- Types `text` on the prompt line and queues it with the chat's `Q` (normal mode).
local function queue_prompt(text)
  vim.api.nvim_feedkeys("A" .. text .. "\27Q", "tx", false)
end

local function lines(buf)
  local out = h.normalized(buf)
  for i, line in ipairs(out) do
    out[i] = line:gsub(" · %d+%.%d s ", " · N s ")
  end
  out[1] = out[1]:gsub("session s%-%x+", "session S"):gsub(" · context %d+%% · [%d,]+ / [%d,]+ tokens$", "")
  return out
end

local function line_of(buf, text)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line == text then
      return i
    end
  end
  return nil
end

local function wait_line(buf, what, text)
  h.wait_for(what .. " (" .. text .. ")", function()
    return line_of(buf, text) ~= nil
  end)
end

local function wait_match(buf, what, pattern)
  h.wait_for(what .. " (" .. pattern .. ")", function()
    for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      if line:match(pattern) then
        return true
      end
    end
    return false
  end)
end

local function steer_and_queue(buf)
  harness9.config.run_params = { replayFile = h.replay }
  type_prompt("tidy the project in three steps")
  wait_line(buf, "the plan's first update", "  [>] Read the code")
  wait_match(buf, "the running command", "^  … running `sleep 3` · ")
  -- While the command runs, the prompt line steers the run: the message waits for a safe point.
  type_prompt("also add a line to the README")
  wait_line(buf, "the steer on its way", "  ↪ You (on its way): also add a line to the README")
  wait_line(buf, "the steer delivered", "  ↪ You: also add a line to the README")
  -- Two prompts queued behind the run (with a script of their own); the second is removed.
  harness9.config.run_params = { replayFile = replay(2) }
  queue_prompt("then list the files")
  queue_prompt("something to drop")
  wait_line(buf, "the second queued prompt", "  (queued · #2 in line; x removes it)")
  h.expect_equal("the first queued prompt's place", true, line_of(buf, "  (queued · next; x removes it)") ~= nil)
  vim.api.nvim_win_set_cursor(0, { line_of(buf, "something to drop"), 0 })
  vim.api.nvim_feedkeys("x", "tx", false)
  h.wait_for("the removed prompt to go", function()
    return line_of(buf, "something to drop") == nil
  end)
  wait_line(buf, "the plan's second update", "  [>] Write the change")
  h.wait_idle("the run and the queued prompt")
  h.expect_lines("the steered run and the queued prompt after it", {
    "harness9 chat · session S",
    "",
    "You",
    "tidy the project in three steps",
    "",
    "harness9",
    "  Plan · 3 of 3 done",
    "  [x] Read the code",
    "  [x] Write the change",
    "  [x] Check it",
    "First, a plan.",
    "  (updated the plan)",
    "  ✓ ran `sleep 3` · exit 0 · N s · <sandbox>",
    "  ↪ You: also add a line to the README",
    "Noted: the README gets a line too.",
    "  (updated the plan)",
    "  ✓ ran `sleep 5` · exit 0 · N s · <sandbox>",
    "Checking.",
    "  (updated the plan)",
    "All three steps are done.",
    "  ── done · 4 turns · 5 tool calls · N in / N out tokens",
    "",
    "You",
    "then list the files",
    "",
    "harness9",
    "The files are listed.",
    "  ── done · 1 turn · 0 tool calls · N in / N out tokens",
    "",
    "» ",
  }, lines(buf))
end

-- The session read back (agent/session): the steer in the run it went into, the plan on it.
local function session_read_back()
  local client_mod = require("harness9.client")
  local reply
  client_mod.call(client_mod.find(harness9.config), "request", "agent/session", { sessionId = harness9.session_id() },
    function(err, result)
      reply = { err = err, result = result }
    end)
  h.wait_for("agent/session", function()
    return reply ~= nil
  end)
  h.expect_equal("agent/session's error", nil, reply.err)
  local state = require("harness9.view").new()
  require("harness9.view").load_session(state, reply.result)
  local out = require("harness9.chat_view").render(state).lines
  out[1] = out[1]:gsub("session s%-%x+", "session S")
  for i, line in ipairs(out) do -- each call as it went live: its exit, duration and sandbox
    out[i] = line:gsub(" · %d+%.%d s ", " · N s "):gsub(" · sandboxed %(%a+%)$", " · <sandbox>")
      :gsub(" · not sandboxed$", " · <sandbox>")
  end
  h.expect_lines("the session read back", {
    "harness9 chat · session S",
    "",
    "You",
    "tidy the project in three steps",
    "",
    "harness9",
    "  Plan · 3 of 3 done",
    "  [x] Read the code",
    "  [x] Write the change",
    "  [x] Check it",
    "First, a plan.",
    "  (updated the plan)",
    "  ✓ ran `sleep 3` · exit 0 · N s · <sandbox>",
    "  ↪ You: also add a line to the README",
    "Noted: the README gets a line too.",
    "  (updated the plan)",
    "  ✓ ran `sleep 5` · exit 0 · N s · <sandbox>",
    "Checking.",
    "  (updated the plan)",
    "All three steps are done.",
    "  ── done · 4 turns · 5 tool calls",
    "",
    "You",
    "then list the files",
    "",
    "harness9",
    "The files are listed.",
    "  ── done · 1 turn · 0 tool calls",
    "",
  }, out)
end

local function plan_then_go(buf)
  harness9.config.run_params = { replayFile = replay(3) }
  vim.cmd("Harness9Plan plan how to mark the project done")
  h.wait_idle("the plan-only run")
  local shown = lines(buf)
  h.expect_lines("the plan-only run", {
    "You",
    "plan how to mark the project done",
    "  (plan first: the agent investigates and plans, changing nothing)",
    "",
    "harness9",
    "  Plan · 0 of 2 done",
    "  [ ] Write done.txt",
    "  [ ] Say so",
    "Looking around before planning.",
    "  ✓ read a.txt · 17 B · N ms",
    "  (updated the plan)",
    "The plan is ready: two steps.",
    "  ── done · 2 turns · 2 tool calls · N in / N out tokens",
    "  ▶ :Harness9Go carries out the plan",
    "",
    "» ",
  }, vim.list_slice(shown, #shown - 15, #shown))
  harness9.config.run_params = { replayFile = replay(4) }
  vim.cmd("Harness9Go")
  h.wait_idle("the run carrying out the plan")
  shown = lines(buf)
  h.expect_lines("the plan carried out", {
    "You",
    "Carry out the plan.",
    "",
    "harness9",
    "  Plan · 2 of 2 done",
    "  [x] Write done.txt",
    "  [x] Say so",
    "Carrying it out.",
    "  (updated the plan)",
    "  ✓ ran `echo planned > done.txt` · exit 0 · N ms · <sandbox>",
    "    + done.txt",
    "Saying so.",
    "  (updated the plan)",
    "Done as planned: done.txt is written.",
    "  ── done · 3 turns · 3 tool calls · N in / N out tokens",
    "",
    "» ",
  }, vim.list_slice(shown, #shown - 16, #shown))
  h.expect_equal("done.txt", "planned\n", h.workspace_file("done.txt"))
  -- What went on the wire: plan: true, then executePlan: true without a prompt.
  local log = table.concat(vim.api.nvim_buf_get_lines(harness9.open_log(), 0, -1, false), "\n")
  h.expect_equal("agent/run with plan: true", true, log:find('"plan": ?true') ~= nil)
  h.expect_equal("agent/run with executePlan: true", true, log:find('"executePlan": ?true') ~= nil)
end

-- Hands the daemon's answers to agent/steer on `ms` late, as a loaded machine may read them: after
-- the end of the run the message went into. Returns the function that stops it.
local function steer_answers_late(ms)
  local client = require("harness9.client").find(harness9.config)
  local request = client.request
  client.request = function(...)
    local args = { ... } -- (self,) method, params, handler, bufnr: 0.11+ passes self
    for i = 1, 2 do
      if args[i] == "agent/steer" and type(args[i + 2]) == "function" then
        local handler = args[i + 2]
        args[i + 2] = function(...)
          local answer = { ... }
          vim.defer_fn(function()
            handler(unpack(answer, 1, 4))
          end, ms)
        end
      end
    end
    return request(unpack(args, 1, 5))
  end
  return function()
    client.request = request
  end
end

-- A steer that comes too late for its run (it stops at max_turns first) runs next, as a prompt of
-- its own (the daemon's answer `next`), with the settings' script. Its answer read after the run's
-- end: until then the plugin is not idle (the next run may be on its way).
local function steer_too_late(buf)
  harness9.config.run_params = { replayFile = replay(5), maxTurns = 1 }
  type_prompt("one step")
  wait_match(buf, "the running command", "^  … running `sleep 2` · ")
  local restore = steer_answers_late(1500)
  type_prompt("and then list the files")
  wait_match(buf, "the first run's end", "^  ── max_turns · ")
  h.expect_equal("running, with the steer's answer to come", true, harness9.running())
  h.wait_idle("the run and the steer run next")
  restore()
  local shown = lines(buf)
  h.expect_lines("the steer run next", {
    "You",
    "one step",
    "",
    "harness9",
    "One step only.",
    "  ✓ ran `sleep 2` · exit 0 · N s · <sandbox>",
    "  ── max_turns · 1 turn · 1 tool call · N in / N out tokens",
    "",
    "You",
    "and then list the files",
    "",
    "harness9",
    "The files are listed.",
    "  ── done · 1 turn · 0 tool calls · N in / N out tokens",
    "",
    "» ",
  }, vim.list_slice(shown, #shown - 15, #shown))
end

h.main(function()
  -- The settings' script (a steer's next run plays it) is a short one.
  h.setup({ init_options = { replayFile = replay(2) } })
  local buf = harness9.chat()
  vim.wait(200)
  steer_and_queue(buf)
  session_read_back()
  for _, name in ipairs({ "agent/steer", "agent/queue", "agent/unqueue" }) do
    h.expect_served("methods", name)
  end
  for _, kind in ipairs({ "steered", "queued", "dequeued", "plan" }) do
    h.expect_served("progressKinds", kind)
  end
  vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1])
  plan_then_go(buf)
  steer_too_late(buf)
end)
