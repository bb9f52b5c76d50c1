/**
 * Renders run states as HTML for the run view. Pure (no `vscode`, no DOM): the webview calls it
 * on each state it receives, and unit tests call it directly.
 */
import { type ApprovalCard, commandOf, describeResolution, diffStats } from './approvals';
import type { ApprovalView, ChangedFile, CheckpointView, RunState, ToolItem, TurnView } from './runState';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML content and attribute values. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const STATUS_LABEL: Readonly<Record<string, string>> = {
  starting: 'starting…',
  running: 'running…',
  completed: '✓ completed',
  max_turns: '✓ stopped at max turns',
  cancelled: '✗ cancelled',
  error: '✗ failed',
};

/** The pause sign of a call waiting for the user; U+2016, which common fonts have (U+23F8 is rarer). */
export const WAITING_ICON = '‖';

const TOOL_ICON: Readonly<Record<string, string>> = { waiting: WAITING_ICON, running: '⟳', ok: '✓', failed: '✗', refused: '⊘' };

/** Words for the reasons of refused calls, beside the approval line that says who refused. */
const REFUSAL_META: Readonly<Record<string, string>> = { rejected: 'rejected', denied: 'denied' };

/** A short one-line summary of tool arguments, e.g. `echo hi` for bash. */
export function argSummary(args: unknown): string {
  if (typeof args === 'string') {
    return oneLine(args);
  }
  if (args && typeof args === 'object') {
    const o = args as Record<string, unknown>;
    const main = o.command ?? o.path;
    if (typeof main === 'string') {
      return oneLine(main);
    }
    return oneLine(JSON.stringify(args));
  }
  return '';
}

