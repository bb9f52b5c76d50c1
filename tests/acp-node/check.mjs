// An independent ACP client: the official TypeScript SDK runs a prompt (text and an image)
// against `harness9 acp` (a scripted model, approvals "ask") and checks what comes back: tool
// calls, the diff, the plan, commands, the title; then deletes the session. The client offers its
// file system: a.txt has an unsaved line in its buffer, and a write saves the buffer (as Zed does).
// Exit code 0 when all holds.
//
// HARNESS9_PYTHON names the Python to run `-m harness9 acp` with (default: the repo's .venv).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";

const here = dirname(fileURLToPath(import.meta.url));
const python = process.env.HARNESS9_PYTHON ?? resolve(here, "../../.venv/bin/python");

const script = {
  turns: [
    {
      text: "Reading, then editing.",
      tool_calls: [
        { id: "c-read", name: "read_file", arguments: { path: "a.txt" } },
        { id: "c-edit", name: "edit_file",
          arguments: { path: "a.txt", source_text: "alpha", target_text: "omega" } },
      ],
    },
    {
      text: "Planning.",
      tool_calls: [
        { id: "c-plan", name: "update_plan", arguments: { items: [
          { text: "Change a.txt", status: "done" },
          { text: "Say so", status: "in_progress" },
        ] } },
      ],
    },
    { text: "Done: a.txt now says omega." },
  ],
};
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const root = mkdtempSync(join(tmpdir(), "harness9-acp-node-"));
const workspace = join(root, "ws");
const state = join(root, "state");
mkdirSync(workspace);
mkdirSync(state);
writeFileSync(join(workspace, "a.txt"), "alpha\n");
writeFileSync(join(root, "replay.json"), JSON.stringify(script));

const agent = spawn(python, ["-m", "harness9", "acp"], {
  stdio: ["pipe", "pipe", "inherit"],
  env: {
    ...process.env,
    HARNESS9_PROVIDER: "replay",
    HARNESS9_REPLAY: join(root, "replay.json"),
    HARNESS9_APPROVALS: "ask",
    HARNESS9_STATE_DIR: state,
    HARNESS9_LOG_LEVEL: "WARNING",
  },
});
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

const updates = [];
const permissions = [];
const fsCalls = [];
const aPath = join(workspace, "a.txt");
const buffers = new Map([[aPath, "alpha\n// unsaved\n"]]);
const app = acp
  .client({ name: "harness9-node-check" })
  .onNotification("session/update", ({ params }) => { updates.push(params.update); })
  .onRequest("session/request_permission", ({ params }) => {
    permissions.push(params);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  })
  .onRequest("fs/read_text_file", ({ params }) => {
    fsCalls.push(["read", params.path]);
    return { content: buffers.get(params.path) ?? readFileSync(params.path, "utf8") };
  })
  .onRequest("fs/write_text_file", ({ params }) => {
    fsCalls.push(["write", params.path]);
    buffers.set(params.path, params.content);
    writeFileSync(params.path, params.content);
    return {};
  });

const timer = setTimeout(() => { console.error("timed out"); process.exit(1); }, 20000);
try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentCapabilities.loadSession, true);
    assert.ok(init.authMethods.some((m) => m.type === "env_var"), "an env_var auth method");
    const created = await ctx.request("session/new", { cwd: workspace, mcpServers: [] });
    const { sessionId } = created;
    const model = created.configOptions.find((o) => o.id === "model");
    assert.equal(model.category, "model");
    assert.equal(model.currentValue, "replay:replay");
    const set = await ctx.request("session/set_config_option", {
      sessionId, configId: "reasoning_effort", value: "low" });
    assert.equal(set.configOptions.find((o) => o.id === "reasoning_effort").currentValue, "low");
    const answer = await ctx.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "change alpha to omega in a.txt" },
               { type: "image", mimeType: "image/png", data: png }],
    });
    assert.equal(answer.stopReason, "end_turn");
    const help = await ctx.request("session/prompt", {
      sessionId, prompt: [{ type: "text", text: "/help" }] });
    assert.equal(help.stopReason, "end_turn");
    assert.equal(init.agentCapabilities.promptCapabilities.image, true);
    // Deleting: advertised, and the session leaves the list.
    assert.deepEqual(init.agentCapabilities.sessionCapabilities.delete, {});
    const before = await ctx.request("session/list", { cwd: workspace });
    assert.deepEqual(before.sessions.map((x) => x.sessionId), [sessionId]);
    await ctx.request("session/delete", { sessionId });
    const after = await ctx.request("session/list", { cwd: workspace });
    assert.deepEqual(after.sessions, []);
  });
  const commands = updates.find((u) => u.sessionUpdate === "available_commands_update");
  assert.ok(commands.availableCommands.some((c) => c.name === "compact"), "commands announced");
  const title = updates.find((u) => u.sessionUpdate === "session_info_update");
  assert.equal(title.title, "change alpha to omega in a.txt");
  const text = updates.filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text).join("");
  assert.ok(text.startsWith("Reading, then editing.Planning.Done: a.txt now says omega.Commands"),
            text);
  const plan = updates.filter((u) => u.sessionUpdate === "plan").at(-1);
  assert.deepEqual(plan.entries.map((e) => [e.content, e.status]),
                   [["Change a.txt", "completed"], ["Say so", "in_progress"]]);
  const of = (id) => updates.filter((u) => u.toolCallId === id);
  for (const id of ["c-read", "c-edit"]) {
    const statuses = of(id).map((u) => u.status);
    assert.deepEqual(statuses, ["pending", "in_progress", "completed"], `${id}: ${statuses}`);
  }
  assert.equal(of("c-read")[0].kind, "read");
  assert.ok(of("c-read").at(-1).content[0].content.text.startsWith("```\n"), "read output fenced");
  assert.equal(of("c-edit")[0].kind, "edit");
  assert.deepEqual(of("c-edit")[0].locations, [{ path: join(workspace, "a.txt") }]);
  const diff = of("c-edit").at(-1).content.find((c) => c.type === "diff");
  assert.deepEqual(diff, { type: "diff", path: aPath,
                           oldText: "alpha\n// unsaved\n", newText: "omega\n// unsaved\n" });
  assert.equal(permissions.length, 1);
  assert.equal(permissions[0].toolCall.toolCallId, "c-edit");
  assert.deepEqual(permissions[0].options.map((o) => o.kind),
                   ["allow_once", "allow_always", "reject_once"]);
  assert.equal(readFileSync(aPath, "utf8"), "omega\n// unsaved\n");
  assert.deepEqual(fsCalls.filter(([verb]) => verb === "write"), [["write", aPath]]);
  assert.ok(fsCalls.some(([verb, path]) => verb === "read" && path === aPath));
  console.log(`acp-node: ok (${updates.length} updates, 1 permission request, ` +
              `${fsCalls.length} fs requests)`);
} finally {
  clearTimeout(timer);
  agent.stdin.end();
  agent.kill();
  rmSync(root, { recursive: true, force: true });
}
