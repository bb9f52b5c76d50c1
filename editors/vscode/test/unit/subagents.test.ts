/**
 * Child agents (`task` calls): the fold keeps a child's rows under its task and out of the
 * parent's answer, the task row shows them with its agent, tokens and cost, a child's question
 * names its agent and task, and a stored session shows a task as it went live.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approvalCardFrom } from '../../src/approvals';
import { renderApprovalCard, renderRun } from '../../src/render';
import { reviewedFiles } from '../../src/review';
import { allCallIds, initialRunState, type ProgressNotification, reduceAll, type RunState } from '../../src/runState';
import { runsFromSession } from '../../src/sessions';

const TASK_ARGS = { description: 'find the tests', prompt: 'Where are the tests?', agent: 'explore' };
const CHILD = { parentToolCallId: 't1', agent: 'explore' };

/** The events of a run whose one task call runs a child that reads a file, then answers. */
function taskRun(end: 'completed' | 'running'): ProgressNotification[] {
  let seq = 0;
  const ev = (kind: string, more: Record<string, unknown>): ProgressNotification => ({ runId: 'r1', sessionId: 's1', seq: ++seq, kind, ...more });
  const events = [
    ev('run_started', { provider: 'openai', model: 'gpt-4o' }),
    ev('turn_started', { turn: 1 }),
    ev('text_delta', { turn: 1, text: 'Asking a helper.' }),
    ev('assistant_message', { turn: 1, text: 'Asking a helper.', toolCalls: [{ id: 't1', name: 'task', arguments: TASK_ARGS }] }),
    ev('tool_started', { turn: 1, toolCallId: 't1', tool: 'task', toolKind: 'think', arguments: TASK_ARGS }),
    ev('assistant_message', { ...CHILD, turn: 1, text: 'CHILD reading', toolCalls: [{ id: 't1/c1', name: 'read_file', arguments: { path: 'a.txt' } }] }),
    ev('tool_started', { ...CHILD, turn: 1, toolCallId: 't1/c1', tool: 'read_file', toolKind: 'read', arguments: { path: 'a.txt' } }),
    ev('tool_completed', { ...CHILD, turn: 1, toolCallId: 't1/c1', tool: 'read_file', output: 'alpha\n', bytes: 6, truncated: false, durationMs: 3 }),
    ev('assistant_message', { ...CHILD, turn: 2, text: 'CHILD the tests are in tests/', toolCalls: [] }),
  ];
  if (end === 'running') {
    return events;
  }
  return [
    ...events,
    ev('tool_completed', {
      turn: 1, toolCallId: 't1', tool: 'task', output: 'the tests are in tests/', bytes: 23, truncated: false, durationMs: 900,
      agent: 'explore', usage: { inputTokens: 300, outputTokens: 30 }, costUsd: 0.0012,
    }),
    ev('turn_started', { turn: 2 }),
    ev('assistant_message', { turn: 2, text: 'The tests are in tests/.', toolCalls: [] }),
    ev('run_finished', { status: 'completed', turns: 2, toolCalls: 1, usage: { inputTokens: 900, outputTokens: 90 } }),
  ];
}

