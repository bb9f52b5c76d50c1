/** Steering, the queue and the plan: the reducer and what the chat shows for them. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goIndex, renderRuns } from '../../src/render';
import {
  addPendingSteer,
  applySteerAnswer,
  initialRunState,
  type ProgressNotification,
  reduceAll,
  type RunState,
} from '../../src/runState';
import { runsFromSession } from '../../src/sessions';

const PLAN_ITEMS = [
  { text: 'Read the parser', status: 'done' },
  { text: 'Fix the off-by-one', status: 'in_progress' },
  { text: 'Add a test', status: 'pending' },
];

function events(runId: string, kinds: Record<string, unknown>[]): ProgressNotification[] {
  return kinds.map((k, i) => ({ runId, sessionId: 's-1', seq: i + 1, ...k }));
}

const RUNNING: ProgressNotification[] = events('r-1', [
  { kind: 'run_started', provider: 'replay' },
  { kind: 'turn_started', turn: 1 },
  {
    kind: 'assistant_message', turn: 1, text: 'Planning.',
    toolCalls: [{ id: 'c1', name: 'update_plan', kind: 'think', arguments: { items: PLAN_ITEMS } }, { id: 'c2', name: 'bash', kind: 'execute', arguments: { command: 'sleep 2' } }],
  },
  { kind: 'tool_started', turn: 1, toolCallId: 'c1', tool: 'update_plan', toolKind: 'think', arguments: { items: PLAN_ITEMS } },
  { kind: 'tool_completed', turn: 1, toolCallId: 'c1', tool: 'update_plan', toolKind: 'think', output: 'Plan updated.', durationMs: 1 },
  { kind: 'plan', turn: 1, items: PLAN_ITEMS, note: 'one step at a time' },
  { kind: 'tool_started', turn: 1, toolCallId: 'c2', tool: 'bash', toolKind: 'execute', arguments: { command: 'sleep 2' } },
]);

describe('steering', () => {
  it('shows a message on its way under the run, then where it landed (steered)', () => {
    let s = reduceAll(initialRunState('fix it'), RUNNING);
    s = addPendingSteer(s, 'also update the README');
    assert.match(renderRuns([s]), /class="steer pending"[^]*on its way to the agent[^]*also update the README/);
    s = reduceAll(s, events('r-1', [{}, {}, {}, {}, {}, {}, {}, { kind: 'steered', turn: 2, text: 'also update the README' }]).slice(7));
    assert.deepEqual(s.steers, [{ text: 'also update the README', turn: 2 }]);
    s = applySteerAnswer(s, 'also update the README', 'run');
    assert.deepEqual(s.steers, [{ text: 'also update the README', turn: 2 }], 'the answer after steered changes nothing');
    const html = renderRuns([s]);
    assert.doesNotMatch(html, /steer pending/);
    assert.match(html, /<section class="turn" data-turn="2"><div class="steer"><div class="steer-label">you, while it ran<\/div><div class="steer-text">also update the README<\/div>/);
  });

  it('a steer answered next leaves the run (it becomes the next prompt)', () => {
    let s = addPendingSteer(reduceAll(initialRunState('fix it'), RUNNING), 'and then stop');
    s = applySteerAnswer(s, 'and then stop', 'next');
    assert.deepEqual(s.steers, []);
  });
});

describe('the queue', () => {
  it('a queued run shows its place and Remove; it runs once dequeued', () => {
    const first = reduceAll(initialRunState('fix it'), RUNNING);
    let queued = reduceAll(initialRunState('then lint', 's-1', true), events('r-2', [{ kind: 'queued', queueId: 'q-1', position: 1 }]));
    assert.equal(queued.status, 'queued');
    assert.equal(queued.queueId, 'q-1');
    const html = renderRuns([first, queued]);
    assert.match(html, /<article class="run queued status-queued" data-run="r-2" data-index="1">[^]*then lint[^]*queued · next[^]*data-action="unqueue"/);
    queued = reduceAll(queued, events('r-2', [{}, { kind: 'dequeued', queueId: 'q-1', reason: 'started' }, { kind: 'run_started' }]).slice(1));
    assert.equal(queued.status, 'running');
    assert.doesNotMatch(renderRuns([first, queued]), /unqueue/);
  });

  it('a removed one disappears', () => {
    const queued = reduceAll(initialRunState('then lint', 's-1', true), events('r-2', [
      { kind: 'queued', queueId: 'q-1', position: 1 },
      { kind: 'dequeued', queueId: 'q-1', reason: 'removed' },
      { kind: 'run_finished', status: 'cancelled' },
    ]));
    assert.equal(queued.unqueued, true);
    assert.doesNotMatch(renderRuns([queued]), /then lint/);
  });
});

describe('the plan', () => {
  it('is a checklist at the top of the run; the update_plan row is no command row', () => {
    const s = reduceAll(initialRunState('fix it'), RUNNING);
    assert.deepEqual(s.plan, { items: PLAN_ITEMS, note: 'one step at a time', turn: 1 });
    const html = renderRuns([s]);
    assert.match(html, /<\/header>\n<section class="plan" aria-label="plan"><div class="plan-head">Plan <span class="meta">1 of 3 done<\/span>/);
    assert.match(html, /<li class="plan-item done" data-status="done"><span class="plan-check" aria-hidden="true">✓<\/span> <span class="plan-text">Read the parser<\/span><\/li>/);
    assert.match(html, /plan-item in_progress[^]*Fix the off-by-one/);
    assert.match(html, /plan-item pending[^]*Add a test/);
    assert.match(html, /class="plan-note">one step at a time/);
    assert.doesNotMatch(html, /data-tool="update_plan"><summary>/);
    assert.match(html, /class="plan-mark" data-tool="update_plan">☰ updated the plan/);
    assert.doesNotMatch(html, /execute-plan/, 'no Go while it runs, nor for a run that was not plan only');
  });

  it('a plan-only run that completed offers Go', () => {
    const done: RunState = {
      ...reduceAll(initialRunState('plan the fix'), [...RUNNING, { runId: 'r-1', sessionId: 's-1', seq: 8, kind: 'run_finished', status: 'completed' }]),
      planMode: true,
    };
    assert.equal(goIndex([done]), 0);
    assert.match(renderRuns([done]), /data-action="execute-plan"/);
    assert.match(renderRuns([done]), /class="mode-badge"[^>]*>plan first</);
    assert.equal(goIndex([done, initialRunState('something else')]), undefined);
  });

  it('comes back with a stored session, on the run that made it', () => {
    const runs = runsFromSession({
      sessionId: 's-1',
      messages: [
        { role: 'user', content: 'plan the fix' },
        { role: 'assistant', content: 'Planning.', toolCalls: [{ id: 'c1', name: 'update_plan', kind: 'think', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'c1', content: 'Plan updated.' },
        { role: 'assistant', content: 'The plan is ready.' },
        { role: 'user', content: 'what time is it?' },
        { role: 'assistant', content: 'Noon.' },
      ],
      runs: [{ runId: 'r-1', prompt: 'plan the fix', status: 'completed' }, { runId: 'r-2', prompt: 'what time is it?', status: 'completed' }],
      plan: { items: PLAN_ITEMS },
    });
    assert.deepEqual(runs.map((r) => r.plan?.items.length), [3, undefined]);
  });

  it('a stored message sent into a run shows in that run, before the turn that read it', () => {
    const runs = runsFromSession({
      sessionId: 's-1',
      messages: [
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: 'Working.', toolCalls: [{ id: 'c1', name: 'bash', kind: 'execute', arguments: '{"command": "sleep 2"}' }] },
        { role: 'tool', toolCallId: 'c1', content: '' },
        { role: 'user', content: 'also the README' },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'next one' },
        { role: 'assistant', content: 'Sure.' },
      ],
      runs: [{ runId: 'r-1', prompt: 'fix it', status: 'completed' }, { runId: 'r-2', prompt: 'next one', status: 'completed' }],
    });
    assert.deepEqual(runs.map((r) => r.prompt), ['fix it', 'next one']);
    assert.deepEqual(runs[0].steers, [{ text: 'also the README', turn: 2 }]);
    assert.deepEqual(runs[0].turns.map((t) => [t.turn, t.text]), [[1, 'Working.'], [2, 'Noted.']]);
    assert.match(renderRuns(runs), /data-turn="2"><div class="steer">[^]*also the README[^]*Noted\./);
  });
});
