/** "Review changes": the files a run edited, each one's text before the run, and the button. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderCheckpoint, renderReview } from '../../src/render';
import { canReview, filesThenFrom, notShownNote, reviewedFiles, textBeforeRun, textThen, unreviewableNote } from '../../src/review';
import { initialRunState, type ProgressNotification, reduceAll } from '../../src/runState';

const base = { runId: 'r-1', sessionId: 's-1' };
let seq = 0;
const note = (kind: string, fields: Record<string, unknown>): ProgressNotification => ({ ...base, seq: ++seq, kind, ...fields });

function edit(turn: number, id: string, path: string, diff: string): ProgressNotification[] {
  return [
    note('tool_started', { turn, toolCallId: id, tool: 'edit_file', arguments: { path } }),
    note('tool_completed', { turn, toolCallId: id, tool: 'edit_file', output: `Edited ${path}`, path, diff, added: 1, removed: 1 }),
  ];
}

function twoTurns(): ProgressNotification[] {
  return [
    note('run_started', { workspaceRoot: '/ws' }),
    note('assistant_message', { turn: 1, text: '', toolCalls: [{ id: 'a', name: 'edit_file' }, { id: 'b', name: 'write_file' }] }),
    ...edit(1, 'a', 'x.txt', '--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n'),
    note('tool_started', { turn: 1, toolCallId: 'b', tool: 'write_file', arguments: { path: 'new.txt' } }),
    note('tool_completed', { turn: 1, toolCallId: 'b', tool: 'write_file', output: 'Wrote', path: 'new.txt', diff: '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n' }),
    note('assistant_message', { turn: 2, text: '', toolCalls: [{ id: 'c', name: 'edit_file' }] }),
    ...edit(2, 'c', 'x.txt', '--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n-one\n+ONE\n TWO\n three\n'),
    note('run_finished', { status: 'completed', turns: 2, toolCalls: 3 }),
  ];
}

describe('review changes', () => {
  const state = reduceAll(initialRunState('go'), twoTurns());

  it('lists each file once, in the order first changed, with its changes in order', () => {
    assert.deepEqual(reviewedFiles(state).map((f) => [f.path, f.changes.length]), [['x.txt', 2], ['new.txt', 1]]);
  });

  it('turns every change of a file back, the newest first', () => {
    const [x, fresh] = reviewedFiles(state);
    assert.equal(textBeforeRun('ONE\nTWO\nthree\n', x), 'one\ntwo\nthree\n');
    assert.equal(textBeforeRun('fresh\n', fresh), '');
    // The user changed the file since: its text before cannot be rebuilt.
    assert.equal(textBeforeRun('ONE\nzwei\nthree\n', x), undefined);
    assert.equal(unreviewableNote(['x.txt']), 'x.txt changed since the run (or its diff was cut): open it from its row instead');
  });

  it('offers the button only on a finished run that edited files', () => {
    assert.equal(canReview(state), true);
    assert.match(renderReview(state), /data-action="review"[^>]*>⇄ Review changes<\/button> <span class="meta">2 files edited<\/span>/);
    const running = reduceAll(initialRunState('go'), twoTurns().slice(0, -1));
    assert.equal(renderReview(running), '');
    assert.equal(renderReview(reduceAll(initialRunState('go'), [note('run_finished', { status: 'completed' })])), '');
  });
});

describe('the changes since a checkpoint', () => {
  it('each checkpoint offers them beside "Restore to here"; a dropped one does not', () => {
    const s = initialRunState('go');
    const cp = { checkpointId: 'c1', turn: 2, files: [], beforeTools: true };
    assert.match(renderCheckpoint(s, cp), /data-action="restore" data-checkpoint="c1">↺ Restore to here<\/button> <button type="button" class="link" data-action="review-since" data-checkpoint="c1"[^>]*>⇄ Changes since<\/button>/);
    assert.doesNotMatch(renderCheckpoint(s, { ...cp, dropped: true }), /review-since/);
  });

  it('reads the files as they were then; one added since is empty on the left, one that cannot be shown is named', () => {
    const files = filesThenFrom({ files: [
      { path: 'a.txt', existed: true, text: 'alpha\n' }, { path: 'new.txt', existed: false },
      { path: 'img.png', existed: true, skipped: 'binary' }, { existed: true }, 'x',
    ] });
    assert.deepEqual(files.map((f) => f.path), ['a.txt', 'new.txt', 'img.png']);
    assert.deepEqual(files.map(textThen), ['alpha\n', '', undefined]);
    assert.equal(notShownNote([files[2]]), 'changed but not shown: img.png (binary)');
    assert.deepEqual(filesThenFrom(undefined), []);
  });
});
