/** Changed files shared between calls, the restore question and the restore errors. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderChangedFiles, renderRuns } from '../../src/render';
import { BUSY_CODE, dropCheckpointsAfter, filesAfterCheckpoint, restoreDetail, restoredPaths, restoreErrorText, restoreQuestion } from '../../src/restore';
import { initialRunState, type ProgressNotification, reduceAll } from '../../src/runState';

const base = { runId: 'r-1', sessionId: 's-1' };
let seq = 0;
const note = (kind: string, fields: Record<string, unknown>): ProgressNotification => ({ ...base, seq: ++seq, kind, ...fields });

function twoParallelCalls(): ProgressNotification[] {
  return [
    note('checkpoint', { turn: 1, checkpointId: 'c0', files: [] }),
    note('tool_started', { turn: 1, toolCallId: 't1', tool: 'bash', arguments: { command: 'echo 1 > one.txt' } }),
    note('tool_started', { turn: 1, toolCallId: 't2', tool: 'bash', arguments: { command: 'rm two.txt' } }),
    note('tool_completed', {
      turn: 1, toolCallId: 't1', output: '', changedFiles: [{ path: 'one.txt', status: 'added' }, { path: 'two.txt', status: 'deleted' }],
      changedFilesSharedWith: ['t2'],
    }),
    note('tool_completed', { turn: 1, toolCallId: 't2', output: '', changedFiles: [{ path: 'two.txt', status: 'deleted' }], changedFilesSharedWith: ['t1'] }),
    note('checkpoint', { turn: 1, checkpointId: 'c1', files: ['one.txt', 'two.txt'] }),
    note('checkpoint', { turn: 2, checkpointId: 'c2', files: ['one.txt', 'three.txt'] }),
    // Repeated: ignored by its seq, and a repeated id is not listed twice.
    { ...base, seq: 99, kind: 'checkpoint', turn: 2, checkpointId: 'c2', files: ['x'] },
  ];
}

describe('changed files and checkpoints', () => {
  const state = reduceAll(initialRunState('go'), twoParallelCalls());

  it('calls that ran at the same time carry the "shared" note; deleted files are not links', () => {
    const html = renderChangedFiles(state.tools.t1);
    assert.match(html, /shared: 1 other call ran at the same time; these changes may include theirs/);
    assert.match(html, /<li class="changed deleted"><span class="change-icon" title="deleted">−<\/span> <span class="path">two.txt<\/span><\/li>/);
    assert.equal(html.match(/data-action="open-file"/g)?.length, 1);
    assert.equal(renderChangedFiles(state.tools.t2).match(/<li/g)?.length, 1);
  });

  it('lists each checkpoint once, and a restore may touch the files changed after it', () => {
    assert.deepEqual(state.checkpoints?.map((c) => c.checkpointId), ['c0', 'c1', 'c2']);
    assert.deepEqual(filesAfterCheckpoint([state], 'c0'), ['one.txt', 'three.txt', 'two.txt']);
    assert.deepEqual(filesAfterCheckpoint([state], 'c1'), ['one.txt', 'three.txt']);
    assert.deepEqual(filesAfterCheckpoint([state], 'unknown'), []);
    assert.equal(renderRuns([state]).match(/Restore to here/g)?.length, 3);
  });

  it('a restore drops the later checkpoints: they show without a restore action', () => {
    const [after] = dropCheckpointsAfter([state], 'c1');
    assert.deepEqual(after.checkpoints?.map((c) => [c.checkpointId, c.dropped ?? false]), [['c0', false], ['c1', false], ['c2', true]]);
    const html = renderRuns([after]);
    assert.equal(html.match(/Restore to here/g)?.length, 2);
    assert.match(html, /<div class="checkpoint dropped" data-checkpoint="c2"><span class="meta">checkpoint before the tools · 2 files changed · gone: a restore went back before it<\/span><\/div>/);
    assert.deepEqual(dropCheckpointsAfter([state], 'unknown')[0].checkpoints?.map((c) => c.dropped), [undefined, undefined, undefined]);
  });

  it('checkpoints_off is said in the run', () => {
    const off = reduceAll(initialRunState('go'), [note('checkpoints_off', { message: 'git is not installed' })]);
    assert.match(renderRuns([off]), /checkpoints off: git is not installed/);
  });
});

describe('the restore question and errors', () => {
  it('asks with the number of files', () => {
    assert.match(restoreQuestion(2, ['a.txt', 'b.txt']), /^Restore 2 files to the checkpoint of turn 2\?/);
    assert.match(restoreQuestion(1, ['a.txt']), /^Restore 1 file /);
    assert.match(restoreQuestion(3, []), /^Go back to the checkpoint of turn 3\? No file changed since then needs restoring/);
  });

  it('lists the files the daemon named, and reads them from its answer (a dry run or a restore)', () => {
    assert.equal(restoreDetail(['a.txt', 'b.txt']), 'a.txt\nb.txt');
    assert.equal(restoreDetail(['1', '2', '3', '4'], 2), '1\n2\nand 2 more');
    assert.deepEqual(restoredPaths({ restored: ['a.txt', 3, 'b.txt'], dryRun: true }), ['a.txt', 'b.txt']);
    assert.deepEqual(restoredPaths(undefined), []);
    assert.deepEqual(restoredPaths({ restored: 'a.txt' }), []);
  });

  it('a busy workspace says what to do; other errors keep their message', () => {
    assert.match(restoreErrorText(BUSY_CODE, 'session s-1 is busy', { kind: 'busy' }), /busy \(a run is in progress in this or another session\); wait for it to end or cancel it/);
    assert.equal(restoreErrorText(-32602, 'unknown checkpoint', undefined), 'unknown checkpoint');
    const refused = 'restore refused, nothing was changed: notes.log is in the way';
    assert.equal(restoreErrorText(BUSY_CODE, refused, { kind: 'conflict' }), refused);
    assert.equal(restoreErrorText(BUSY_CODE, 'restore failed: …', { kind: 'internal' }), 'restore failed: …');
  });
});