describe('a task call folded live', () => {
  const running = reduceAll(initialRunState('where are the tests?'), taskRun('running'));
  const done = reduceAll(initialRunState('where are the tests?'), taskRun('completed'));

  it('keeps the child\'s turns under the task, never among the parent\'s', () => {
    assert.deepEqual(running.turns.map((t) => [t.turn, t.text, t.toolCallIds]), [[1, 'Asking a helper.', ['t1']]]);
    const child = running.children?.t1;
    assert.equal(child?.agent, 'explore');
    assert.deepEqual(child?.turns.map((t) => [t.turn, t.text, t.toolCallIds]), [
      [1, 'CHILD reading', ['t1/c1']],
      [2, 'CHILD the tests are in tests/', []],
    ]);
    assert.equal(running.tools['t1/c1'].status, 'ok');
    assert.equal(running.tools.t1.status, 'running');
  });

  it('never takes the child\'s last message for the parent\'s answer', () => {
    assert.equal(running.finalText, undefined);
    assert.equal(done.finalText, 'The tests are in tests/.');
  });

  it('keeps the task\'s agent, tokens and cost from its end', () => {
    const task = done.tools.t1;
    assert.equal(task.agent, 'explore');
    assert.deepEqual(task.usage, { inputTokens: 300, outputTokens: 30 });
    assert.equal(task.costUsd, 0.0012);
    assert.deepEqual(allCallIds(done), ['t1', 't1/c1']);
  });

  it('settles a child\'s call still running when the run ends', () => {
    let seq = 100;
    const ev = (kind: string, more: Record<string, unknown>): ProgressNotification => ({ runId: 'r1', seq: ++seq, kind, ...more });
    const s = reduceAll(running, [
      ev('tool_started', { ...CHILD, turn: 3, toolCallId: 't1/c2', tool: 'bash', toolKind: 'execute', arguments: { command: 'sleep 9' } }),
      ev('run_finished', { status: 'cancelled' }),
    ]);
    assert.equal(s.tools['t1/c2'].status, 'failed');
    assert.equal(s.tools['t1/c2'].reason, 'cancelled');
  });
});

describe('the task row', () => {
  it('names the agent and the task, counts the child\'s calls, tokens and cost, and holds its rows', () => {
    const html = renderRun(reduceAll(initialRunState('where are the tests?'), taskRun('completed')), 0);
    const row = html.slice(html.indexOf('<details class="tool task'));
    assert.match(row, /<span class="agent">explore<\/span> <span class="verb">task<\/span> <code class="args">find the tests<\/code>/);
    assert.match(row, /1 tool call · 900 ms · tokens in 300 · out 30 · \$0\.0012/);
    const rows = row.slice(row.indexOf('<div class="task-rows">'), row.indexOf('<div class="label">result'));
    assert.match(rows, /child-text[^>]*><p>CHILD reading/);
    assert.match(rows, /data-key="r1\/t1\/c1" data-tool="read_file"/);
    assert.match(row, /<div class="label">result<\/div><pre class="output">the tests are in tests\/<\/pre>/);
    // The parent's own text shows once, and the child's text only inside the task.
    assert.equal(html.split('CHILD').length - 1, 2);
    assert.ok(html.indexOf('final-text') > html.indexOf('</details>'));
  });

  it('is open while the child runs, closed once it ended, and not taken for a plan update', () => {
    const live = renderRun(reduceAll(initialRunState('q'), taskRun('running')), 0);
    assert.match(live, /<details class="tool task running"[^>]* open>/);
    const html = renderRun(reduceAll(initialRunState('q'), taskRun('completed')), 0);
    assert.match(html, /<details class="tool task ok"[^>]*data-agent="explore">/);
    assert.doesNotMatch(html, /updated the plan/);
  });

  it('lets "Review changes" count a child\'s edits', () => {
    let seq = 200;
    const ev = (kind: string, more: Record<string, unknown>): ProgressNotification => ({ runId: 'r1', seq: ++seq, kind, ...more });
    const s = reduceAll(reduceAll(initialRunState('q'), taskRun('running')), [
      ev('tool_completed', { ...CHILD, turn: 3, toolCallId: 't1/c3', tool: 'edit_file', toolKind: 'edit', path: 'a.txt', diff: '-a\n+b\n', added: 1, removed: 1 }),
    ]);
    const withTurn: RunState = { ...s, children: { t1: { agent: 'general', turns: [...(s.children?.t1.turns ?? [])] } } };
    assert.deepEqual(reviewedFiles(withTurn).map((f) => f.path), ['a.txt']);
  });
});

describe('a child\'s question', () => {
  const state = reduceAll(initialRunState('q'), taskRun('running'));
  const params = {
    runId: 'r1', turn: 1, toolCallId: 't1/c2', tool: 'bash', title: 'bash: ls', arguments: { command: 'ls' },
    parentToolCallId: 't1', agent: 'explore',
  };

  it('says which agent asks, and for which task', () => {
    const card = approvalCardFrom('q1', params);
    assert.equal(card.agent, 'explore');
    assert.equal(card.parentToolCallId, 't1');
    assert.match(renderApprovalCard(card, [state]), /<span class="approval-who">explore \(task: find the tests\)<\/span> asks to run <strong/);
  });

  it('is the agent\'s alone when its task is not shown, and harness9\'s for the parent', () => {
    assert.match(renderApprovalCard(approvalCardFrom('q1', params), []), /<span class="approval-who">explore<\/span> asks to run <strong/);
    const { parentToolCallId: _p, agent: _a, ...own } = params;
    assert.match(renderApprovalCard(approvalCardFrom('q2', own), [state]), /<span class="approval-who">harness9<\/span> asks to run <strong/);
  });
});

