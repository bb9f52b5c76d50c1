/** The run view's HTML: what a reader sees for each kind of run, and escaping. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { approvalCardFrom } from '../../src/approvals';
import { argSummary, esc, PROBLEMS_SHOWN, renderApprovalCard, renderDiff, renderRuns } from '../../src/render';
import { initialRunState, type ProgressNotification, reduceAll } from '../../src/runState';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'test', 'fixtures');

function run(name: string, prompt: string): ReturnType<typeof initialRunState> {
  const ns = JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as ProgressNotification[];
  return reduceAll(initialRunState(prompt), ns);
}

describe('renderRuns', () => {
  it('says how to start when there is no run', () => {
    assert.match(renderRuns([]), /type below and press Enter/);
  });

  it('shows prompt, tools with status and duration, answer, status and usage', () => {
    const html = renderRuns([run('completed.json', 'say hi')]);
    assert.match(html, /class="prompt">say hi</);
    assert.match(html, /✓ completed/);
    assert.match(html, /<span class="icon">✓<\/span> <span class="verb">ran<\/span> <code class="args">echo hi<\/code> <span class="meta">exit 0 · 14 ms<\/span>/);
    assert.match(html, /<span class="verb">read<\/span> <code class="args">a\.txt<\/code> <span class="meta">2 ms<\/span>/);
    assert.match(html, /class="assistant markdown final-text"><p>All done\.<\/p>/);
    assert.match(html, /2 turns · 2 tool calls · tokens in 250 · out 25/);
    assert.match(html, /<pre class="output">hi\n<\/pre>/);
  });

  it('shows a command that exited non-zero or was killed as a failed row with how it ended', () => {
    const ended = (fields: Record<string, unknown>): string => renderRuns([reduceAll(initialRunState('test'), [
      { kind: 'tool_started', runId: 'r', sessionId: 's', seq: 1, turn: 1, toolCallId: 'c1', tool: 'bash', toolKind: 'execute', arguments: { command: 'npm test' } },
      { kind: 'tool_completed', runId: 'r', sessionId: 's', seq: 2, turn: 1, toolCallId: 'c1', tool: 'bash', toolKind: 'execute', output: 'boom\nexit status 254', durationMs: 80, ...fields },
    ])]);
    assert.match(ended({ exitCode: 254 }), /<details class="tool failed"[^>]*>\n<summary><span class="icon">✗<\/span> <span class="verb">ran<\/span> <code class="args">npm test<\/code> <span class="meta">exit 254 · 80 ms<\/span>/);
    assert.match(ended({ signal: 'SIGKILL' }), /<span class="icon">✗<\/span> <span class="verb">ran<\/span> <code class="args">npm test<\/code> <span class="meta">killed \(SIGKILL\) · 80 ms/);
    assert.match(ended({ exitCode: 0 }), /<details class="tool ok"[^>]*>\n<summary><span class="icon">✓<\/span>/);
  });

  it('ends the footer with the run\'s cost when the daemon knows the price', () => {
    const usage = { kind: 'usage', runId: 'r', sessionId: 's', seq: 1, turn: 1, inputTokens: 10,
                    outputTokens: 2, totalInputTokens: 10, totalOutputTokens: 2, costUsd: 0.045 };
    const done = { kind: 'run_finished', runId: 'r', sessionId: 's', seq: 2, status: 'completed',
                   turns: 1, toolCalls: 0 };
    const html = renderRuns([reduceAll(initialRunState('go'), [usage, done] as ProgressNotification[])]);
    assert.match(html, /1 turn · 0 tool calls · tokens in 10 · out 2 · \$0\.0450/);
    assert.doesNotMatch(renderRuns([run('completed.json', 'say hi')]), /\$\d/);
  });

  it('prints the final text once, not again as an "answer"', () => {
    const html = renderRuns([run('completed.json', 'say hi')]);
    assert.equal(html.split('All done.').length - 1, 1);
    assert.doesNotMatch(html, />answer</);
  });

  it('says "1 turn" and "1 tool call", not "1 turns"', () => {
    const html = renderRuns([run('failed.json', 'fix it')]);
    assert.match(html, /1 turn · 1 tool call · tokens/);
  });

  it('a cancelled run keeps its partial text in its turn, not labelled as the answer', () => {
    const s = reduceAll(initialRunState('wait'), [
      { runId: 'r', sessionId: 's', seq: 1, kind: 'text_delta', turn: 1, text: 'Half a tho' },
      { runId: 'r', sessionId: 's', seq: 2, kind: 'run_finished', status: 'cancelled', turns: 1, toolCalls: 0, usage: {}, text: 'Half a tho' },
    ]);
    const html = renderRuns([s]);
    assert.equal(html.split('Half a tho').length - 1, 1);
    assert.doesNotMatch(html, /final-text|answer/);
    assert.doesNotMatch(html, /streaming/);
  });

  it('marks cancelled tools and runs with ✗ and the reason', () => {
    const html = renderRuns([run('cancelled.json', 'wait')]);
    assert.match(html, /✗ cancelled/);
    assert.match(html, /<span class="icon">✗<\/span> <span class="verb">stopped<\/span> <code class="args">sleep 30<\/code> <span class="meta">cancelled · 812 ms<\/span>/);
  });

  it('shows the error of a failed run and its thinking', () => {
    const html = renderRuns([run('failed.json', 'fix it')]);
    assert.match(html, /✗ failed/);
    assert.match(html, /rate_limit: 429 Too Many Requests/);
    assert.match(html, /Let me plan/);
    assert.match(html, /could not edit<\/span> <code class="args">x\.py<\/code> <span class="meta">bad arguments · 0 ms/);
  });

  it('escapes everything that comes from the model or the tools', () => {
    const s = reduceAll(initialRunState('<b>p</b>'), [
      { runId: 'r', sessionId: 's', seq: 1, kind: 'assistant_message', turn: 1, text: '<script>x</script>', toolCalls: [] },
    ]);
    const html = renderRuns([s]);
    assert.ok(!html.includes('<script>'));
    assert.ok(!html.includes('<b>p</b>'));
    assert.match(html, /&lt;script&gt;x&lt;\/script&gt;/);
  });

  it('renders the assistant text as markdown, without raw HTML, with highlighted code', () => {
    const s = reduceAll(initialRunState('p'), [
      { runId: 'r', sessionId: 's', seq: 1, kind: 'assistant_message', turn: 1, toolCalls: [],
        text: 'Fixed **two** bugs:\n\n- `page()`\n\n```python\ndef f():\n    return 1\n```\n<img src=x onerror=alert(1)>' },
      { runId: 'r', sessionId: 's', seq: 2, kind: 'run_finished', status: 'completed', turns: 1, toolCalls: 0, usage: {} },
    ]);
    const html = renderRuns([s]);
    assert.match(html, /<strong>two<\/strong>/);
    assert.match(html, /<li><code>page\(\)<\/code><\/li>/);
    assert.match(html, /<pre><code class="language-python"><span class="hljs-keyword">def<\/span>/);
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  });
});

describe('problems after an edit', () => {
  /** A run with one edit_file whose `tool_completed` carries `diagnostics` (left out when undefined). */
  function edited(diagnostics: unknown): string {
    const s = reduceAll(initialRunState('edit it'), [
      { runId: 'r', sessionId: 's', seq: 1, kind: 'tool_started', turn: 1, toolCallId: 'c1', tool: 'edit_file', toolKind: 'edit',
        arguments: { path: 'src/greet.ts', source_text: 'a', target_text: 'b' } },
      { runId: 'r', sessionId: 's', seq: 2, kind: 'tool_completed', turn: 1, toolCallId: 'c1', tool: 'edit_file', toolKind: 'edit',
        durationMs: 40, output: 'Edited src/greet.ts.', path: 'src/greet.ts', added: 1, removed: 1, via: 'editor',
        ...(diagnostics !== undefined ? { diagnostics } : {}) },
    ]);
    return renderRuns([s]);
  }

  it('lists the new problems under the edit: path:line as a link to the place, severity, message', () => {
    const html = edited([
      { path: 'src/greet.ts', line: 3, column: 7, severity: 'error', message: "Type 'string' is not assignable to type 'number'.", source: 'ts', code: '2322' },
      { path: 'src/greet.ts', line: 1, column: 1, severity: 'warning', message: 'unused <T>' },
    ]);
    assert.match(html, /<div class="problems has-errors"[^>]*><div class="problems-head">✗ 1 new error, 1 other problem<\/div>/);
    assert.match(html, /<li class="problem severity-error"><button type="button" class="link path" data-action="open-file" data-path="src\/greet\.ts" data-line="3" data-column="7"[^>]*>src\/greet\.ts:3<\/button> <span class="severity">error<\/span> <span class="problem-message">Type &#39;string&#39; is not assignable to type &#39;number&#39;\.<\/span> <span class="meta">ts 2322<\/span><\/li>/);
    assert.match(html, /<li class="problem severity-warning">.*<span class="problem-message">unused &lt;T&gt;<\/span><\/li>/);
    // Under the row and its diff link.
    assert.ok(html.indexOf('open-change') < html.indexOf('class="problems'));
  });

  it('says "no new problems" when the editor found none, and nothing when it was not asked', () => {
    assert.match(edited([]), /<div class="problems none"[^>]*>✓ no new problems<\/div>/);
    assert.doesNotMatch(edited(undefined), /problems/);
  });

  it('warnings alone are counted as problems, and a long list is cut', () => {
    const many = Array.from({ length: PROBLEMS_SHOWN + 3 }, (_, i) => ({ path: 'a.ts', line: i + 1, column: 1, severity: 'warning', message: `w${i}` }));
    const html = edited(many);
    assert.match(html, /<div class="problems"[^>]*><div class="problems-head">⚠ 13 new problems<\/div>/);
    assert.equal(html.split('<li class="problem severity-warning">').length - 1, PROBLEMS_SHOWN);
    assert.match(html, /… and 3 more/);
  });
});

