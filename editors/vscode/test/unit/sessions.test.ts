/** Stored sessions as the chat shows them, and context chips as `agent/run` sends them. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { chipOf, lineSpan, problemsText } from '../../src/chips';
import { renderRuns } from '../../src/render';
import { applyResult, initialRunState, reduceAll, type RunState } from '../../src/runState';
import { ago, runsFromSession, sessionRow, sessionsFrom, withCheckpoints } from '../../src/sessions';

describe('agent/sessions', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');

  it('lists each session with its title, when and how many turns', () => {
    const rows = sessionsFrom({
      sessions: [
        { sessionId: 's2', title: 'Fix the pager', updatedAt: '2026-12-03T11:57:00Z', turns: 1, runs: 1 },
        { sessionId: 's1', title: '', createdAt: '2026-12-01T08:00:00Z', turns: 7 },
        { title: 'no id: skipped' },
      ],
    }).map((s) => sessionRow(s, now));
    assert.deepEqual(rows, [
      { label: 'Fix the pager', description: '3 min ago · 1 turn' },
      { label: '(untitled)', description: '2026-12-01 · 7 turns' },
    ]);
  });

  it('says how long ago', () => {
    assert.deepEqual(
      ['2026-12-03T11:59:50Z', '2026-12-03T09:00:00Z', '2026-12-02T10:00:00Z', undefined].map((t) => ago(t, now)),
      ['just now', '3 hours ago', 'yesterday', ''],
    );
  });
});

describe('agent/session', () => {
  const session = {
    sessionId: 's1',
    title: 'Fix the pager',
    messages: [
      { role: 'system', content: 'You are…' },
      { role: 'user', content: 'Fix the pager.' },
      { role: 'assistant', content: 'Reading it.', toolCalls: [{ id: 'c1', name: 'read_file', kind: 'read', arguments: '{"path": "pager.py"}' }] },
      { role: 'user', toolCallId: 'c1', content: 'def page(): ...' },
      { role: 'assistant', content: 'Fixed **it**.' },
      { role: 'user', content: 'Thanks, now the docs.' },
      { role: 'assistant', content: 'Stopped.' },
    ],
    runs: [
      { runId: 'r1', prompt: 'Fix the pager.', status: 'completed', turns: 2, toolCalls: 1 },
      { runId: 'r2', prompt: 'Thanks, now the docs.', status: 'cancelled', turns: 1, toolCalls: 0 },
    ],
  };

  it('gives back each run with its turns, calls and their output', () => {
    const runs = runsFromSession(session);
    assert.deepEqual(runs.map((r) => [r.runId, r.sessionId, r.prompt, r.status, r.turnCount]), [
      ['r1', 's1', 'Fix the pager.', 'completed', 2],
      ['r2', 's1', 'Thanks, now the docs.', 'cancelled', 1],
    ]);
    assert.deepEqual(runs[0].turns.map((t) => [t.turn, t.text, t.toolCallIds]), [[1, 'Reading it.', ['c1']], [2, 'Fixed **it**.', []]]);
    assert.deepEqual(runs[0].tools.c1, { id: 'c1', name: 'read_file', kind: 'read', turn: 1, status: 'ok', arguments: { path: 'pager.py' }, output: 'def page(): ...' });
    const html = renderRuns(runs);
    assert.match(html, /<span class="verb">read<\/span> <code class="args">pager\.py<\/code>/);
    assert.match(html, /final-text"><p>Fixed <strong>it<\/strong>\.<\/p>/);
  });

  it('reads back what the daemon stored: thinking, the calls with their outputs, the answer', () => {
    const recorded = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'daemon-session.json'), 'utf8')) as {
      session: unknown; sessions: unknown; answer: { result: { sessionId: string; runId: string } };
    };
    const [run] = runsFromSession(recorded.session);
    assert.deepEqual([run.runId, run.sessionId, run.prompt, run.status, run.turnCount, run.toolCallCount], [
      recorded.answer.result.runId, recorded.answer.result.sessionId, 'Record me.', 'completed', 2, 2,
    ]);
    assert.deepEqual(run.turns.map((t) => [t.turn, t.thinking, t.text, t.toolCallIds.length]), [
      [1, 'First the file.', "I'll read it.", 2],
      [2, 'Let me think about the next step.', 'It says **hello**.', 0],
    ]);
    const [read, bash] = run.turns[0].toolCallIds.map((id) => run.tools[id]);
    assert.deepEqual([read.name, read.status, read.output, read.arguments], ['read_file', 'ok', 'hello from a.txt\n', { path: 'a.txt' }]);
    assert.deepEqual([bash.name, bash.kind, bash.status, bash.output], ['bash', 'execute', 'ok', 'exit status 3']);
    assert.equal(run.finalText, 'It says **hello**.');
    const [row] = sessionsFrom(recorded.sessions);
    assert.deepEqual([row.sessionId, row.title, row.turns], [recorded.answer.result.sessionId, 'Record me.', 2]);
    // A stored conversation keeps what the model read, not the exit code: the row names none
    // rather than reading it back out of the text.
    assert.match(renderRuns([run]), /<span class="verb">ran<\/span> <code class="args">exit 3<\/code> <span class="meta"><\/span>/);
  });

  it('each run gets its checkpoints back, the first before its tools, as "Restore to here"', () => {
    const runs = withCheckpoints(runsFromSession(session), {
      checkpoints: [
        { checkpointId: 'k1', runId: 'r1', turn: 1, createdAt: 'x', files: [] },
        { checkpointId: 'k2', runId: 'r1', turn: 1, createdAt: 'x', files: ['pager.py'] },
        { checkpointId: 'k9', runId: 'elsewhere', turn: 1, files: [] },
      ],
    });
    assert.deepEqual(runs[0].checkpoints, [
      { checkpointId: 'k1', turn: 1, files: [], beforeTools: true },
      { checkpointId: 'k2', turn: 1, files: ['pager.py'], beforeTools: false },
    ]);
    assert.equal(runs[1].checkpoints, undefined);
    const html = renderRuns(runs);
    assert.equal(html.split('data-action="restore"').length - 1, 2);
    assert.doesNotMatch(html, /tokens in 0/, 'no token counts for runs read back');
  });

  it('after a restore cut runs away, each prompt keeps its own run record (and so its checkpoints)', () => {
    const restored = {
      sessionId: 's1',
      messages: [
        { role: 'user', content: 'Fix the pager.' },
        { role: 'assistant', content: 'Fixed.' },
        { role: 'user', content: 'Now the docs.\n\nAttached from the editor (1 item):\n…' },
        { role: 'assistant', content: 'Done.' },
      ],
      runs: [
        { runId: 'r1', prompt: 'Fix the pager.', status: 'completed', turns: 1, toolCalls: 0 },
        { runId: 'r2', prompt: 'Cut by the restore.', status: 'completed', turns: 3, toolCalls: 5 },
        { runId: 'r3', prompt: 'Now the docs.', status: 'cancelled', turns: 1, toolCalls: 0 },
      ],
    };
    const runs = runsFromSession(restored);
    assert.deepEqual(runs.map((r) => [r.runId, r.prompt, r.status, r.toolCallCount]), [
      ['r1', 'Fix the pager.', 'completed', 0],
      ['r3', 'Now the docs.', 'cancelled', 0],
    ]);
  });

  describe('read back with each call\'s outcome', () => {
    /** A recorded run, as the live view built it, and as the chat shows it read back. */
    const liveAndRestored = (name: string): [RunState, RunState] => {
      const recorded = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'test', 'fixtures', `daemon-${name}.json`), 'utf8')) as {
        notifications: Record<string, unknown>[]; answer: { result: Record<string, unknown> }; session: unknown; checkpoints: unknown;
      };
      const live = applyResult(reduceAll(initialRunState('Record me.'), recorded.notifications), recorded.answer.result);
      const [restored] = withCheckpoints(runsFromSession(recorded.session), recorded.checkpoints);
      return [live, restored];
    };
    const turnsOf = (html: string): string[] => html.match(/<section class="turn"[\s\S]*?<\/section>/g) ?? [];
    const [live, restored] = liveAndRestored('session-outcomes');

    it('shows each turn as the live run did: rows, counts, approvals, diffs, exits, checkpoints', () => {
      const shown = turnsOf(renderRuns([restored]));
      assert.equal(shown.length, 3);
      assert.deepEqual(shown, turnsOf(renderRuns([live])));
    });

    it('a call cancelled while its question waited reads "did not run", as it did live', () => {
      const call = { toolCallId: 'c1', tool: 'bash', toolKind: 'execute', turn: 1, arguments: { command: 'touch planted' } };
      let seq = 0;
      const ev = (fields: Record<string, unknown>): Record<string, unknown> => ({ runId: 'r', sessionId: 's', seq: ++seq, ...fields });
      const ended = { output: 'Error: cancelled', bytes: 16, truncated: false, durationMs: 0 };
      const live = reduceAll(initialRunState('go'), [
        ev({ kind: 'run_started' }),
        ev({ kind: 'assistant_message', turn: 1, text: '', toolCalls: [{ id: 'c1', name: 'bash', kind: 'execute', arguments: call.arguments }] }),
        ev({ ...call, kind: 'approval_requested', title: 'bash: touch planted' }),
        ev({ ...call, ...ended, kind: 'tool_failed', reason: 'cancelled' }),
        ev({ kind: 'run_finished', status: 'cancelled', turns: 1, toolCalls: 1 }),
      ]);
      const [restored] = runsFromSession({ sessionId: 's', runs: [{ runId: 'r', prompt: 'go', status: 'cancelled', turns: 1, toolCalls: 1 }],
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'bash', kind: 'execute', arguments: '{"command":"touch planted"}',
            outcome: { status: 'cancelled', turn: 1, bytes: 16, truncated: false, durationMs: 0, started: false, asked: true } }] },
          { role: 'user', toolCallId: 'c1', content: 'Error: cancelled', isError: true },
        ] });
      const row = (run: RunState): string => (renderRuns([run]).match(/<summary>[\s\S]*?<\/summary>/) ?? [''])[0];
      assert.match(row(live), /did not run/);
      assert.equal(row(restored), row(live));
    });

    it('calls decided by a rule or the mode, and a command run again outside the sandbox, read as they did live', () => {
      for (const name of ['session-outcomes-rules', 'session-outcomes-rerun']) {
        const [then, again] = liveAndRestored(name);
        const shown = turnsOf(renderRuns([again]));
        assert.equal(shown.length, 2, name);
        assert.deepEqual(shown, turnsOf(renderRuns([then])), name);
      }
      const [, rules] = liveAndRestored('session-outcomes-rules');
      assert.deepEqual(Object.values(rules.tools).map((t) => [t.status, t.reason, t.approval?.decision, t.approval?.by, t.approval?.rule]), [
        ['refused', 'denied', 'deny', 'rule', 'bash(rm *)'],
        ['refused', 'denied', 'deny', 'mode', undefined],
        ['ok', undefined, 'allow', 'rule', 'bash(echo *)'],
      ]);
    });

    it('an edit allowed for the session keeps its counts, its diff and the note', () => {
      const edit = restored.tools.call_1_0;
      assert.deepEqual([edit.status, edit.change?.added, edit.change?.removed, edit.approval?.decision], ['ok', 1, 1, 'allow_session']);
      assert.match(edit.change?.diff ?? '', /\+hello, world, from a\.txt/);
      const html = renderRuns([restored]);
      assert.match(html, /<span class="verb">edited<\/span> <code class="args">a\.txt<\/code> <span class="counts"><span class="d-add">\+1<\/span> <span class="d-del">−1<\/span><\/span>/);
      assert.match(html, /data-action="open-change" data-call="call_1_0">Open diff</);
      assert.match(html, /approval-note allowed">✓ allowed by you for this session</);
    });

    it('a rejected command is rejected, not failed; a failed read failed; a command keeps its exit', () => {
      const { call_1_1: rm, call_1_2: read, call_2_0: build } = restored.tools;
      assert.deepEqual([rm.status, rm.reason, rm.message, rm.approval?.decision], ['refused', 'rejected', 'keep the file, please', 'reject']);
      assert.match(renderRuns([restored]), /<code class="args">rm a\.txt<\/code> <span class="meta">rejected: keep the file, please<\/span>/);
      assert.deepEqual([read.status, read.reason], ['failed', 'error']);
      assert.deepEqual([build.status, build.exitCode, build.sandbox, build.changedFiles], ['ok', 3, 'bwrap', [{ path: 'out.txt', status: 'added' }]]);
      assert.match(renderRuns([restored]), /approval-note refused">✗ rejected by you</);
      // Its exit 3 is a failed row, as it was live.
      assert.match(renderRuns([restored]), /<span class="icon">✗<\/span> <span class="verb">ran<\/span> <code class="args">[^<]*<\/code> <span class="meta">exit 3 · /);
    });
  });

  it('an empty or odd answer gives no runs', () => {
    assert.deepEqual(runsFromSession({}), []);
    assert.deepEqual(runsFromSession({ messages: [{ role: 'assistant', content: 'orphan' }] }), []);
  });
});

