/** Approval questions as the extension reads them, answers, decision wording, and diffs applied. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  answerFor,
  applyUnifiedDiff,
  approvalCardFrom,
  commandOf,
  describeResolution,
  diffStats,
} from '../../src/approvals';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'test', 'fixtures');
const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'daemon-approvals.json'), 'utf8')) as {
  asked: Record<string, unknown>[];
};

describe('approvalCardFrom', () => {
  it('keeps what the daemon asked: title, tool, path, diff, options in its order', () => {
    const [edit, bash] = recorded.asked.map((p, i) => approvalCardFrom(`q${i}`, p));
    assert.equal(edit.title, 'edit_file: a.txt');
    assert.equal(edit.path, 'a.txt');
    assert.equal(edit.diff, '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello from a.txt\n+hello, world, from a.txt\n');
    assert.deepEqual(edit.options.map((o) => o.label), ['Allow once', 'Allow for this session', 'Reject']);
    assert.equal(edit.turn, 1);
    assert.equal(commandOf(bash), 'rm a.txt');
    assert.equal(commandOf(edit), undefined);
  });

  it('survives params with missing or wrong fields: the three answers are still offered', () => {
    const card = approvalCardFrom('q', { tool: 'bash', options: [{ id: 'maybe' }], turn: 'x' });
    assert.equal(card.title, 'bash');
    assert.equal(card.turn, undefined);
    assert.deepEqual(card.options.map((o) => o.id), ['allow_once', 'allow_session', 'reject']);
    assert.equal(approvalCardFrom('q', null).tool, '?');
  });
});

describe('answerFor', () => {
  it('sends a reason only with a rejection, and only when there is one', () => {
    assert.deepEqual(answerFor('reject', '  not now '), { decision: 'reject', message: 'not now' });
    assert.deepEqual(answerFor('reject', '   '), { decision: 'reject' });
    assert.deepEqual(answerFor('allow_once', 'ignored'), { decision: 'allow_once' });
    assert.deepEqual(answerFor('allow_session'), { decision: 'allow_session' });
  });
});

describe('describeResolution', () => {
  it('says who decided and what', () => {
    assert.deepEqual(describeResolution('allow_once', 'user'), { allowed: true, text: 'allowed by you, once' });
    assert.equal(describeResolution('allow_session', 'user').text, 'allowed by you for this session');
    assert.deepEqual(describeResolution('reject', 'user'), { allowed: false, text: 'rejected by you' });
    assert.equal(describeResolution('deny', 'rule', 'bash(rm *)').text, 'denied by the rule bash(rm *)');
    assert.equal(describeResolution('allow', 'rule', 'bash(npm test)').text, 'allowed by the rule bash(npm test)');
    assert.equal(describeResolution('allow', 'session').text, 'allowed: you allowed it for this session');
    assert.deepEqual(describeResolution('deny', 'mode'), { allowed: false, text: 'denied by the approvals mode' });
  });
});

describe('applyUnifiedDiff', () => {
  it('applies the daemon diff of an edit', () => {
    const diff = recorded.asked[0].diff as string;
    assert.equal(applyUnifiedDiff('hello from a.txt\n', diff), 'hello, world, from a.txt\n');
    assert.deepEqual(diffStats(diff), { added: 1, removed: 1 });
  });

  it('applies several hunks with context and keeps the lines between them', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((l) => `${l}\n`).join('');
    const diff = '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -9,2 +9,3 @@\n i\n+i2\n j\n';
    assert.equal(applyUnifiedDiff(before, diff), before.replace('a\n', 'A\n').replace('i\n', 'i\ni2\n'));
  });

  it('creates a new file and honours "no newline at end of file"', () => {
    const diff = '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n';
    assert.equal(applyUnifiedDiff('', diff), 'one\ntwo');
    const fix = '--- a/m\n+++ b/m\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n';
    assert.equal(applyUnifiedDiff('x', fix), 'x\n');
  });

  it('refuses a diff that does not fit the text, or one that was cut', () => {
    assert.equal(applyUnifiedDiff('other\n', '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-hello\n+bye\n'), undefined);
    assert.equal(applyUnifiedDiff('hello\n', '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-hello\n+bye\n[diff cut: 9 more characters]\n'), undefined);
  });
});
