// An independent ACP client: the official TypeScript SDK drives `harness9 acp` (a scripted model,
// approvals "ask", a price for it) and checks what comes back. The client offers its file system:
// a.txt has an unsaved line in its buffer, and a write saves the buffer (as Zed does).
//
// The first agent process: a prompt of an embedded resource, text and an image reads and edits
// a.txt (its diff), runs a command whose output streams while it runs, records a plan; usage and
// cost updates; commands, the title, /help. A second session calls the tool of an MCP server
// given as `http` (a loopback server of the official MCP SDK, see mcp-echo.mjs). The first
// session is closed, then resumed and continued without a replay.
// A second agent process on the same state folder loads the session (the prompts as typed, the
// resource, the image and the edit's diff come back), then deletes it.
// Exit code 0 when all holds.
//
// HARNESS9_PYTHON names the Python to run `-m harness9 acp` with (default: the repo's .venv).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { Agent, currentStep, step } from "./agent.mjs";
import { startEchoServer } from "./mcp-echo.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const python = process.env.HARNESS9_PYTHON ?? resolve(here, "../../.venv/bin/python");

// Each model call reports this usage; at these prices (US dollars per million tokens) it costs
// 1000 × 2 / 1e6 + 100 × 10 / 1e6 = $0.003.
const usage = { input_tokens: 1000, output_tokens: 100 };
const settings = { prices: { replay: { input: 2, output: 10 } }, contextWindow: 64000 };
const CALL_COST = 0.003;
const COMMAND = "echo one; sleep 0.5; echo two";

const editing = {
  turns: [
    { text: "Reading, then editing.", usage, tool_calls: [
      { id: "c-read", name: "read_file", arguments: { path: "a.txt" } },
      { id: "c-edit", name: "edit_file",
        arguments: { path: "a.txt", source_text: "alpha", target_text: "omega" } },
    ] },
    { text: "Running.", usage, tool_calls: [
      { id: "c-bash", name: "bash", arguments: { command: COMMAND } }] },
    { text: "Planning.", usage, tool_calls: [
      { id: "c-plan", name: "update_plan", arguments: { items: [
        { text: "Change a.txt", status: "done" },
        { text: "Say so", status: "in_progress" },
      ] } },
    ] },
    { text: "Done: a.txt now says omega.", usage },
  ],
};
const echoing = {
  turns: [
    { text: "Asking the echo server.", usage, tool_calls: [
      { id: "c-mcp", name: "mcp__web__echo", arguments: { text: "hello over HTTP" } }] },
    { text: "It answered.", usage },
  ],
};
const goingOn = { turns: [{ text: "On again.", usage }] };
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const root = mkdtempSync(join(tmpdir(), "harness9-acp-node-"));
const workspace = join(root, "ws");
const state = join(root, "state");
const replayFile = join(root, "replay.json");
mkdirSync(workspace);
mkdirSync(state);
writeFileSync(join(workspace, "a.txt"), "alpha\n");
const aPath = join(workspace, "a.txt");
const notes = { uri: pathToFileURL(join(workspace, "notes.md")).href, mimeType: "text/markdown",
                text: "Keep the second line.\n" };
