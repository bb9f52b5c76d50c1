/** The run-state reducer on recorded `agent/progress` sequences: completed, cancelled, failed. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  applyRequestError,
  applyResult,
  initialRunState,
  isFinished,
  type ProgressNotification,
  reduce,
  reduceAll,
} from '../../src/runState';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'test', 'fixtures');

function load(name: string): ProgressNotification[] {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as ProgressNotification[];
}

describe('a completed run', () => {
  const state = reduceAll(initialRunState('say hi'), load('completed.json'));

  it('takes the run and session ids from the first notification', () => {
    assert.equal(state.runId, 'r-1');
    assert.equal(state.sessionId, 's-1');
    assert.equal(state.provider, 'replay');
  });

  it('ends completed with counts and total usage', () => {
    assert.equal(state.status, 'completed');
    assert.ok(isFinished(state));
    assert.equal(state.turnCount, 2);
    assert.equal(state.toolCallCount, 2);
    assert.deepEqual(state.usage, { inputTokens: 250, outputTokens: 25 });
    assert.equal(state.lastSeq, 16);
  });

  it('keeps each turn text, the tool calls in call order and the final answer', () => {
    assert.deepEqual(
      state.turns.map((t) => [t.turn, t.text, t.toolCallIds]),
      [
        [1, "I'll look.", ['call_1', 'call_2']],
        [2, 'All done.', []],
      ],
    );
    assert.equal(state.turns[0].observationMessages, 4);
    assert.equal(state.finalText, 'All done.');
  });

  it('records each tool with status, output and duration', () => {
    const bash = state.tools.call_1;
    assert.equal(bash.status, 'ok');
    assert.equal(bash.output, 'hi\n');
    assert.equal(bash.durationMs, 14);
    assert.deepEqual(bash.arguments, { command: 'echo hi' });
    assert.equal(state.tools.call_2.output, 'hello from a.txt\n');
  });

  it('applies the request result without changing what notifications said', () => {
    const after = applyResult(state, {
      runId: 'r-1', sessionId: 's-1', status: 'completed', text: 'All done.', turns: 2, toolCalls: 2,
      usage: { inputTokens: 250, outputTokens: 25 },
    });
    assert.deepEqual(after, state);
  });
});

describe('idempotence and tolerance', () => {
  const seq = load('completed.json');

  it('ignores a duplicated notification (same seq), returning the same object', () => {
    const once = reduceAll(initialRunState('p'), seq.slice(0, 4));
    assert.equal(reduce(once, seq[3]), once);
    assert.equal(once.turns[0].text, "I'll look.");
  });

  it('gives the same state when the whole stream is delivered twice', () => {
    const once = reduceAll(initialRunState('p'), seq);
    const twice = reduceAll(initialRunState('p'), [...seq, ...seq]);
    assert.deepEqual(twice, once);
  });

  it('accepts coalesced text deltas', () => {
    const coalesced = [
      seq[0],
      seq[1],
      { ...seq[2], text: "I'll look." },
    ];
    const s = reduceAll(initialRunState('p'), coalesced);
    assert.equal(s.turns[0].text, "I'll look.");
    assert.equal(s.turns[0].complete, false);
  });

  it('ignores unknown kinds and fields, and notifications without seq', () => {
    const s0 = reduceAll(initialRunState('p'), seq.slice(0, 2));
    const s1 = reduce(s0, { runId: 'r-1', sessionId: 's-1', seq: 3, kind: 'future_kind', extra: [1] });
    assert.equal(s1.lastSeq, 3);
    assert.deepEqual(s1.turns, s0.turns);
    assert.equal(reduce(s1, { runId: 'r-1', kind: 'text_delta', turn: 1, text: 'x' }), s1);
    const withExtra = reduce(s1, { ...seq[3], seq: 4, brandNew: { nested: true } });
    assert.equal(withExtra.turns[0].text, 'look.');
  });

  it('ignores notifications of another run', () => {
    const s0 = reduceAll(initialRunState('p'), seq.slice(0, 2));
    const other = { ...seq[2], runId: 'r-other', seq: 99 };
    assert.equal(reduce(s0, other), s0);
  });

  it('a text delta after the complete assistant message does not duplicate text', () => {
    const s = reduceAll(initialRunState('p'), [...seq.slice(0, 5), { ...seq[3], seq: 40 }]);
    assert.equal(s.turns[0].text, "I'll look.");
  });

  it('a tool that ends without a start notification still shows', () => {
    const s = reduce(initialRunState('p'), { ...seq[9], seq: 1 });
    assert.equal(s.tools.call_1.status, 'ok');
    assert.deepEqual(s.turns[0].toolCallIds, ['call_1']);
  });
});

describe('a cancelled run', () => {
  const state = reduceAll(initialRunState('wait', 's-2'), load('cancelled.json'));

  it('ends cancelled with the running tool failed as cancelled', () => {
    assert.equal(state.status, 'cancelled');
    assert.equal(state.tools.call_9.status, 'failed');
    assert.equal(state.tools.call_9.reason, 'cancelled');
    assert.equal(state.tools.call_9.durationMs, 812);
  });

  it('the -32800 answer after run_finished keeps the cancelled status and adds no error', () => {
    const after = applyRequestError(state, -32800, 'Request cancelled');
    assert.equal(after.status, 'cancelled');
    assert.equal(after.error, undefined);
  });

  it('a cancel answered before any run_finished still ends the run and its tools', () => {
    const partial = reduceAll(initialRunState('wait'), load('cancelled.json').slice(0, 4));
    assert.equal(partial.tools.call_9.status, 'running');
    const after = applyRequestError(partial, -32800, 'Request cancelled');
    assert.equal(after.status, 'cancelled');
    assert.equal(after.tools.call_9.status, 'failed');
  });
});

describe('a failed run', () => {
  const state = reduceAll(initialRunState('fix it'), load('failed.json'));

  it('ends with the error kind and message', () => {
    assert.equal(state.status, 'error');
    assert.equal(state.error, 'rate_limit: 429 Too Many Requests after 3 retries');
    assert.deepEqual(state.usage, { inputTokens: 40, outputTokens: 9 });
  });

  it('keeps the thinking text and the failed tool with its reason', () => {
    assert.equal(state.turns[0].thinking, 'Let me plan: run the tests first.');
    assert.equal(state.tools.c1.status, 'failed');
    assert.equal(state.tools.c1.reason, 'bad_arguments');
    assert.equal(state.finalText, undefined);
  });

  it('a request error without notifications (invalid params) is shown as the error', () => {
    const s = applyRequestError(initialRunState('x'), -32602, 'sessionId: unknown session');
    assert.equal(s.status, 'error');
    assert.equal(s.error, 'sessionId: unknown session');
  });

  it('an unknown final status counts as an error', () => {
    const s = reduce(initialRunState('x'), { runId: 'r', sessionId: 's', seq: 1, kind: 'run_finished', status: '??' });
    assert.equal(s.status, 'error');
  });
});

describe('a question for a call that already started (the sandbox stopped it)', () => {
  const base = { runId: 'r-1', sessionId: 's-1', turn: 1, toolCallId: 'c1', tool: 'bash', toolKind: 'execute' };
  const args = { command: 'touch /x' };
  const events: ProgressNotification[] = [
    { ...base, seq: 1, kind: 'tool_started', arguments: args, sandbox: 'bwrap' },
    { ...base, seq: 2, kind: 'tool_output', text: "touch: cannot touch '/x': Read-only file system\n" },
    { ...base, seq: 3, kind: 'approval_requested', title: 'bash: touch /x', arguments: args,
      reason: "was stopped by the OS sandbox (touch: cannot touch '/x': Read-only file system)" },
    { ...base, seq: 4, kind: 'approval_resolved', decision: 'allow_once', by: 'user' },
    { ...base, seq: 5, kind: 'tool_completed', output: '(no output)', exitCode: 0, durationMs: 7, sandbox: 'none' },
  ];
  const upTo = (seq: number) => events.slice(0, seq).reduce((s, n) => reduce(s, n, 1000 * (n.seq as number)), initialRunState('x'));

  it('keeps one row, which waits with the reason, runs again when allowed and ends with the rerun', () => {
    assert.deepEqual([upTo(1).tools.c1.status, upTo(1).tools.c1.sandbox], ['running', 'bwrap']);
    const asking = upTo(3);
    assert.deepEqual(asking.turns[0].toolCallIds, ['c1']);
    assert.deepEqual([asking.tools.c1.status, asking.tools.c1.liveOutput, asking.tools.c1.startedAt], ['waiting', undefined, undefined]);
    assert.deepEqual(asking.tools.c1.approval, {
      title: 'bash: touch /x', reason: "was stopped by the OS sandbox (touch: cannot touch '/x': Read-only file system)", afterStart: true,
    });
    const allowed = upTo(4);
    assert.deepEqual([allowed.tools.c1.status, allowed.tools.c1.startedAt], ['running', 4000]);
    const done = upTo(5);
    assert.deepEqual([done.tools.c1.status, done.tools.c1.sandbox, done.tools.c1.exitCode, done.tools.c1.neverRan], ['ok', 'none', 0, undefined]);
  });

  it('cancelled while asking: it ran once, so it was stopped, not "never ran"', () => {
    const cancelled = reduce(upTo(3), { runId: 'r-1', seq: 6, kind: 'run_finished', status: 'cancelled' });
    assert.deepEqual([cancelled.tools.c1.status, cancelled.tools.c1.reason, cancelled.tools.c1.neverRan], ['failed', 'cancelled', undefined]);
  });

  it('a call announced by its question first is still one that never ran when the run ends', () => {
    const first = reduce(initialRunState('x'), { ...base, seq: 1, kind: 'approval_requested', title: 'bash: make', arguments: { command: 'make' } });
    const cancelled = reduce(first, { runId: 'r-1', seq: 2, kind: 'run_finished', status: 'cancelled' });
    assert.equal(cancelled.tools.c1.neverRan, true);
    assert.equal(first.tools.c1.approval?.afterStart, undefined);
  });
});