describe('helpers', () => {
  it('esc escapes the five HTML characters', () => {
    assert.equal(esc(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('argSummary picks the command or path and shortens long text', () => {
    assert.equal(argSummary({ command: 'ls\n  -la' }), 'ls -la');
    assert.equal(argSummary({ path: 'src/a.ts', content: 'x' }), 'src/a.ts');
    assert.equal(argSummary('not json'), 'not json');
    assert.equal(argSummary({ a: 1 }), '{"a":1}');
    assert.equal(argSummary({ command: 'x'.repeat(200) }).length, 80);
  });
});

describe('approval cards', () => {
  const asked = (JSON.parse(fs.readFileSync(path.join(FIXTURES, 'daemon-approvals.json'), 'utf8')) as {
    asked: unknown[];
  }).asked;

  it('a file change: the title, the coloured diff with counts, diff editor and "Edit before allowing" buttons and the three answers', () => {
    const html = renderApprovalCard({ ...approvalCardFrom('q1', asked[0]), editable: true });
    assert.match(html, /data-approval="q1"/);
    assert.match(html, /<span class="approval-who">harness9<\/span> asks to run <strong class="approval-title">edit_file: a\.txt<\/strong>/);
    assert.match(html, /<span class="d-del">-hello from a\.txt<\/span><span class="d-add">\+hello, world, from a\.txt<\/span>/);
    assert.match(html, /<span class="d-add">\+1<\/span> <span class="d-del">−1<\/span>/);
    assert.match(html, /data-action="open-diff">Open in diff editor</);
    assert.match(html, /data-action="edit-first" title="[^"]+">Edit before allowing</);
    const buttons = [...html.matchAll(/data-decision="([^"]+)">([^<]+)</g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(buttons, [['allow_once', 'Allow once'], ['allow_session', 'Allow for this session'], ['reject', 'Reject']]);
    assert.match(html, /<label class="reason-label" for="reason-q1">/);
    assert.match(html, /<textarea id="reason-q1" class="reason"/);
    // A daemon that did not announce approvalContent would write the agent's text: no editing.
    assert.doesNotMatch(renderApprovalCard(approvalCardFrom('q1', asked[0])), /edit-first/);
  });

  it('a command: shown whole, no diff', () => {
    const html = renderApprovalCard(approvalCardFrom('q2', asked[1]));
    assert.match(html, /<div class="label">command<\/div><pre class="command">rm a\.txt<\/pre>/);
    assert.doesNotMatch(html, /open-diff/);
    assert.doesNotMatch(html, /edit-first/);
  });

  it('says why it asks, and that an escalated command runs OUTSIDE the sandbox', () => {
    const escalate = (JSON.parse(fs.readFileSync(path.join(FIXTURES, 'daemon-sandbox-escalate.json'), 'utf8')) as { asked: unknown[] }).asked[0];
    const html = renderApprovalCard(approvalCardFrom('q4', escalate));
    assert.match(html, /class="approval-card outside-sandbox"/);
    assert.match(html, /<span class="approval-who">harness9<\/span> asks to run outside the sandbox <strong class="approval-title">bash: touch \/var\/tmp\/h9-outside\/escalated<\/strong>/);
    assert.match(html, /<div class="approval-outside" role="note">⚠ Allowed, this command runs OUTSIDE the sandbox/);
    assert.match(html, /<div class="approval-reason">Asked because it asks to run outside the OS sandbox: download the package index<\/div>/);
    const protectedFile = renderApprovalCard(approvalCardFrom('q5', {
      tool: 'edit_file', title: 'edit_file: .git/config', reason: 'writes .git/config, which controls what git runs', arguments: { path: '.git/config' },
    }));
    assert.match(protectedFile, /Asked because it writes \.git\/config, which controls what git runs/);
    assert.doesNotMatch(protectedFile, /outside-sandbox|OUTSIDE/);
    assert.doesNotMatch(renderApprovalCard(approvalCardFrom('q6', asked[1])), /approval-reason|OUTSIDE/);
  });

  it('a rerun the sandbox stopped is a question to run outside it too', () => {
    const rerun = (JSON.parse(fs.readFileSync(path.join(FIXTURES, 'daemon-sandbox-rerun.json'), 'utf8')) as { asked: unknown[] }).asked[0];
    const html = renderApprovalCard(approvalCardFrom('q7', rerun));
    assert.match(html, /OUTSIDE the sandbox/);
    assert.match(html, /Asked because it was stopped by the OS sandbox \(touch: cannot touch &#39;\/var\/tmp\/h9-outside\/rerun&#39;: Read-only file system\)/);
  });

  it('escapes the title, the command and the diff', () => {
    const html = renderApprovalCard(approvalCardFrom('q"3', {
      tool: 'bash', title: 'bash: <b>x</b>', arguments: { command: 'echo "<script>"' },
    }));
    assert.ok(!html.includes('<b>') && !html.includes('<script>'));
    assert.match(html, /data-approval="q&quot;3"/);
    assert.match(renderDiff('+<i>\n'), /<span class="d-add">\+&lt;i&gt;<\/span>/);
  });
});
