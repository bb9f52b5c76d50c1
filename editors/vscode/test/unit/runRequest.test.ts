/** The `agent/run` request of a prompt, the notifications kept for runs not known yet, and the empty chat's recent chats. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderRecent } from '../../src/recent';
import { Orphans, runParams } from '../../src/runRequest';

describe('the agent/run request', () => {
  const fresh = (): Record<string, unknown> => ({ model: 'm-1' });

  it('continues the session, or starts one with the new session params', () => {
    const item = { uri: 'file:///ws/a.txt', kind: 'file' as const };
    assert.deepEqual(runParams({ prompt: 'go', folder: 'file:///ws', sessionId: 's-1' }, [item], { plan: true }, 't-1', fresh), {
      workspaceFolder: 'file:///ws', workDoneToken: 't-1', prompt: 'go', sessionId: 's-1', context: [item], plan: true,
    });
    assert.deepEqual(runParams({ prompt: '', folder: 'file:///ws' }, [], { executePlan: true }, 't-2', fresh), {
      workspaceFolder: 'file:///ws', workDoneToken: 't-2', model: 'm-1', executePlan: true,
    });
  });

  it('keeps the first notifications of a few unknown runs, and hands them over once', () => {
    const orphans = new Orphans(2, 2);
    const n = (runId: string, seq: number) => ({ runId, seq, kind: 'text_delta' });
    [n('r-1', 1), n('r-1', 2), n('r-1', 3), n('r-2', 1), n('r-3', 1)].forEach((x) => orphans.keep(x.runId, x));
    orphans.keep(undefined, n('r-4', 1));
    assert.deepEqual(orphans.take('r-1'), []); // the oldest run went when a third came
    assert.deepEqual(orphans.take('r-2').map((x) => x.seq), [1]);
    assert.deepEqual(orphans.take('r-2'), []);
  });
});

describe('the empty chat lists the recent chats', () => {
  const now = Date.parse('2026-05-01T12:00:00Z');
  const chat = (i: number) => ({ sessionId: `s-${i}`, title: `chat <${i}>`, updatedAt: '2026-05-01T11:57:00Z', turns: i });

  it('each a button that continues it, newest first, at most five, then "All … chats"', () => {
    assert.equal(renderRecent([], now), '');
    const html = renderRecent([1, 2, 3, 4, 5, 6].map(chat), now);
    assert.equal(html.match(/data-action="open-session"/g)?.length, 5);
    assert.match(html, /<button type="button" class="link" data-action="open-session" data-session="s-1" title="Continue this chat">chat &lt;1&gt;<\/button> <span class="meta">3 min ago · 1 turn<\/span>/);
    assert.match(html, /data-action="all-sessions">All 6 chats…<\/button>/);
    assert.doesNotMatch(renderRecent([chat(1)], now), /all-sessions/);
  });
});
