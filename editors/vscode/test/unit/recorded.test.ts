/** The reducer on notification sequences recorded from the real daemon (test/fixtures/record.mjs). */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { renderRuns } from '../../src/render';
import { filesAfterCheckpoint } from '../../src/restore';
import {
  applyRequestError,
  applyRestore,
  applyResult,
  initialRunState,
  type ProgressNotification,
  reduceAll,
  type RunState,
} from '../../src/runState';

interface Recording {
  notifications: ProgressNotification[];
  answer: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

function replay(name: string): { state: RunState; recording: Recording } {
  const file = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', `daemon-${name}.json`);
  const recording = JSON.parse(fs.readFileSync(file, 'utf8')) as Recording;
  let state = reduceAll(initialRunState('Record me.'), recording.notifications);
  const { result, error } = recording.answer;
  state = result ? applyResult(state, result) : applyRequestError(state, error?.code, error?.message ?? '');
  return { state, recording };
}

describe('recorded from the daemon', () => {
  it('a completed run with two tools', () => {
    const { state, recording } = replay('completed');
    assert.equal(state.status, 'completed');
    assert.equal(state.runId, recording.answer.result?.runId);
    // In the order the model asked for them (their tool_started order is the order they began).
    assert.deepEqual(state.turns[0].toolCallIds.map((id) => [state.tools[id].name, state.tools[id].status]), [['bash', 'ok'], ['read_file', 'ok']]);
    assert.equal(state.tools[state.turns[0].toolCallIds[0]].output, 'hello from bash\n');
    assert.equal(state.turns[0].text, "I'll look around.");
    assert.equal(state.finalText, 'All done: a.txt says hello.');
    assert.equal(state.turnCount, 2);
    assert.ok(state.usage.inputTokens > 0);
  });

  it('delivered twice, or with every notification repeated, gives the same state', () => {
    const { state, recording } = replay('completed');
    const doubled = recording.notifications.flatMap((n) => [n, n]);
    const again = applyResult(
      reduceAll(initialRunState('Record me.'), [...doubled, ...recording.notifications]),
      recording.answer.result ?? {},
    );
    assert.deepEqual(again, state);
  });

  it('failed tools keep their reason and the text the model saw', () => {
    const { state } = replay('tool-failures');
    assert.deepEqual(
      Object.values(state.tools).map((t) => [t.name, t.status, t.reason]),
      [['edit_file', 'failed', 'bad_arguments'], ['no_such_tool', 'failed', 'unknown_tool'], ['read_file', 'failed', 'bad_arguments']],
    );
    assert.match(state.tools[state.turns[0].toolCallIds[1]].output ?? '', /Available tools: read_file/);
    assert.ok(state.turns[0].thinking);
    assert.equal(state.status, 'completed');
  });

  it('a cancelled run: the running tool ends ✗ cancelled and no error is shown', () => {
    const { state } = replay('cancelled');
    assert.equal(state.status, 'cancelled');
    const [tool] = Object.values(state.tools);
    assert.deepEqual([tool.name, tool.status, tool.reason], ['bash', 'failed', 'cancelled']);
    assert.equal(state.error, undefined);
    assert.match(renderRuns([state]), /✗ cancelled/);
  });

  it('a provider error: status error with the kind and message', () => {
    const { state } = replay('provider-error');
    assert.equal(state.status, 'error');
    assert.equal(state.error, 'network: openai: cannot reach the service: All connection attempts failed');
    assert.equal(state.finalText, undefined);
    assert.match(renderRuns([state]), /class="error">network: openai: cannot reach the service/);
  });

  it('approvals: an edit allowed once runs, a command rejected with a reason is refused, not failed', () => {
    const { state, recording } = replay('approvals');
    const [edit, bash, read] = state.turns[0].toolCallIds.map((id) => state.tools[id]);
    // The rejected call never started: its row comes from approval_requested and tool_failed.
    const kindsOf = (id: string) => recording.notifications.filter((n) => n.toolCallId === id).map((n) => n.kind);
    assert.deepEqual(kindsOf(bash.id), ['approval_requested', 'approval_resolved', 'tool_failed']);
    assert.deepEqual(kindsOf(edit.id), ['approval_requested', 'approval_resolved', 'tool_started', 'tool_completed']);
    assert.deepEqual([edit.name, edit.status, edit.approval], [
      'edit_file', 'ok', { title: 'edit_file: a.txt', decision: 'allow_once', by: 'user', rule: undefined },
    ]);
    assert.deepEqual([bash.name, bash.status, bash.reason, bash.approval?.decision], ['bash', 'refused', 'rejected', 'reject']);
    assert.match(bash.output ?? '', /the user rejected this bash call: keep the file, please/);
    assert.deepEqual([read.name, read.status, read.approval], ['read_file', 'ok', undefined]);
    const html = renderRuns([state]);
    assert.match(html, /class="approval-note allowed">✓ allowed by you, once</);
    assert.match(html, /class="approval-note refused">✗ rejected by you</);
    // The row says why, once: the user's reason (tool_failed `message`) after "rejected".
    assert.equal(bash.message, 'keep the file, please');
    assert.match(html, /<span class="icon">⊘<\/span> <span class="verb">did not run<\/span> <code class="args">rm a.txt<\/code> <span class="meta">rejected: keep the file, please<\/span>/);
    assert.doesNotMatch(html, /waiting for you/);
  });

  it('approvals: while the question is open the call waits, then runs once allowed', () => {
    const { recording } = replay('approvals');
    const upTo = (kind: string, tool: string): RunState => {
      const i = recording.notifications.findIndex((n) => n.kind === kind && n.tool === tool);
      return reduceAll(initialRunState('Record me.'), recording.notifications.slice(0, i + 1));
    };
    const asking = upTo('approval_requested', 'edit_file');
    const edit = Object.values(asking.tools).find((t) => t.name === 'edit_file');
    assert.equal(edit?.status, 'waiting');
    const html = renderRuns([asking]);
    assert.match(html, /‖ waiting for you: <code>edit_file: a.txt<\/code>/);
    assert.match(html, /<span class="meta">waiting for approval<\/span>/);
    const allowed = upTo('approval_resolved', 'edit_file');
    assert.equal(Object.values(allowed.tools).find((t) => t.name === 'edit_file')?.status, 'running');
  });

  it('approvals: rules and the mode refuse without asking, and a rule may allow', () => {
    const { state, recording } = replay('approvals-denied');
    assert.deepEqual((recording as Recording & { asked: unknown[] }).asked, []);
    const tools = state.turns[0].toolCallIds.map((id) => state.tools[id]);
    assert.deepEqual(tools.map((t) => [t.name, t.status, t.reason, t.message]), [
      ['bash', 'refused', 'denied', 'deny rule bash(rm *)'],
      ['write_file', 'refused', 'denied', 'read-only mode: only read_file may run'],
      ['bash', 'ok', undefined, undefined],
    ]);
    const html = renderRuns([state]);
    assert.match(html, /<code class="args">rm -rf build<\/code> <span class="meta">denied: deny rule bash\(rm \*\)<\/span>/);
    assert.match(html, /<code class="args">b\.txt<\/code> <span class="meta">denied: read-only mode: only read_file may run<\/span>/);
    assert.match(html, /✗ denied by the rule bash\(rm \*\)/);
    assert.match(html, /✗ denied by the approvals mode/);
    assert.match(html, /✓ allowed by the rule bash\(npm test\)/);
    // npm test exited 254: a failed row with its exit code, though the call completed for the model.
    assert.match(html, /<details class="tool failed" data-key="[^"]*\/call_1_2" data-tool="bash">\n<summary><span class="icon">✗<\/span> <span class="verb">ran<\/span> <code class="args">npm test<\/code> <span class="meta">exit 254 · [^<]+<\/span>/);
  });

  it('approvals: a run cancelled while asking ends the waiting call as cancelled', () => {
    const { state } = replay('approval-cancelled');
    assert.equal(state.status, 'cancelled');
    const [tool] = Object.values(state.tools);
    assert.deepEqual([tool.status, tool.reason, tool.approval?.title], ['failed', 'cancelled', 'bash: touch planted']);
    assert.doesNotMatch(renderRuns([state]), /waiting for you/);
  });

  it('checkpoints: the bash call lists the two files it changed; each checkpoint is a restore action on its turn', () => {
    const { state } = replay('checkpoints');
    const [bash] = Object.values(state.tools);
    assert.deepEqual(bash.changedFiles, [{ path: 'a.txt', status: 'modified' }, { path: 'b.txt', status: 'added' }]);
    assert.equal(bash.changedFilesSharedWith, undefined);
    assert.deepEqual(state.checkpoints?.map((c) => [c.turn, c.files, c.beforeTools]), [
      [1, [], true], [1, ['a.txt', 'b.txt'], false],
    ]);
    const [before, after] = state.checkpoints ?? [];
    assert.deepEqual(filesAfterCheckpoint([state], before.checkpointId), ['a.txt', 'b.txt']);
    assert.deepEqual(filesAfterCheckpoint([state], after.checkpointId), []);
    const html = renderRuns([state]);
    assert.match(html, /<li class="changed modified"><span class="change-icon" title="modified">~<\/span> <button type="button" class="link path" data-action="open-file" data-path="a.txt">a.txt<\/button><\/li>/);
    assert.match(html, /<li class="changed added"><span class="change-icon" title="added">\+<\/span> <button [^>]*data-path="b.txt">b.txt<\/button><\/li>/);
    assert.doesNotMatch(html, /shared:/);
    // The snapshot before the batch comes before the tool item, the one after it below.
    const restores = [...html.matchAll(/data-action="restore" data-checkpoint="([0-9a-f]+)">↺ Restore to here/g)].map((m) => m[1]);
    assert.deepEqual(restores, [before.checkpointId, after.checkpointId]);
    assert.ok(html.indexOf(before.checkpointId) < html.indexOf('class="tool ') && html.indexOf('class="tool ') < html.indexOf(after.checkpointId));
    assert.match(html, /checkpoint after the tools · 2 files changed/);
    assert.match(html, /data-index="0"/);
  });

  it('checkpoints: a restore shows "restored N files" on its checkpoint, a refusal its error', () => {
    const { state } = replay('checkpoints');
    const [before, after] = state.checkpoints ?? [];
    const done = renderRuns([applyRestore(state, { checkpointId: before.checkpointId, restored: ['a.txt', 'b.txt'] })]);
    assert.match(done, new RegExp(`data-checkpoint="${before.checkpointId}">\\n<button[^\\n]*\\n<div class="restore-note" role="status">↺ restored 2 files</div>`));
    assert.equal(done.match(/restore-note/g)?.length, 1);
    const busy = renderRuns([applyRestore(state, { checkpointId: after.checkpointId, error: 'the session is busy' })]);
    assert.match(busy, /class="restore-note error" role="alert">✗ restore failed: the session is busy</);
  });

  it('sandbox: each bash row says where it ran, from the daemon\'s sandbox; other tools say nothing', () => {
    const { state } = replay('sandbox-escalate');
    const [inside, outside] = state.turns[0].toolCallIds.map((id) => state.tools[id]);
    assert.deepEqual([inside.sandbox, inside.status], ['bwrap', 'ok']);
    assert.deepEqual([outside.sandbox, outside.status, outside.approval?.escalate], ['none', 'ok', true]);
    assert.equal(outside.approval?.reason, 'asks to run outside the OS sandbox: download the package index');
    const html = renderRuns([state]);
    assert.match(html, /<code class="args">echo in the sandbox<\/code> <span class="meta">[^<]*<\/span> <span class="sandbox-mark sandbox-bwrap" title="[^"]*">sandboxed \(bwrap\)<\/span>/);
    assert.match(html, /<span class="sandbox-mark sandbox-none" title="[^"]*">not sandboxed<\/span>/);
    assert.equal(html.match(/sandbox-mark/g)?.length, 2);
    assert.doesNotMatch(renderRuns([replay('approvals').state]), /sandbox-mark/, 'a daemon without sandbox: no mark');
  });

  it('sandbox: a command the sandbox stopped waits on its own row for the rerun question, then ends with the rerun', () => {
    const { state, recording } = replay('sandbox-rerun');
    const kinds = recording.notifications.filter((n) => n.toolCallId !== undefined && n.kind !== 'tool_output').map((n) => n.kind);
    assert.deepEqual(kinds, ['tool_started', 'approval_requested', 'approval_resolved', 'tool_completed']);
    const asking = reduceAll(initialRunState('Record me.'), recording.notifications.slice(0, recording.notifications.findIndex((n) => n.kind === 'approval_requested') + 1));
    assert.equal(Object.keys(asking.tools).length, 1, 'one row, not a second one for the question');
    const waiting = Object.values(asking.tools)[0];
    assert.deepEqual([waiting.status, waiting.sandbox, waiting.approval?.afterStart, waiting.liveOutput], ['waiting', 'bwrap', true, undefined]);
    assert.match(renderRuns([asking]), /‖ waiting for you: <code>bash: touch \/var\/tmp\/h9-outside\/rerun<\/code><span class="approval-why"> · it was stopped by the OS sandbox \(touch: cannot touch &#39;\/var\/tmp\/h9-outside\/rerun&#39;: Read-only file system\)<\/span>/);
    const [tool] = Object.values(state.tools);
    assert.deepEqual([tool.status, tool.exitCode, tool.sandbox, tool.neverRan, tool.approval?.decision], ['ok', 0, 'none', undefined, 'allow_once']);
    const html = renderRuns([state]);
    assert.match(html, /<span class="verb">ran<\/span>/);
    assert.match(html, /not sandboxed/);
    assert.match(html, /✓ allowed by you, once/);
  });

  it('sandbox: a rejected rerun keeps the sandboxed run\'s result; the call did run', () => {
    const { state } = replay('sandbox-rerun-rejected');
    const [tool] = Object.values(state.tools);
    assert.deepEqual([tool.status, tool.exitCode, tool.sandbox, tool.neverRan, tool.approval?.decision], ['ok', 1, 'bwrap', undefined, 'reject']);
    assert.match(tool.output ?? '', /Read-only file system/);
    const html = renderRuns([state]);
    assert.match(html, /<span class="icon">✗<\/span> <span class="verb">ran<\/span> <code class="args">touch \/var\/tmp\/h9-outside\/rejected<\/code> <span class="meta">exit 1 · \d+ ms<\/span> <span class="sandbox-mark sandbox-bwrap"/);
    assert.match(html, /✗ rejected by you/);
  });
});
