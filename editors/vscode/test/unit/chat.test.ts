/**
 * The chat view's new parts, on scripted protocol 1.1 notifications: live tool output and the
 * elapsed time of running calls, file changes with their diffs, the context fill and compaction,
 * and the human summaries of tool rows.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusText } from '../../src/activity';
import { applyUnifiedDiff, invertDiff } from '../../src/approvals';
import { contextFill, renderRuns } from '../../src/render';
import { initialRunState, LIVE_TAIL_CHARS, type ProgressNotification, reduce, reduceAll, type ToolItem } from '../../src/runState';
import { formatDuration, summaryLine } from '../../src/summary';

let seq = 0;
const n = (kind: string, fields: Record<string, unknown> = {}): ProgressNotification => ({
  runId: 'r', sessionId: 's', seq: ++seq, kind, turn: 1, ...fields,
});

const tool = (fields: Partial<ToolItem>): ToolItem => ({ id: 'c', name: 'bash', kind: 'execute', turn: 1, status: 'ok', arguments: {}, ...fields });

describe('a running bash call', () => {
  const started = reduce(initialRunState('p'), n('tool_started', { toolCallId: 'c1', tool: 'bash', toolKind: 'execute', arguments: { command: 'make test' } }), 1_000);

  it('starts its clock when it starts, and the row shows the time since', () => {
    assert.equal(started.tools.c1.startedAt, 1_000);
    const html = renderRuns([started], 4_200);
    assert.match(html, /<span class="verb">running<\/span> <code class="args">make test<\/code> <span class="meta" data-started="1000">3\.2 s<\/span>/);
  });

  it('shows the tail of its live output (tool_output), which the final output replaces', () => {
    const live = reduceAll(started, [
      n('tool_output', { toolCallId: 'c1', text: 'compiling\n' }),
      n('tool_output', { toolCallId: 'c1', text: 'test 1 ok\ntest 2 FAILED\n' }),
    ]);
    assert.equal(live.tools.c1.liveOutput, 'compiling\ntest 1 ok\ntest 2 FAILED\n');
    assert.match(renderRuns([live]), /<pre class="live-output" aria-live="off">compiling\ntest 1 ok\ntest 2 FAILED<\/pre>/);
    const done = reduce(live, n('tool_completed', { toolCallId: 'c1', tool: 'bash', toolKind: 'execute', output: 'all\nexit status 2', exitCode: 2, durationMs: 291 }));
    assert.equal(done.tools.c1.liveOutput, undefined);
    assert.doesNotMatch(renderRuns([done]), /live-output/);
    assert.equal(summaryLine(done.tools.c1), 'ran make test · exit 2 · 291 ms');
  });

  it('keeps only the newest output of a chatty call, and says when the daemon stopped sending', () => {
    const big = reduceAll(started, [
      n('tool_output', { toolCallId: 'c1', text: 'x'.repeat(LIVE_TAIL_CHARS) }),
      n('tool_output', { toolCallId: 'c1', text: 'the end', truncated: true }),
    ]);
    assert.equal(big.tools.c1.liveOutput?.length, LIVE_TAIL_CHARS);
    assert.ok(big.tools.c1.liveOutput?.endsWith('the end'));
    assert.match(renderRuns([big]), /live output stopped here/);
  });

  it('a call allowed after waiting for the user starts its clock when allowed', () => {
    // Protocol 1.2: a call asked about is first heard of by its approval_requested.
    const s = reduceAll(initialRunState('p'), [
      n('approval_requested', { toolCallId: 'c2', tool: 'bash', toolKind: 'execute', title: 'bash: ls', arguments: { command: 'ls' } }),
    ]);
    assert.deepEqual([s.tools.c2.status, s.tools.c2.startedAt, s.tools.c2.arguments], ['waiting', undefined, { command: 'ls' }]);
    assert.equal(summaryLine(s.tools.c2), 'wants to run ls · waiting for approval');
    const allowed = reduce(s, n('approval_resolved', { toolCallId: 'c2', decision: 'allow_once', by: 'user' }), 9_000);
    assert.equal(allowed.tools.c2.startedAt, 9_000);
    const started = reduce(allowed, n('tool_started', { toolCallId: 'c2', tool: 'bash', toolKind: 'execute', arguments: { command: 'ls' } }), 9_050);
    assert.deepEqual([started.tools.c2.status, started.tools.c2.startedAt], ['running', 9_000]);
  });

  it('a daemon before 1.2 announced the call first: it waits all the same', () => {
    const s = reduceAll(initialRunState('p'), [
      n('tool_started', { toolCallId: 'c2', tool: 'bash', arguments: { command: 'ls' } }),
      n('approval_requested', { toolCallId: 'c2', tool: 'bash', title: 'bash: ls' }),
    ]);
    assert.deepEqual([s.tools.c2.status, s.tools.c2.startedAt], ['waiting', undefined]);
  });

  it('calls refused before they ran still have their rows, never running', () => {
    const s = reduceAll(initialRunState('p'), [
      n('approval_requested', { toolCallId: 'r', tool: 'bash', toolKind: 'execute', title: 'bash: rm a', arguments: { command: 'rm a' } }),
      n('approval_resolved', { toolCallId: 'r', tool: 'bash', decision: 'reject', by: 'user' }),
    ]);
    assert.equal(s.tools.r.status, 'waiting');
    const denied = reduce(s, n('approval_resolved', { toolCallId: 'd', tool: 'write_file', decision: 'deny', by: 'mode' }));
    assert.equal(denied.tools.d.status, 'refused');
    const ended = reduceAll(denied, [
      n('tool_failed', { toolCallId: 'r', tool: 'bash', toolKind: 'execute', reason: 'rejected', output: 'no' }),
      n('tool_failed', { toolCallId: 'd', tool: 'write_file', toolKind: 'edit', reason: 'denied', output: 'no' }),
      n('tool_failed', { toolCallId: 'u', tool: 'teleport', toolKind: 'other', reason: 'unknown_tool', output: 'no such tool' }),
    ]);
    assert.deepEqual(['r', 'd', 'u'].map((id) => [ended.tools[id].status, ended.tools[id].reason]), [
      ['refused', 'rejected'], ['refused', 'denied'], ['failed', 'unknown_tool'],
    ]);
    assert.equal(summaryLine(ended.tools.r), 'did not run rm a · rejected');
    // With the daemon's `message`: why, once, on one line.
    const told = reduceAll(denied, [
      n('tool_failed', { toolCallId: 'r', tool: 'bash', toolKind: 'execute', reason: 'rejected', output: 'no', message: 'not now,\n  please' }),
      n('tool_failed', { toolCallId: 'd', tool: 'write_file', toolKind: 'edit', reason: 'denied', output: 'no', message: 'read-only mode' }),
    ]);
    assert.equal(summaryLine(told.tools.r), 'did not run rm a · rejected: not now, please');
    assert.match(summaryLine(told.tools.d), / · denied: read-only mode$/);
  });
});

describe('file changes (editor-true files)', () => {
  const diff = '--- a/pager.py\n+++ b/pager.py\n@@ -1,3 +1,3 @@\n def page(number, size):\n-    start = number * size\n+    start = (number - 1) * size\n     return start\n';
  const s = reduceAll(initialRunState('fix'), [
    n('tool_started', { toolCallId: 'e1', tool: 'edit_file', toolKind: 'edit', arguments: { path: 'pager.py', source_text: 'a', target_text: 'b' } }),
    n('tool_completed', { toolCallId: 'e1', tool: 'edit_file', toolKind: 'edit', output: '成功修改文件: pager.py', durationMs: 12, path: 'pager.py', diff, added: 1, removed: 1, via: 'editor' }),
  ]);

  it('keeps the path, diff, counts and how it was written', () => {
    assert.deepEqual(s.tools.e1.change, { path: 'pager.py', diff, diffTruncated: undefined, added: 1, removed: 1, via: 'editor' });
  });

  it('the row reads "edited pager.py +1 −1" with an Open diff link, and not the model-facing text', () => {
    assert.equal(summaryLine(s.tools.e1), 'edited pager.py +1 −1 · 12 ms');
    const html = renderRuns([s]);
    assert.match(html, /<span class="verb">edited<\/span> <code class="args">pager\.py<\/code> <span class="counts"><span class="d-add">\+1<\/span> <span class="d-del">−1<\/span><\/span>/);
    assert.match(html, /data-action="open-change" data-call="e1">Open diff</);
    assert.match(html, /<span class="d-add">\+    start = \(number - 1\) \* size<\/span>/);
    assert.doesNotMatch(html, /成功/);
  });

  it('the before-text comes back from the diff and the text after', () => {
    const after = 'def page(number, size):\n    start = (number - 1) * size\n    return start\n';
    assert.equal(applyUnifiedDiff(after, invertDiff(diff)), 'def page(number, size):\n    start = number * size\n    return start\n');
    assert.equal(invertDiff('@@ -0,0 +1,2 @@\n+a\n+b\n'), '@@ -1,2 +0,0 @@\n-a\n-b\n');
    assert.equal(applyUnifiedDiff('a\nb\n', invertDiff('--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+b\n')), '');
  });
});

describe('context window', () => {
  it('the latest usage gives the context fill', () => {
    const s = reduceAll(initialRunState('p'), [
      n('usage', { inputTokens: 100, outputTokens: 5, totalInputTokens: 100, totalOutputTokens: 5, contextTokens: 100, contextWindow: 1000 }),
      n('usage', { turn: 2, inputTokens: 12_300, outputTokens: 5, totalInputTokens: 12_400, totalOutputTokens: 10, contextTokens: 12_300, contextWindow: 128_000 }),
    ]);
    assert.deepEqual(s.usage, { inputTokens: 12_400, outputTokens: 10, contextTokens: 12_300, contextWindow: 128_000 });
    assert.equal(contextFill([s])?.text, 'context 12.3k / 128k tokens (10%)');
    assert.equal(contextFill([initialRunState('p')]), undefined);
  });

  it('a compaction shows on its turn', () => {
    const s = reduce(initialRunState('p'), n('context_compacted', { turn: 3, beforeTokens: 104_000, afterTokens: 21_500, method: 'summary' }));
    assert.match(renderRuns([s]), /context compacted: older turns summarised · 104k → 21\.5k tokens/);
  });
});

describe('tool summaries', () => {
  it('say what happened in English', () => {
    assert.equal(summaryLine(tool({ arguments: { command: 'python3 -m unittest' }, output: 'F\nexit status 1', exitCode: 1, durationMs: 291 })),
      'ran python3 -m unittest · exit 1 · 291 ms');
    assert.equal(summaryLine(tool({ name: 'read_file', kind: 'read', arguments: { path: 'a.txt' }, durationMs: 2 })), 'read a.txt · 2 ms');
    assert.equal(summaryLine(tool({ name: 'write_file', kind: 'edit', arguments: { path: 'n.txt', content: 'x' }, durationMs: 3 })), 'wrote n.txt · 3 ms');
    assert.equal(summaryLine(tool({ status: 'failed', reason: 'timeout', arguments: { command: 'sleep 99' }, durationMs: 30_000 })),
      'ran sleep 99 · timed out · 30.0 s');
    assert.equal(summaryLine(tool({ status: 'waiting', arguments: { command: 'rm -r build' } })), 'wants to run rm -r build · waiting for approval');
    assert.equal(summaryLine(tool({ status: 'refused', reason: 'denied', arguments: { command: 'rm x' } })), 'did not run rm x · denied');
    assert.equal(summaryLine(tool({ name: 'fetch', kind: 'other', arguments: { url: 'https://x' }, durationMs: 5 })), 'called fetch {"url":"https://x"} · 5 ms');
  });

  it('say how a command ended from its exitCode or signal, never from its output', () => {
    const command = { arguments: { command: 'make' }, durationMs: 4 };
    assert.equal(summaryLine(tool({ ...command, output: 'exit status 7', exitCode: 0 })), 'ran make · exit 0 · 4 ms');
    assert.equal(summaryLine(tool({ ...command, output: 'killed by signal SIGKILL (9)', signal: 'SIGKILL' })), 'ran make · killed (SIGKILL) · 4 ms');
    assert.equal(summaryLine(tool({ ...command, output: 'boom\nexit status 2' })), 'ran make · 4 ms'); // a daemon that sent no exitCode
    const done = reduce(initialRunState('p'), n('tool_completed', { toolCallId: 'k', tool: 'bash', toolKind: 'execute', output: 'killed by signal SIGTERM (15)', signal: 'SIGTERM', durationMs: 9 }));
    assert.deepEqual([done.tools.k.kind, done.tools.k.signal, done.tools.k.exitCode], ['execute', 'SIGTERM', undefined]);
  });

  it('name the symbol the editor was asked about, and where', () => {
    const at = { path: 'main.ts', line: 3, symbol: 'greet' };
    const read = (name: string, args: Record<string, unknown>, fields: Partial<ToolItem> = {}): string =>
      summaryLine(tool({ name, kind: 'read', arguments: args, durationMs: 8, ...fields }));
    assert.equal(read('find_definition', at), 'found the definition of greet · main.ts:3 · 8 ms');
    assert.equal(read('find_references', at), 'found the references to greet · main.ts:3 · 8 ms');
    assert.equal(read('hover', at, { status: 'failed', reason: 'error' }), 'could not look up greet · main.ts:3 · failed · 8 ms');
    assert.equal(read('workspace_symbols', { query: 'gre' }), 'searched the symbols for gre · 8 ms');
    assert.equal(read('diagnostics', {}), 'checked the problems of the workspace · 8 ms');
    assert.equal(read('rename_symbol', { ...at, newName: 'welcome' }, { kind: 'edit', status: 'waiting' }),
      'wants to rename greet → welcome · main.ts:3 · waiting for approval');
  });

  it('durations read as ms, seconds, then minutes', () => {
    assert.deepEqual([formatDuration(291), formatDuration(2_400), formatDuration(185_000)], ['291 ms', '2.4 s', '3 min 05 s']);
  });
});

describe('the status bar', () => {
  it('idle, running turn N, then waiting for approval first', () => {
    assert.equal(statusText({ running: false, questions: [] }).text, '$(comment-discussion) harness9');
    assert.equal(statusText({ running: true, turn: 2, questions: [] }).text, '$(sync~spin) harness9: turn 2');
    assert.equal(statusText({ running: true, turn: 2, message: 'turn 2 · bash: npm test', questions: [] }).text,
      '$(sync~spin) harness9: turn 2 · bash: npm test');
    assert.equal(statusText({ running: true, turn: 3, message: 'turn 2 · bash: npm test', questions: [] }).text,
      '$(sync~spin) harness9: turn 3');
    const asking = statusText({ running: true, turn: 2, questions: [{ title: 'bash: npm test' }, { title: 'edit_file: a' }] });
    assert.deepEqual([asking.text, asking.asking], ['$(question) harness9 asks: bash: npm test (+1)', true]);
    const child = statusText({ running: true, turn: 2, questions: [{ title: 'bash: ls', agent: 'explore' }] });
    assert.equal(child.text, '$(question) harness9 (explore agent) asks: bash: ls');
  });
});

describe('cancelled calls', () => {
  it('one cancelled while waiting for the user "did not run"; one cancelled while running was "stopped"', () => {
    const s = reduceAll(initialRunState('p'), [
      n('approval_requested', { toolCallId: 'w', tool: 'bash', toolKind: 'execute', title: 'bash: touch planted', arguments: { command: 'touch planted' } }),
      n('tool_failed', { toolCallId: 'w', tool: 'bash', toolKind: 'execute', reason: 'cancelled', durationMs: 3.3 }),
      n('tool_started', { toolCallId: 'x', tool: 'bash', toolKind: 'execute', arguments: { command: 'sleep 30' } }),
      n('tool_failed', { toolCallId: 'x', tool: 'bash', toolKind: 'execute', reason: 'cancelled', durationMs: 812 }),
    ]);
    assert.equal(summaryLine(s.tools.w), 'did not run touch planted · cancelled · 3 ms');
    assert.equal(summaryLine(s.tools.x), 'stopped sleep 30 · cancelled · 812 ms');
  });
});
