-- A child agent's rows stay under its task's row however often the chat redraws: the events of a
-- run with a task (as the daemon sent them in the subagents scenario) folded into the view, the
-- chat drawn a varying number of times after each, many runs over, so that Neovim's LuaJIT
-- compiles the drawing code as it does after a while in a long session (or sooner on a loaded
-- machine, where more redraws come between the events). No daemon: the view is data.
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local view = require("harness9.view")
local chat_view = require("harness9.chat_view")

local TASK = { agent = "general", description = "find the greeting", prompt = "CHILD: run echo" }
local ECHO = { command = "echo child-ran" }
local CHILD = { parentToolCallId = "call_1_0", agent = "general" }
local BASH = { tool = "bash", toolKind = "execute", toolCallId = "call_1_0/call_2_0", arguments = ECHO }

local function child(fields, extra)
  return vim.tbl_extend("force", CHILD, fields, extra or {})
end

local EVENTS = {
  { kind = "run_started" },
  { kind = "turn_started", turn = 1 },
  { kind = "text_delta", turn = 1, text = "Asking a helper." },
  { kind = "assistant_message", turn = 1, text = "Asking a helper.",
    toolCalls = { { id = "call_1_0", name = "task", arguments = TASK, kind = "think" } } },
  { kind = "tool_started", turn = 1, tool = "task", toolKind = "think", toolCallId = "call_1_0", arguments = TASK },
  child({ kind = "assistant_message", turn = 1, text = "Looking.",
          toolCalls = { { id = "call_1_0/call_2_0", name = "bash", arguments = ECHO, kind = "execute" } } }),
  child(BASH, { kind = "approval_requested", turn = 1, title = "bash: echo child-ran" }),
  child(BASH, { kind = "approval_resolved", turn = 1, by = "user", decision = "allow_once" }),
  child(BASH, { kind = "tool_started", turn = 1, sandbox = "bwrap" }),
  child(BASH, { kind = "tool_output", turn = 1, text = "child-ran\n" }),
  child(BASH, { kind = "tool_completed", turn = 1, sandbox = "bwrap", exitCode = 0, durationMs = 31,
                output = "child-ran\n" }),
  child({ kind = "assistant_message", turn = 2, text = "CHILD-ANSWER: it printed child-ran.", toolCalls = {} }),
  { kind = "tool_completed", turn = 1, tool = "task", toolKind = "think", toolCallId = "call_1_0", agent = "general",
    durationMs = 61, costUsd = 0.0009, output = "CHILD-ANSWER: it printed child-ran." },
  { kind = "turn_started", turn = 2 },
  { kind = "text_delta", turn = 2, text = "PARENT-ANSWER: the helper is done." },
  { kind = "assistant_message", turn = 2, text = "PARENT-ANSWER: the helper is done.", toolCalls = {} },
  { kind = "run_finished", status = "completed", turns = 2, toolCalls = 1 },
}

local EXPECTED = {
  "harness9",
  "Asking a helper.",
  "  ✓ general agent: find the greeting · 61 ms · $0.0009",
  "    Looking.",
  "      ✓ ran `echo child-ran` · exit 0 · allowed once · 31 ms · sandboxed (bwrap)",
  "    CHILD-ANSWER: it printed child-ran.",
  "PARENT-ANSWER: the helper is done.",
  "  ── done · 2 turns · 1 tool call",
}

-- The lines of the last run's agent part in the chat.
local function answer(lines)
  local out, inside = {}, false
  for _, line in ipairs(lines) do
    inside = inside or line == "harness9"
    if inside then
      table.insert(out, line)
    end
  end
  return vim.list_slice(out, #out - #EXPECTED, #out - 1) -- the blank line after it left out
end

h.main(function()
  local state = view.new()
  local seed = 7
  for round = 1, 12 do
    local run_id = "r-" .. round
    view.start(state, "find the greeting")
    for _, ev in ipairs(EVENTS) do
      view.apply(state, vim.tbl_extend("force", ev, { runId = run_id, sessionId = "s-1" }))
      seed = (seed * 1103515245 + 12345) % 2147483648 -- 0 to 3 redraws after each event
      for _ = 1, math.floor(seed / 65536) % 4 do
        local lines = chat_view.render(state).lines
        for i, line in ipairs(lines) do
          if line:match("^CHILD%-ANSWER") or line == "Looking." then
            h.fail(string.format("round %d: the child's row at line %d is not indented:\n%s", round, i,
              table.concat(lines, "\n")))
          end
        end
      end
    end
    h.expect_lines("round " .. round .. "'s answer", EXPECTED, answer(chat_view.render(state).lines))
  end
end)
