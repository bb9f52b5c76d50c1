// One `harness9 acp` process driven by the TypeScript SDK's client, and the steps of a check,
// each with a time limit that names the step that hung.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

let current = "starting";

/** The step running now (what a hang is reported as). */
export function currentStep() {
  return current;
}

/** Runs `op` as the step `name`; rejects naming the step when it takes longer than `ms`. */
export async function step(name, op, ms = 10000) {
  current = name;
  let timer;
  const hung = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`step "${name}" hung: no answer in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([op(), hung]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A `python -m harness9 acp` process and what it sent: every `session/update` (with the session
 * and when it came), the permission requests (answered allow_once) and the fs/* requests. The
 * client offers its file system; `buffers` holds files with unsaved text (as an editor does), a
 * write saves the buffer.
 */
export class Agent {
  constructor({ python, env, settings, buffers }) {
    const args = ["-m", "harness9", "acp"];
    if (settings) args.push("--settings", JSON.stringify(settings));
    this.process = spawn(python, args, { stdio: ["pipe", "pipe", "inherit"],
                                         env: { ...process.env, ...env } });
    this.exited = new Promise((done) => this.process.once("exit", done));
    this.updates = [];
    this.permissions = [];
    this.fsCalls = [];
    this.buffers = buffers;
    this.app = acp
      .client({ name: "harness9-node-check" })
      .onNotification("session/update", ({ params }) => {
        this.updates.push({ sessionId: params.sessionId, update: params.update,
                            at: performance.now() });
      })
      .onRequest("session/request_permission", ({ params }) => {
        this.permissions.push(params);
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      })
      .onRequest("fs/read_text_file", ({ params }) => {
        this.fsCalls.push(["read", params.path]);
        return { content: buffers.get(params.path) ?? readFileSync(params.path, "utf8") };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        this.fsCalls.push(["write", params.path]);
        buffers.set(params.path, params.content);
        writeFileSync(params.path, params.content);
        return {};
      });
  }

  /** Connects for the lifetime of `op(ctx)`, then closes stdin and waits for the exit. */
  async run(op) {
    const stream = acp.ndJsonStream(Writable.toWeb(this.process.stdin),
                                    Readable.toWeb(this.process.stdout));
    const result = await this.app.connectWith(stream, op);
    await step("the agent exits when its stdin closes", async () => {
      this.process.stdin.end();
      await this.exited;
    }, 5000);
    return result;
  }

  /** The updates of one session (with their arrival times), from the `from`th on. */
  of(sessionId, from = 0) {
    return this.updates.slice(from).filter((u) => u.sessionId === sessionId);
  }

  /** The updates of one session, without their arrival times. */
  updatesOf(sessionId, from = 0) {
    return this.of(sessionId, from).map((u) => u.update);
  }

  /** Ends the process if it still runs (after a failure). */
  kill() {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill();
  }
}