describe('context chips', () => {
  const uri = 'file:///ws/src/pager.py';

  it('a selection chip names the file and its lines', () => {
    const range = { start: { line: 11, character: 0 }, end: { line: 20, character: 0 } };
    assert.equal(lineSpan(range), '12-20');
    assert.equal(lineSpan({ start: { line: 4, character: 2 }, end: { line: 4, character: 9 } }), '5');
    assert.deepEqual(chipOf({ uri, range, text: '…', kind: 'selection' }, 'src/pager.py'), {
      kind: 'selection', label: 'pager.py:12-20', title: 'the selected lines of src/pager.py:12-20',
    });
    assert.equal(chipOf({ uri, kind: 'file' }, 'src/pager.py').label, 'pager.py');
    assert.equal(chipOf({ uri, text: 'x', kind: 'diagnostics' }, 'src/pager.py', 3).label, 'problems: pager.py (3)');
  });

  it('problems read as 1-based positions with severity and source', () => {
    assert.equal(
      problemsText([
        { line: 11, character: 4, severity: 'error', message: 'name  "x"\n is not defined', source: 'pyright' },
        { line: 0, character: 0, severity: 'warning', message: 'unused import' },
      ]),
      '12:5 error: name "x" is not defined (pyright)\n1:1 warning: unused import',
    );
  });
});
