/** Background tasks as the Tasks view reads them: entries, their line, Apply's note, whose progress. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyNote, applyOutcomeFrom, conflictName, endedNote, statusIcon, taskContext, taskDescription, TaskRuns, tasksFrom } from '../../src/taskList';

const listed = {
  tasks: [
    {
      sessionId: 's-1', status: 'completed', worktree: { path: '/state/wt/t-1', branch: 'harness9/t-1' },
      workspace: '/ws', changedFiles: ['a.txt', 'src/b.ts'], insertions: 3, deletions: 1, title: 'Add a test',
    },
    { sessionId: 's-2', status: 'running', title: '', worktree: { path: '/state/wt/t-2', branch: 'harness9/t-2' }, changedFiles: [], insertions: 0, deletions: 0 },
    { status: 'completed', worktree: { path: '/x' } },
  ],
};

describe('background tasks', () => {
  it('reads the listed tasks, leaving out one without a session', () => {
    const tasks = tasksFrom(listed);
    assert.deepEqual(tasks.map((t) => t.sessionId), ['s-1', 's-2']);
    assert.equal(tasks[0].workspace, '/ws');
    assert.equal(tasks[1].workspace, undefined);
    assert.equal(tasks[0].title, 'Add a test');
    assert.equal(tasks[1].title, undefined); // an empty title is none: the editor names it
    assert.deepEqual(tasksFrom({ tasks: 'no' }), []);
  });

  it('says status, files and +/− on one line; the menus follow the status', () => {
    const [done, running] = tasksFrom(listed);
    assert.equal(taskDescription(done), '2 files +3 −1 · completed');
    assert.equal(taskDescription(running), 'no changes · running');
    assert.equal(taskDescription({ ...done, changedFiles: ['a.txt'] }), '1 file +3 −1 · completed');
    assert.equal(taskContext(done), 'task-done');
    assert.equal(taskContext(running), 'task-running');
    assert.equal(taskContext({ ...done, status: 'applied' }), 'task-applied');
    assert.equal(endedNote('Add a test', done), 'background task "Add a test": completed, 2 files +3 −1');
    assert.equal(statusIcon('running'), 'sync~spin');
    assert.equal(statusIcon('interrupted'), 'warning');
  });

  it('names the files written, or the conflicts and that nothing was written', () => {
    const applied = applyOutcomeFrom({ applied: true, conflicts: [], files: ['a.txt'] });
    assert.equal(applyNote('Add a test', applied), 'applied the task "Add a test": 1 file (a.txt). Undo in an open file takes its change back.');
    const refused = applyOutcomeFrom({ applied: false, conflicts: ['a.txt', 'b.txt'], hunks: [{ path: 'a.txt', text: '<<<<<<< workspace\n' }] });
    assert.deepEqual(refused.conflicts, [{ path: 'a.txt', text: '<<<<<<< workspace\n' }, { path: 'b.txt', text: '' }]);
    assert.equal(applyNote('Add a test', refused), 'the task "Add a test" was not applied: a.txt, b.txt conflict with your changes; nothing was written.');
  });

  it('names a conflict\'s document apart from the file, keeping its extension', () => {
    assert.equal(conflictName('src/a.ts'), '/src/a (conflicts).ts');
    assert.equal(conflictName('Makefile'), '/Makefile (conflicts)');
    assert.equal(conflictName('.env'), '/.env (conflicts)');
  });

  it('claims a task run\'s notifications from its worktree run_started on, and leaves the chat\'s', () => {
    const runs = new TaskRuns();
    const n = (kind: string, runId: string, sessionId: string, fields: Record<string, unknown> = {}) => ({ kind, runId, sessionId, seq: 1, ...fields });
    assert.equal(runs.claim(n('run_started', 'r-chat', 's-chat', { workspaceRoot: '/ws' })), undefined);
    assert.equal(runs.claim(n('run_started', 'r-1', 's-1', { workspaceRoot: '/wt', worktree: { path: '/wt', branch: 'b' } })), 'started');
    assert.equal(runs.runOf('s-1'), 'r-1');
    assert.equal(runs.claim(n('text_delta', 'r-1', 's-1')), 'progress');
    assert.equal(runs.claim(n('tool_completed', 'r-1', 's-1')), 'changed');
    assert.equal(runs.claim(n('tool_completed', 'r-chat', 's-chat')), undefined);
    assert.equal(runs.claim(n('run_finished', 'r-1', 's-1')), 'finished');
    assert.equal(runs.runOf('s-1'), undefined);
    assert.ok(runs.has('s-1'));
  });
});