const typed = "change alpha to omega in a.txt";
const buffers = new Map([[aPath, "alpha\n// unsaved\n"]]);
const noProxy = [process.env.NO_PROXY, "127.0.0.1", "localhost"].filter(Boolean).join(",");
const env = {
  HARNESS9_PROVIDER: "replay",
  HARNESS9_REPLAY: replayFile,
  HARNESS9_APPROVALS: "ask",
  HARNESS9_STATE_DIR: state,
  HARNESS9_LOG_LEVEL: "WARNING",
  NO_PROXY: noProxy,  // the MCP server is on loopback
};
// Each run plays the replay script from its start, read when the run begins.
const script = (turns) => writeFileSync(replayFile, JSON.stringify(turns));
const near = (actual, expected, what) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual}, expected ${expected}`);

const guard = setTimeout(() => {
  console.error(`acp-node: timed out in step "${currentStep()}"`);
  process.exit(1);
}, 40000);
const mcp = await startEchoServer();
const first = new Agent({ python, env, settings, buffers });
let second;
try {
  const { sessionId, echoId } = await first.run(async (ctx) => {
    const init = await step("initialize", () => ctx.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    }));
    assert.equal(init.protocolVersion, 1);
    const caps = init.agentCapabilities;
    assert.equal(caps.loadSession, true);
    assert.equal(caps.promptCapabilities.image, true);
    assert.equal(caps.promptCapabilities.embeddedContext, true);
    assert.equal(caps.mcpCapabilities.http, true);
    assert.deepEqual(caps.sessionCapabilities, { list: {}, resume: {}, close: {}, delete: {} });
    assert.ok(init.authMethods.some((m) => m.type === "env_var"), "an env_var auth method");
    const created = await step("session/new", () =>
      ctx.request("session/new", { cwd: workspace, mcpServers: [] }));
    const { sessionId } = created;
    const model = created.configOptions.find((o) => o.id === "model");
    assert.equal(model.category, "model");
    assert.equal(model.currentValue, "replay:replay");
    const set = await step("session/set_config_option", () => ctx.request(
      "session/set_config_option", { sessionId, configId: "reasoning_effort", value: "low" }));
    assert.equal(set.configOptions.find((o) => o.id === "reasoning_effort").currentValue, "low");
    script(editing);
    const answer = await step("the editing prompt", () => ctx.request("session/prompt", {
      sessionId,
      // The resource first, as a client sends a mention typed before the text.
      prompt: [{ type: "resource", resource: notes }, { type: "text", text: typed },
               { type: "image", mimeType: "image/png", data: png }],
    }));
    assert.equal(answer.stopReason, "end_turn");
    const help = await step("/help", () => ctx.request("session/prompt", {
      sessionId, prompt: [{ type: "text", text: "/help" }] }));
    assert.equal(help.stopReason, "end_turn");

    // A session with an MCP server over streamable HTTP: its tool is offered as mcp__web__echo.
    const web = { type: "http", name: "web", url: mcp.url, headers: [] };
    const echo = await step("session/new with an http MCP server", () =>
      ctx.request("session/new", { cwd: workspace, mcpServers: [web] }));
    script(echoing);
    const echoed = await step("the MCP prompt", () => ctx.request("session/prompt", {
      sessionId: echo.sessionId, prompt: [{ type: "text", text: "echo something" }] }));
    assert.equal(echoed.stopReason, "end_turn");

    // Closing ends the session here (a prompt is refused); resuming goes on without a replay.
    assert.deepEqual(await step("session/close", () =>
      ctx.request("session/close", { sessionId })), {});
    await step("a prompt to a closed session", () => assert.rejects(
      ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello?" }] }),
      (error) => error.code === -32602 && error.message.includes("sessionId")));
    const before = first.updates.length;
    const resumed = await step("session/resume", () =>
      ctx.request("session/resume", { sessionId, cwd: workspace, mcpServers: [] }));
    assert.equal(resumed.modes.currentModeId, "ask");
    assert.equal(resumed.configOptions.find((o) => o.id === "reasoning_effort").currentValue,
                 "low");
    script(goingOn);
    const again = await step("a prompt after session/resume", () => ctx.request(
      "session/prompt", { sessionId, prompt: [{ type: "text", text: "go on" }] }));
    assert.equal(again.stopReason, "end_turn");
    const after = first.updatesOf(sessionId, before);
    assert.deepEqual(after.filter((u) => ["user_message_chunk", "tool_call"]
      .includes(u.sessionUpdate)), [], "no replay after session/resume");
    assert.equal(after.filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text).join(""), "On again.");
    // The session's cost so far: the four calls of the first prompt, and this one.
    const cost = after.filter((u) => u.sessionUpdate === "usage_update").at(-1).cost;
    near(cost.amount, 5 * CALL_COST, "the resumed session's cost");
    return { sessionId, echoId: echo.sessionId };
  });

  // The first prompt, as it ran.
  const updates = first.updatesOf(sessionId);
  const commands = updates.find((u) => u.sessionUpdate === "available_commands_update");
  assert.ok(commands.availableCommands.some((c) => c.name === "compact"), "commands announced");
  const title = updates.find((u) => u.sessionUpdate === "session_info_update");
  assert.equal(title.title, typed);
  const text = updates.filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text).join("");
  assert.ok(text.startsWith("Reading, then editing.Running.Planning.Done: a.txt now says omega." +
                            "**Commands**"), text);
  // /help in Markdown, with only what ACP offers.
  assert.ok(text.includes("\n- `/compact` — ") && !text.includes("/resume"), text);
  const plan = updates.filter((u) => u.sessionUpdate === "plan").at(-1);
  assert.deepEqual(plan.entries.map((e) => [e.content, e.status]),
                   [["Change a.txt", "completed"], ["Say so", "in_progress"]]);
  const of = (id, list = updates) => list.filter((u) => u.toolCallId === id);
  for (const id of ["c-read", "c-edit"]) {
    const statuses = of(id).map((u) => u.status);
    assert.deepEqual(statuses, ["pending", "in_progress", "completed"], `${id}: ${statuses}`);
  }
  assert.equal(of("c-read")[0].kind, "read");
  assert.ok(of("c-read").at(-1).content[0].content.text.startsWith("```\n"), "read output fenced");
  assert.equal(of("c-edit")[0].kind, "edit");
  assert.deepEqual(of("c-edit")[0].locations, [{ path: aPath }]);
  const diff = of("c-edit").at(-1).content.find((c) => c.type === "diff");
  assert.deepEqual(diff, { type: "diff", path: aPath,
                           oldText: "alpha\n// unsaved\n", newText: "omega\n// unsaved\n" });
  assert.equal(readFileSync(aPath, "utf8"), "omega\n// unsaved\n");
  assert.deepEqual(first.fsCalls.filter(([verb]) => verb === "write"), [["write", aPath]]);
  assert.ok(first.fsCalls.some(([verb, path]) => verb === "read" && path === aPath));

  // The command's output streamed while it ran: the first piece came in an in_progress update,
  // fenced, well before the call completed (the command sleeps between its two lines).
  const bash = first.of(sessionId).filter((u) => u.update.toolCallId === "c-bash");
  assert.equal(bash[0].update.kind, "execute");
  const live = bash.find((u) => u.update.content?.length);
  const done = bash.find((u) => u.update.status === "completed");
  assert.equal(live.update.status, "in_progress");
  assert.equal(live.update.content[0].content.text, "```\none\n```");
  assert.ok(done.at - live.at > 100, `live output ${done.at - live.at} ms before the end`);
  assert.ok(done.update.content[0].content.text.startsWith("```\none\ntwo\n```"),
            done.update.content[0].content.text);
  assert.equal(done.update.rawOutput.exitCode, 0);

  // A usage update per model call (the first prompt's four, then the one after session/resume),
  // each with that call's tokens, the context window of the settings and the session's cost so far.
  const usages = updates.filter((u) => u.sessionUpdate === "usage_update");
  assert.equal(usages.length, 5);
  for (const [i, u] of usages.entries()) {
    assert.equal(u.used, 1100);
    assert.equal(u.size, 64000);
    assert.equal(u.cost.currency, "USD");
    near(u.cost.amount, (i + 1) * CALL_COST, `usage_update ${i + 1}`);
  }

  // The MCP server's tool, called through the agent, and its answer shown.
  const echoUpdates = first.updatesOf(echoId);
  const mcpCall = of("c-mcp", echoUpdates);
  assert.equal(mcpCall[0].kind, "other");
  assert.deepEqual(mcpCall.map((u) => u.status), ["pending", "in_progress", "completed"]);
  assert.equal(mcpCall.at(-1).status, "completed");
  assert.equal(mcpCall.at(-1).content[0].content.text, "echo: hello over HTTP");
  assert.deepEqual(mcp.seen.calls, [{ text: "hello over HTTP" }]);
  assert.ok(mcp.seen.methods.includes("tools/list"), mcp.seen.methods);

  assert.deepEqual(first.permissions.map((p) => p.toolCall.toolCallId),
                   ["c-edit", "c-bash", "c-mcp"]);
  assert.deepEqual(first.permissions[0].options.map((o) => o.kind),
                   ["allow_once", "allow_always", "reject_once"]);

  // A new process on the same state folder: session/load replays the session as the user saw it.
  second = new Agent({ python, env, settings, buffers });
  const loaded = [];
  await second.run(async (ctx) => {
    await step("initialize (second process)", () => ctx.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} }));
    await step("session/load", () =>
      ctx.request("session/load", { sessionId, cwd: workspace, mcpServers: [] }));
    loaded.push(...second.updatesOf(sessionId));
    // Deleting: the session leaves the list.
    const listed = await step("session/list", () =>
      ctx.request("session/list", { cwd: workspace }));
    assert.deepEqual(listed.sessions.map((x) => x.sessionId).sort(), [sessionId, echoId].sort());
    // Listed with the title the first prompt's text gave it (not the resource attached first).
    assert.equal(listed.sessions.find((x) => x.sessionId === sessionId).title, typed);
    await step("session/delete", () => ctx.request("session/delete", { sessionId }));
    const left = await step("session/list after delete", () =>
      ctx.request("session/list", { cwd: workspace }));
    assert.deepEqual(left.sessions.map((x) => x.sessionId), [echoId]);
  });
  const user = loaded.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content);
  assert.deepEqual(user, [
    { type: "resource", resource: { uri: notes.uri, text: notes.text } },
    { type: "text", text: typed },
    { type: "image", data: png, mimeType: "image/png" },
    { type: "text", text: "go on" },
  ]);
  const edit = loaded.filter((u) => u.toolCallId === "c-edit");
  assert.equal(edit[0].sessionUpdate, "tool_call");
  assert.equal(edit.at(-1).status, "completed");
  assert.deepEqual(edit.at(-1).content[0], { type: "diff", path: aPath,
                                             oldText: "alpha\n// unsaved\n",
                                             newText: "omega\n// unsaved\n" });
  console.log(`acp-node: ok (${first.updates.length} + ${second.updates.length} updates, ` +
              `${first.permissions.length} permission requests, ` +
              `${first.fsCalls.length} fs requests)`);
} finally {
  clearTimeout(guard);
  first.kill();
  second?.kill();
  await mcp.close();
  rmSync(root, { recursive: true, force: true });
}
