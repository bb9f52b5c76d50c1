-- The OS sandbox in mode auto, against the real daemon: each bash row says where its command ran
-- (the daemon's `sandbox`). With bubblewrap, a write into .git (read-only in the sandbox) is
-- stopped and offered to run again outside: the question says why, on the call's own row, and
-- the row ends with the rerun, "not sandboxed". A call with `escalate` is asked about as running
-- OUTSIDE the sandbox, with its reason; rejected, it never runs. The sandbox the machine has comes
-- from `harness9 doctor` (the client's `sandbox` setting pins the mode, whatever HARNESS9_SANDBOX).
local h = dofile(os.getenv("H9_TESTS") .. "/helpers.lua")
local harness9 = require("harness9")

--- The sandbox bash gets here: bwrap, landlock or none (doctor's first line).
local function machine_sandbox()
  local out = vim.fn.system({ h.daemon, "doctor" })
  return out:match("^sandbox: (%a+)") or out:match("\nsandbox: (%a+)")
end

--- The run buffer's lines with durations made constant (the sandbox marks kept).
local function run_lines()
  return vim.tbl_map(function(line)
    return (line:gsub("%d+ ms", "N ms"))
  end, vim.api.nvim_buf_get_lines(harness9.buffer(), 0, -1, false))
end

h.main(function()
  local sandbox = machine_sandbox()
  if sandbox ~= "bwrap" and sandbox ~= "landlock" then
    return h.skip("no OS sandbox works here (harness9 doctor: " .. tostring(sandbox) .. ")")
  end
  h.setup({ approvals = { mode = "auto" }, init_options = { sandbox = { mode = "workspace-write" } } })
  vim.fn.mkdir(h.workspace .. "/.git", "p") -- a repository: its .git is read-only in bubblewrap
  require("harness9.approval").ui = "select"
  local asked = h.fake_select(sandbox == "bwrap" and { "Allow once", "Reject" } or { "Reject" })
  local reasons = h.fake_input("stay inside")
  vim.cmd("Harness9Run use the sandbox")
  h.wait_for("the end of the run", function()
    return not harness9.running()
  end)
  local escalate = asked[#asked]
  h.expect_equal("the escalation's question", {
    prompt = "harness9 asks to run bash: echo outside OUTSIDE the sandbox (it asks to run outside the OS sandbox: show what escalation asks)",
    previews = { { filetype = "sh", lines = {
      "# ⚠ Allowed, this command runs OUTSIDE the sandbox: it can write anywhere you can and reach the network.",
      "# Asked because it asks to run outside the OS sandbox: show what escalation asks",
      "",
      "echo outside",
    } } },
  }, { prompt = escalate.prompt, previews = escalate.previews })
  h.expect_equal("reasons asked", { "Reason for rejecting (optional): " }, reasons)
  local lines = run_lines()
  local mark = "sandboxed (" .. sandbox .. ")"
  h.expect_equal("the first bash row", "  ✓ bash: mkdir build && echo made  (N ms) · " .. mark, lines[4])
  if sandbox == "bwrap" then
    h.expect_equal("the rerun's question", {
      prompt = "harness9 asks to run bash: touch .git/h9-rerun OUTSIDE the sandbox (it was stopped by the OS sandbox "
        .. "(touch: cannot touch '.git/h9-rerun': Read-only file system))",
    }, { prompt = asked[1].prompt })
    -- One row for the call: it ran in the sandbox, was asked about, ran again outside.
    h.expect_equal("the rerun's row", "  ✓ bash: touch .git/h9-rerun  (allowed once, N ms) · not sandboxed", lines[8])
    h.expect_equal(".git/h9-rerun (written outside)", "", h.workspace_file(".git/h9-rerun"))
  else
    -- Landlock leaves .git writable: nothing stops the write, nothing is asked.
    h.expect_equal("the write into .git", "  ✓ bash: touch .git/h9-rerun  (N ms) · " .. mark, lines[8])
  end
  -- Rejected, the escalated call never started: no mark.
  h.expect_equal("the escalated row", "  ✗ bash: echo outside  (rejected: stay inside; N ms)", lines[12])
end)