function oneLine(s: string, max = 80): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function formatDuration(ms: number | undefined): string {
  if (ms === undefined) {
    return '';
  }
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The timeline line of a call's approval: waiting for you, then who allowed or refused it. */
export function renderApproval(a: ApprovalView | undefined, waiting: boolean): string {
  if (a === undefined) {
    return '';
  }
  if (a.decision === undefined) {
    const what = a.title ?? 'this call';
    return waiting
      ? `<div class="approval-note waiting" role="status">${WAITING_ICON} waiting for you: <code>${esc(what)}</code></div>`
      : '';
  }
  const { allowed, text } = describeResolution(a.decision, a.by ?? '', a.rule);
  const cls = allowed ? 'allowed' : 'refused';
  return `<div class="approval-note ${cls}">${allowed ? '✓' : '✗'} ${esc(text)}</div>`;
}

function toolMeta(t: ToolItem): string[] {
  if (t.status === 'waiting') {
    return ['waiting for approval'];
  }
  return [
    t.status === 'running' ? 'running' : t.status === 'refused' ? '' : formatDuration(t.durationMs),
    t.status === 'failed' ? t.reason ?? 'error' : '',
    t.status === 'refused' ? REFUSAL_META[t.reason ?? ''] ?? t.reason ?? 'refused' : '',
    t.truncated ? `truncated, ${t.bytes ?? '?'} bytes` : '',
  ].filter((s) => s !== '');
}

const CHANGE_ICON: Readonly<Record<string, string>> = { added: '+', modified: '~', deleted: '−' };

function renderChangedFile(f: ChangedFile): string {
  const icon = `<span class="change-icon" title="${esc(f.status)}">${CHANGE_ICON[f.status] ?? '?'}</span>`;
  // A deleted file has nothing to open.
  const name = f.status === 'deleted'
    ? `<span class="path">${esc(f.path)}</span>`
    : `<button type="button" class="link path" data-action="open-file" data-path="${esc(f.path)}">${esc(f.path)}</button>`;
  return `<li class="changed ${esc(f.status)}">${icon} ${name}</li>`;
}

/** The files a bash call changed, with a note when calls running beside it may have changed some. */
export function renderChangedFiles(t: ToolItem): string {
  const files = t.changedFiles ?? [];
  if (files.length === 0) {
    return '';
  }
  const others = t.changedFilesSharedWith?.length ?? 0;
  const shared = others > 0
    ? `<div class="shared-note">shared: ${others} other call${others === 1 ? '' : 's'} ran at the same time; these changes may include theirs</div>`
    : '';
  return `<div class="changed-files" aria-label="files changed"><ul>${files.map(renderChangedFile).join('')}</ul>${shared}</div>`;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

function renderRestoreNote(s: RunState, cp: CheckpointView): string {
  const r = s.restore;
  if (r === undefined || r.checkpointId !== cp.checkpointId) {
    return '';
  }
  if (r.error !== undefined) {
    return `<div class="restore-note error" role="alert">✗ restore failed: ${esc(r.error)}</div>`;
  }
  return `<div class="restore-note" role="status">↺ restored ${plural(r.restored?.length ?? 0, 'file')}</div>`;
}

/** A checkpoint as a "Restore to here" action on its turn, with what the last restore did. */
export function renderCheckpoint(s: RunState, cp: CheckpointView): string {
  const when = cp.beforeTools ? 'before the tools' : 'after the tools';
  const changed = cp.files.length > 0 ? ` · ${plural(cp.files.length, 'file')} changed` : '';
  if (cp.dropped) {
    // Nothing to click: the daemon dropped it with the history a restore cut.
    return `<div class="checkpoint dropped" data-checkpoint="${esc(cp.checkpointId)}"><span class="meta">checkpoint ${esc(when)}${esc(changed)} · gone: a restore went back before it</span></div>`;
  }
  return `<div class="checkpoint" data-checkpoint="${esc(cp.checkpointId)}">
<button type="button" class="link" data-action="restore" data-checkpoint="${esc(cp.checkpointId)}">↺ Restore to here</button> <span class="meta">checkpoint ${esc(when)}${esc(changed)}</span>
${renderRestoreNote(s, cp)}</div>`;
}

function renderTool(runKey: string, t: ToolItem): string {
  const detail = toolMeta(t);
  const args = typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments, null, 2);
  return `<details class="tool ${t.status}" data-key="${esc(`${runKey}/${t.id}`)}">
<summary><span class="icon">${TOOL_ICON[t.status]}</span> <span class="tool-name">${esc(t.name)}</span> <code class="args">${esc(argSummary(t.arguments))}</code> <span class="meta">${esc(detail.join(' · '))}</span></summary>
<div class="label">arguments</div><pre class="arguments">${esc(args ?? '')}</pre>
${t.output !== undefined ? `<div class="label">output</div><pre class="output">${esc(t.output)}</pre>` : ''}
</details>${renderApproval(t.approval, t.status === 'waiting')}${renderChangedFiles(t)}`;
}

function renderTurn(s: RunState, runKey: string, t: TurnView): string {
  const parts = [`<div class="turn-head">turn ${t.turn}</div>`];
  if (t.thinking) {
    parts.push(`<div class="thinking"><span class="label">thinking</span> ${esc(t.thinking)}</div>`);
  }
  if (t.text) {
    parts.push(`<div class="assistant${t.complete ? '' : ' streaming'}">${esc(t.text)}</div>`);
  }
  const checkpoints = (s.checkpoints ?? []).filter((c) => c.turn === t.turn);
  for (const cp of checkpoints.filter((c) => c.beforeTools)) {
    parts.push(renderCheckpoint(s, cp));
  }
  for (const id of t.toolCallIds) {
    const tool = s.tools[id];
    if (tool) {
      parts.push(renderTool(runKey, tool));
    }
  }
  if (t.observationMessages !== undefined) {
    parts.push(`<div class="observation">observation: tool results added · context ${t.observationMessages} messages</div>`);
  }
  for (const cp of checkpoints.filter((c) => !c.beforeTools)) {
    parts.push(renderCheckpoint(s, cp));
  }
  return `<section class="turn">${parts.join('\n')}</section>`;
}

function renderFooter(s: RunState): string {
  const facts = [
    s.turnCount !== undefined ? `${s.turnCount} turns` : '',
    s.toolCallCount !== undefined ? `${s.toolCallCount} tool calls` : '',
    `tokens in ${s.usage.inputTokens} · out ${s.usage.outputTokens}`,
  ].filter((x) => x !== '');
  const answer =
    s.finalText !== undefined && s.finalText !== ''
      ? `<div class="final"><div class="label">answer</div><div class="final-text">${esc(s.finalText)}</div></div>`
      : '';
  const error = s.error ? `<div class="error">${esc(s.error)}</div>` : '';
  const off = s.checkpointsOff ? `<div class="checkpoints-off">checkpoints off: ${esc(s.checkpointsOff)}</div>` : '';
  return `${answer}${error}${off}<div class="usage">${esc(facts.join(' · '))}</div>`;
}

/** The HTML of one run: prompt, turns with their tool items, final answer, status and usage. */
export function renderRun(s: RunState, index: number): string {
  const runKey = s.runId ?? `run-${index}`;
  const where = [s.provider, s.model].filter((x) => x).join(' · ');
  return `<article class="run status-${s.status}" data-run="${esc(runKey)}" data-index="${index}">
<header><div class="prompt">${esc(s.prompt)}</div>
<div class="status">${esc(STATUS_LABEL[s.status] ?? s.status)}</div>
${where ? `<div class="where">${esc(where)}</div>` : ''}</header>
${s.turns.map((t) => renderTurn(s, runKey, t)).join('\n')}
${renderFooter(s)}
</article>`;
}

/** All runs of the session, oldest first; an empty view says how to start. */
export function renderRuns(runs: readonly RunState[]): string {
  if (runs.length === 0) {
    return '<p class="empty">No run yet. Use "harness9: Run Agent" to start one.</p>';
  }
  return runs.map((r, i) => renderRun(r, i)).join('\n');
}

/** A unified diff with its added, removed and hunk lines marked for colouring. */
export function renderDiff(diff: string): string {
  const lines = diff.replace(/\n$/, '').split('\n').map((line) => {
    const cls = line.startsWith('+++') || line.startsWith('---')
      ? 'file'
      : line.startsWith('@@')
        ? 'hunk'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'ctx';
    return `<span class="d-${cls}">${esc(line)}</span>`;
  });
  // Each line is a block (its background spans the width), so no newline goes between them.
  return `<pre class="diff" tabindex="0" aria-label="proposed change">${lines.join('')}</pre>`;
}

function renderSubject(card: ApprovalCard): string {
  const command = commandOf(card);
  if (command !== undefined) {
    return `<div class="label">command</div><pre class="command">${esc(command)}</pre>`;
  }
  if (card.diff !== undefined) {
    const { added, removed } = diffStats(card.diff);
    const where = card.path ?? argSummary(card.arguments);
    return `<div class="label">change to <code>${esc(where)}</code> · <span class="d-add">+${added}</span> <span class="d-del">−${removed}</span>
<button type="button" class="link" data-action="open-diff">Open in diff editor</button></div>
${renderDiff(card.diff)}`;
  }
  const args = typeof card.arguments === 'string' ? card.arguments : JSON.stringify(card.arguments, null, 2);
  return `<div class="label">arguments</div><pre class="arguments">${esc(args ?? '')}</pre>`;
}

const BUTTON_CLASS: Readonly<Record<string, string>> = {
  allow_once: 'primary',
  allow_session: 'secondary',
  reject: 'danger',
};

/**
 * An open question: what the agent wants to do (the command, or the diff of the file change)
 * and the three answers, with a reason box for a rejection. `data-approval` keys it.
 */
export function renderApprovalCard(card: ApprovalCard): string {
  const key = esc(card.id);
  const reasonId = `reason-${key}`;
  const buttons = card.options
    .map((o) => `<button type="button" class="${BUTTON_CLASS[o.id] ?? 'secondary'}" data-decision="${esc(o.id)}">${esc(o.label)}</button>`)
    .join('');
  const turn = card.turn !== undefined ? ` · turn ${card.turn}` : '';
  return `<section class="approval-card" data-approval="${key}" role="group" aria-label="${esc(`harness9 asks: ${card.title}`)}">
<div class="approval-head"><span class="approval-icon">${WAITING_ICON}</span> harness9 asks to run <strong class="approval-title">${esc(card.title)}</strong><span class="meta">${esc(turn)}</span></div>
${renderSubject(card)}
<div class="approval-actions">${buttons}</div>
<label class="reason-label" for="${reasonId}">Reason for rejecting (optional, sent to the agent; Ctrl+Enter rejects)</label>
<textarea id="${reasonId}" class="reason" rows="2" placeholder="e.g. do not delete files; run the tests instead"></textarea>
</section>`;
}
