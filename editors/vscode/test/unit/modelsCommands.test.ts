/**
 * Choosing the model and slash commands, the pure parts: the answers of `agent/models` and
 * `agent/commands`, the prompt box's completion, the params a choice sends, what a command run
 * shows, and the session a `/clear` or `/resume` answer moves to.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { effortOf, modelListFrom, runParamsOf, setModelParams, stillServed, takesEffort } from '../../src/models';
import { renderRuns } from '../../src/render';
import { applyResult, initialRunState, reduceAll } from '../../src/runState';
import { acceptCommand, commandsFrom, filterCommands, keptHighlight, sessionSwitchOf, slashQuery } from '../../src/slash';

describe('agent/models', () => {
  const answer = {
    models: [
      { provider: 'openai', id: 'gpt-5', contextWindow: 400000, reasoning: true },
      { provider: 'openai', id: 'gpt-4.1' },
      { provider: 'anthropic' },
    ],
    current: { provider: 'openai', model: 'gpt-5', reasoningEffort: 'high' },
    errors: [{ provider: 'anthropic', kind: 'auth', message: 'invalid x-api-key' }],
  };

  it('lists the models, the current one and the errors', () => {
    const list = modelListFrom(answer);
    assert.deepEqual(list.models.map((m) => `${m.provider}/${m.id}`), ['openai/gpt-5', 'openai/gpt-4.1']);
    assert.deepEqual(list.current, { provider: 'openai', model: 'gpt-5', reasoningEffort: 'high' });
    assert.deepEqual(list.errors, ['anthropic: invalid x-api-key']);
    assert.ok(takesEffort(list.models, list.current));
    assert.ok(!takesEffort(list.models, { provider: 'openai', model: 'gpt-4.1' }));
  });

  it('lists the current model even when the service does not', () => {
    const list = modelListFrom({ models: [], current: { provider: 'replay', model: 'script' }, errors: [] });
    assert.deepEqual(list.models, [{ provider: 'replay', id: 'script' }]);
    assert.equal(list.current?.reasoningEffort, 'default');
  });

  it('keeps a choice while the daemon serves its provider, also when its list failed', () => {
    const list = modelListFrom(answer);
    assert.deepEqual(list.providers, ['openai', 'anthropic']);
    assert.ok(stillServed(list, { provider: 'anthropic', model: 'claude-x', reasoningEffort: 'default' }));
    const replayOnly = modelListFrom({ models: [{ provider: 'replay', id: 'script' }], current: null, errors: [] });
    assert.ok(!stillServed(replayOnly, { provider: 'openai', model: 'gpt-5', reasoningEffort: 'high' }));
  });

  it('survives a malformed answer', () => {
    assert.deepEqual(modelListFrom(null), { models: [], current: undefined, errors: [], providers: [] });
  });

  it('sends the default effort as null to setModel and leaves it out of a run', () => {
    const c = { provider: 'openai', model: 'gpt-5', reasoningEffort: effortOf(null) };
    assert.deepEqual(setModelParams('s1', c), { sessionId: 's1', provider: 'openai', model: 'gpt-5', reasoningEffort: null });
    assert.deepEqual(runParamsOf(c), { provider: 'openai', model: 'gpt-5' });
    assert.deepEqual(runParamsOf({ ...c, reasoningEffort: 'low' }), { provider: 'openai', model: 'gpt-5', reasoningEffort: 'low' });
  });
});

describe('slash commands', () => {
  const commands = commandsFrom({
    commands: [
      { name: 'clear', description: 'Start an empty session', source: 'builtin' },
      { name: 'compact', description: 'Compact the conversation', source: 'builtin' },
      { name: 'review', description: 'Review a file', argumentHint: '<file>', source: 'workspace' },
      { name: 'bad name', description: 'not a command name' },
    ],
  });

  it('keeps the highlight on its command when the list is shown again', () => {
    // The daemon's list arrives while the user has moved to /compact with the arrow keys.
    assert.equal(keptHighlight('compact', commands), 1);
    assert.equal(keptHighlight('compact', filterCommands(commands, 'c')), 1);
    assert.equal(keptHighlight('review', filterCommands(commands, 'c')), 0); // gone: the first
    assert.equal(keptHighlight(undefined, commands), 0);
  });

  it('reads the list, dropping what is no command name', () => {
    assert.deepEqual(commands.map((c) => c.name), ['clear', 'compact', 'review']);
    assert.equal(commands[2].argumentHint, '<file>');
    assert.equal(commands[2].source, 'workspace');
  });

  it('opens on a slash at the start of the box, while the name is typed', () => {
    assert.equal(slashQuery('/', 1), '');
    assert.equal(slashQuery('/co', 3), 'co');
    assert.equal(slashQuery('/co', 2), 'c');
    assert.equal(slashQuery('/compact now', 8), 'compact');
    assert.equal(slashQuery('/compact now', 9), undefined, 'past the name: the arguments');
    assert.equal(slashQuery(' /compact', 2), undefined, 'not at the start');
    assert.equal(slashQuery('/usr/bin', 4), undefined, 'a path');
    assert.equal(slashQuery('hello', 2), undefined);
  });

  it('filters by name: those starting with it first', () => {
    assert.deepEqual(filterCommands(commands, 'c').map((c) => c.name), ['clear', 'compact']);
    assert.deepEqual(filterCommands(commands, 'CO').map((c) => c.name), ['compact']);
    assert.deepEqual(filterCommands(commands, 'e').map((c) => c.name), ['clear', 'review']);
    assert.deepEqual(filterCommands(commands, 'x'), []);
  });

  it('accepting one puts its name and a space in the box, keeping what followed', () => {
    assert.equal(acceptCommand('/co', 'compact'), '/compact ');
    assert.equal(acceptCommand('/rev main.py', 'review'), '/review main.py');
  });

  it('moves to the session a /clear or /resume answer names', () => {
    assert.deepEqual(sessionSwitchOf({ command: 'clear', sessionId: 'new' }, 'old'), { kind: 'clear', sessionId: 'new' });
    assert.deepEqual(sessionSwitchOf({ command: 'resume', sessionId: 'other' }, 'old'), { kind: 'resume', sessionId: 'other' });
    assert.equal(sessionSwitchOf({ command: 'resume', sessionId: 'old' }, 'old'), undefined, '/resume alone lists the sessions');
    assert.equal(sessionSwitchOf({ command: 'compact', sessionId: 'new' }, 'old'), undefined);
    assert.equal(sessionSwitchOf({ sessionId: 'new' }, 'old'), undefined);
    assert.equal(sessionSwitchOf(undefined, 'old'), undefined);
  });
});

describe('a command run', () => {
  let seq = 0;
  const n = (kind: string, fields: Record<string, unknown> = {}): Record<string, unknown> => ({ runId: 'r', sessionId: 's', seq: ++seq, kind, ...fields });

  it('shows a muted /name row and the command\'s text, no usage line', () => {
    const state = reduceAll(initialRunState('/compact'), [
      n('run_started', { provider: 'openai', model: 'gpt-5' }),
      n('command', { name: 'compact', arguments: '' }),
      n('text_delta', { turn: 0, text: 'Compacted: 12 messages → 3.' }),
      n('run_finished', { status: 'completed', turns: 0, text: 'Compacted: 12 messages → 3.' }),
    ]);
    assert.deepEqual(state.command, { name: 'compact' });
    const html = renderRuns([state]);
    assert.match(html, /<div class="command-row"[^>]*>\/compact<\/div>/);
    assert.equal(html.split('Compacted: 12 messages → 3.').length, 2, 'the text once');
    assert.doesNotMatch(html, /class="usage"/);
    assert.doesNotMatch(html, /class="where"/, 'no model ran it');
  });

  it('takes the command from the answer when no progress named it', () => {
    const state = applyResult(initialRunState('/help'), { status: 'completed', command: 'help', text: '/help lists the commands' });
    assert.deepEqual(state.command, { name: 'help' });
    assert.match(renderRuns([state]), /\/help lists the commands/);
  });

  it('keeps the lines of its text (a list of sessions), escaped', () => {
    const state = applyResult(initialRunState('/resume'), { status: 'completed', command: 'resume', text: 'Sessions:\n  s-1  <first>\n  s-2  second' });
    assert.match(renderRuns([state]), /<div class="assistant command-text">Sessions:\n {2}s-1 {2}&lt;first&gt;\n {2}s-2 {2}second<\/div>/);
  });

  it('shows the arguments after the name', () => {
    const state = reduceAll(initialRunState('/resume abc'), [n('command', { name: 'resume', arguments: 'abc' })]);
    assert.match(renderRuns([state]), />\/resume abc<\/div>/);
  });
});