describe('a stored task', () => {
  const session = {
    sessionId: 's1',
    runs: [{ runId: 'r1', prompt: 'where are the tests?', status: 'completed', turns: 2, toolCalls: 1, startedAt: '2026-01-01T00:00:00Z' }],
    messages: [
      { role: 'user', content: 'where are the tests?' },
      {
        role: 'assistant', content: 'Asking a helper.',
        toolCalls: [{
          id: 't1', name: 'task', kind: 'think', arguments: JSON.stringify(TASK_ARGS),
          outcome: {
            status: 'completed', turn: 1, bytes: 23, truncated: false, durationMs: 900, agent: 'explore',
            usage: { inputTokens: 300, outputTokens: 30 }, costUsd: 0.0012,
            transcript: [
              { role: 'user', content: 'Where are the tests?' },
              { role: 'assistant', content: 'CHILD reading', toolCalls: [{ id: 'c1', name: 'read_file', kind: 'read', arguments: '{"path": "a.txt"}' }] },
              { role: 'user', content: 'alpha\n', toolCallId: 'c1' },
              { role: 'assistant', content: 'CHILD the tests are in tests/' },
            ],
          },
        }],
      },
      { role: 'user', content: 'the tests are in tests/', toolCallId: 't1' },
      { role: 'assistant', content: 'The tests are in tests/.' },
    ],
  };

  it('shows the child\'s rows under its task, as they went live', () => {
    const [run] = runsFromSession(session);
    const live = reduceAll(initialRunState('where are the tests?'), taskRun('completed'));
    const rows = (s: RunState): unknown => s.children?.t1.turns.map((t) => [t.turn, t.text, t.toolCallIds]);
    assert.deepEqual(rows(run), rows(live));
    assert.equal(run.children?.t1.agent, 'explore');
    assert.equal(run.tools['t1/c1'].output, 'alpha\n');
    assert.equal(run.tools['t1/c1'].status, 'ok');
    assert.deepEqual(run.turns.map((t) => t.toolCallIds), [['t1'], []]);
    assert.equal(run.finalText, 'The tests are in tests/.');
    assert.deepEqual(run.tools.t1.usage, { inputTokens: 300, outputTokens: 30 });
    assert.equal(run.tools.t1.costUsd, 0.0012);
    assert.equal(run.plan, undefined);
  });
});

