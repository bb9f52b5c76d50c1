/** `@` mentions in the prompt box: what is being typed, completing it, the paths a prompt names. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptMention, mentionedPaths, mentionMatches, mentionPlace, mentionQuery, withMentioned } from '../../src/mentions';

describe('@ mentions', () => {
  it('finds the @path being typed before the caret, not an address or a finished one', () => {
    assert.equal(mentionQuery('fix @src/ma', 11), 'src/ma');
    assert.equal(mentionQuery('@', 1), '');
    assert.equal(mentionQuery('mail me@example.com', 19), undefined);
    assert.equal(mentionQuery('see @a.txt now', 14), undefined);
    assert.equal(mentionQuery('see @a.txt now', 10), 'a.txt');
  });

  it('completes a file with a space after it, a folder without (its entries come next)', () => {
    assert.deepEqual(acceptMention('look at @sr', 11, 'src/'), { text: 'look at @src/', caret: 13 });
    assert.deepEqual(acceptMention('look at @src/ma and', 15, 'src/main.py'), { text: 'look at @src/main.py and', caret: 21 });
    assert.deepEqual(acceptMention('@a', 2, 'a.txt'), { text: '@a.txt ', caret: 7 });
  });

  it('lists the entries of the folder typed in that match: folders first, skipped ones left out', () => {
    const entries = [
      { name: 'main.py', folder: false }, { name: 'models', folder: true }, { name: 'node_modules', folder: true },
      { name: 'README.md', folder: false }, { name: 'm.txt', folder: false },
    ];
    assert.deepEqual(mentionMatches(entries, 'src', 'm'), ['src/models/', 'src/m.txt', 'src/main.py']);
    assert.deepEqual(mentionMatches(entries, '', 'n'), []);
    assert.deepEqual(mentionPlace('src/lib/ma'), { folder: 'src/lib', start: 'ma' });
    assert.deepEqual(mentionPlace('ma'), { folder: '', start: 'ma' });
    assert.equal(mentionPlace('../secret'), undefined);
    assert.equal(mentionPlace('/etc/passwd'), undefined);
  });

  it('the paths a prompt names, as the terminal reads them; each once, after the chips', () => {
    assert.deepEqual(mentionedPaths('compare @a.txt, @src/b.py and @a.txt. (@c.md) a@b.c @../x'), ['a.txt', 'src/b.py']);
    assert.deepEqual(mentionedPaths('@notes/todo.md!'), ['notes/todo.md']);
    const chip = { uri: 'file:///ws/a.txt', kind: 'file' as const };
    const selection = { uri: 'file:///ws/b.txt', kind: 'selection' as const, text: 'x' };
    const mentioned = [{ uri: 'file:///ws/a.txt', kind: 'file' as const }, { uri: 'file:///ws/b.txt', kind: 'file' as const }];
    assert.deepEqual(withMentioned([chip, selection], mentioned), [chip, selection, mentioned[1]]);
  });
});