describe('a stored task whose child\'s calls kept their outcomes', () => {
  const READ = { path: 'a.txt' };
  const LS = { command: 'ls nowhere' };
  const MISSING = { path: 'missing.txt' };
  const calls = [
    { id: 'c1', name: 'read_file', kind: 'read', args: READ, output: 'alpha\n', end: { bytes: 6, truncated: false, durationMs: 3 } },
    { id: 'c2', name: 'bash', kind: 'execute', args: LS, output: 'ls: nowhere\nexit status 2', end: { bytes: 24, truncated: false, durationMs: 40, exitCode: 2, sandbox: 'bwrap' } },
    { id: 'c3', name: 'read_file', kind: 'read', args: MISSING, output: 'Error: file not found: missing.txt', end: { bytes: 34, truncated: false, durationMs: 1, reason: 'error' } },
  ];
  let seq = 0;
  const ev = (kind: string, more: Record<string, unknown>): ProgressNotification => ({ runId: 'r1', sessionId: 's1', seq: ++seq, kind, ...more });
  const TASK_END = {
    turn: 1, toolCallId: 't1', tool: 'task', output: 'only a.txt', bytes: 10, truncated: false, durationMs: 900,
    agent: 'explore', usage: { inputTokens: 300, outputTokens: 30 },
  };
  const live = reduceAll(initialRunState('look'), [
    ev('run_started', { provider: 'openai', model: 'gpt-4o' }),
    ev('turn_started', { turn: 1 }),
    ev('assistant_message', { turn: 1, text: 'Asking a helper.', toolCalls: [{ id: 't1', name: 'task', arguments: TASK_ARGS }] }),
    ev('tool_started', { turn: 1, toolCallId: 't1', tool: 'task', toolKind: 'think', arguments: TASK_ARGS }),
    ev('assistant_message', { ...CHILD, turn: 1, text: 'looking', toolCalls: calls.map((c) => ({ id: `t1/${c.id}`, name: c.name, arguments: c.args })) }),
    ...calls.map((c) => ev('tool_started', { ...CHILD, turn: 1, toolCallId: `t1/${c.id}`, tool: c.name, toolKind: c.kind, arguments: c.args, sandbox: c.end.sandbox })),
    ...calls.map((c) => ev(c.end.reason ? 'tool_failed' : 'tool_completed', { ...CHILD, turn: 1, toolCallId: `t1/${c.id}`, tool: c.name, output: c.output, ...c.end })),
    ev('assistant_message', { ...CHILD, turn: 2, text: 'only a.txt', toolCalls: [] }),
    ev('tool_completed', TASK_END),
    ev('turn_started', { turn: 2 }),
    ev('assistant_message', { turn: 2, text: 'Done.', toolCalls: [] }),
    ev('run_finished', { status: 'completed', turns: 2, toolCalls: 1 }),
  ]);
  // As the daemon keeps them: each child call with the outcome its live end told.
  const outcome = ({ reason, ...told }: Record<string, unknown>): Record<string, unknown> => ({ status: reason ?? 'completed', turn: 1, ...told });
  const { turn: _t, toolCallId: _i, tool: _n, output: _o, ...taskTold } = TASK_END;
  const session = {
    sessionId: 's1',
    runs: [{ runId: 'r1', prompt: 'look', status: 'completed', turns: 2, toolCalls: 1, startedAt: '2026-01-01T00:00:00Z' }],
    messages: [
      { role: 'user', content: 'look' },
      {
        role: 'assistant', content: 'Asking a helper.',
        toolCalls: [{
          id: 't1', name: 'task', kind: 'think', arguments: JSON.stringify(TASK_ARGS),
          outcome: {
            status: 'completed', turn: 1, ...taskTold,
            transcript: [
              { role: 'user', content: 'look' },
              {
                role: 'assistant', content: 'looking',
                toolCalls: calls.map((c) => ({ id: c.id, wireId: `t1/${c.id}`, name: c.name, kind: c.kind, arguments: JSON.stringify(c.args), outcome: outcome(c.end) })),
              },
              ...calls.map((c) => ({ role: 'user', content: c.output, toolCallId: c.id, ...(c.end.reason ? { isError: true } : {}) })),
              { role: 'assistant', content: 'only a.txt' },
            ],
          },
        }],
      },
      { role: 'user', content: 'only a.txt', toolCallId: 't1' },
      { role: 'assistant', content: 'Done.' },
    ],
  };
  const taskRows = (html: string): string => html.slice(html.indexOf('<div class="task-rows">'), html.indexOf('<div class="label">result'));

  it('shows each child call as it ended live: done, a command\'s exit, a failure', () => {
    const [restored] = runsFromSession(session);
    for (const c of calls) {
      const [was, is] = [live.tools[`t1/${c.id}`], restored.tools[`t1/${c.id}`]];
      assert.deepEqual([is.status, is.reason, is.exitCode, is.bytes, is.durationMs, is.sandbox, is.output],
        [was.status, was.reason, was.exitCode, was.bytes, was.durationMs, was.sandbox, was.output], c.id);
    }
    assert.equal(restored.tools['t1/c2'].exitCode, 2);
    assert.equal(restored.tools['t1/c3'].status, 'failed');
    const rows = taskRows(renderRun(restored, 0));
    assert.match(rows, /data-key="r1\/t1\/c2"/);
    assert.equal(rows, taskRows(renderRun(live, 0)));
  });
});
