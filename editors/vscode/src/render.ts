/**
 * Renders run states as HTML for the run view. Pure (no `vscode`, no DOM): the webview calls it
 * on each state it receives, and unit tests call it directly.
 */
import { type ApprovalCard, canEditFirst, commandOf, describeResolution, diffStats } from './approvals';
import { renderMarkdown } from './markdown';
import { canReview, reviewedFiles } from './review';
import {
  type ApprovalView, type ChangedFile, type CheckpointView, type CommandView, isFinished, type PlanView, type ProblemView, type RunState, type SteerView,
  type ToolItem, type TurnView,
} from './runState';
import { formatDuration, plural, shownStatus, summarize } from './summary';

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
  queued: 'queued',
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

/** The timeline line of a call's approval: waiting for you, then who allowed or refused it. */
export function renderApproval(a: ApprovalView | undefined, waiting: boolean): string {
  if (a === undefined) {
    return '';
  }
  if (a.decision === undefined) {
    const what = a.title ?? 'this call';
    const why = a.reason !== undefined ? `<span class="approval-why"> · it ${esc(a.reason)}</span>` : '';
    return waiting
      ? `<div class="approval-note waiting" role="status">${WAITING_ICON} waiting for you: <code>${esc(what)}</code>${why}</div>`
      : '';
  }
  const { allowed, text } = describeResolution(a.decision, a.by ?? '', a.rule);
  const cls = allowed ? 'allowed' : 'refused';
  return `<div class="approval-note ${cls}">${allowed ? '✓' : '✗'} ${esc(text)}</div>`;
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
<button type="button" class="link" data-action="restore" data-checkpoint="${esc(cp.checkpointId)}">↺ Restore to here</button> <button type="button" class="link" data-action="review-since" data-checkpoint="${esc(cp.checkpointId)}" title="Open what this chat changed since here in the diff editor">⇄ Changes since</button> <span class="meta">checkpoint ${esc(when)}${esc(changed)}</span>
${renderRestoreNote(s, cp)}</div>`;
}

const SANDBOX_MARK: Readonly<Record<string, { text: string; title: string }>> = {
  bwrap: { text: 'sandboxed (bwrap)', title: 'ran in the OS sandbox (bubblewrap): writes only in the workspace, no network' },
  landlock: { text: 'sandboxed (landlock)', title: 'ran in the OS sandbox (Landlock): writes only in the workspace, no TCP' },
  none: { text: 'not sandboxed', title: 'ran without the OS sandbox: it could write anywhere you can and reach the network' },
};

/** Where a command ran, from the daemon's `sandbox`; nothing for a call without one. */
export function renderSandboxMark(t: ToolItem): string {
  const mark = t.sandbox !== undefined ? SANDBOX_MARK[t.sandbox] : undefined;
  if (mark === undefined) {
    return '';
  }
  return ` <span class="sandbox-mark sandbox-${esc(t.sandbox ?? '')}" title="${esc(mark.title)}">${esc(mark.text)}</span>`;
}

/** The row's summary: icon, verb, subject as code, line counts, facts (elapsed time kept live). */
function renderSummary(t: ToolItem, now: number | undefined): string {
  const s = summarize(t, now);
  const counts = s.counts
    ? ` <span class="counts"><span class="d-add">+${s.counts.added}</span> <span class="d-del">−${s.counts.removed}</span></span>`
    : '';
  // A running call's clock is updated in place by the webview, once a second.
  const live = t.status === 'running' && t.startedAt !== undefined ? ` data-started="${t.startedAt}"` : '';
  return `<span class="icon">${TOOL_ICON[shownStatus(t)]}</span> <span class="verb">${esc(s.verb)}</span> <code class="args">${esc(s.subject)}</code>${counts} <span class="meta"${live}>${esc(s.facts.join(' · '))}</span>${renderSandboxMark(t)}`;
}

/** What the row shows when opened: the command or change, then what came back. */
function renderToolBody(t: ToolItem): string {
  const parts: string[] = [];
  const args = t.arguments && typeof t.arguments === 'object' ? (t.arguments as Record<string, unknown>) : undefined;
  if (t.kind === 'execute' && typeof args?.command === 'string') {
    parts.push(`<div class="label">command</div><pre class="command">${esc(args.command)}</pre>`);
  } else if (t.change?.diff !== undefined) {
    const cut = t.change.diffTruncated ? '<div class="meta">the diff was cut; the diff editor shows all of it</div>' : '';
    parts.push(`${renderDiff(t.change.diff)}${cut}`);
  } else if (t.name === 'edit_file' && typeof args?.source_text === 'string' && typeof args.target_text === 'string') {
    parts.push(renderDiff(replacementDiff(args.source_text, args.target_text)));
  } else if (t.name === 'write_file' && typeof args?.content === 'string') {
    parts.push(`<div class="label">content</div><pre class="content">${esc(args.content)}</pre>`);
  } else if (!(t.kind === 'read' && args)) {
    const text = typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments, null, 2);
    parts.push(`<div class="label">arguments</div><pre class="arguments">${esc(text ?? '')}</pre>`);
  }
  // A successful write or edit says so in the model's words only: the summary says it better.
  // Unless the user changed it before allowing it: what the agent was told of that shows.
  const userEdited = t.output?.includes(USER_EDIT_NOTE) === true;
  const modelOnly = t.status === 'ok' && t.kind === 'edit' && !userEdited;
  if (t.output !== undefined && !modelOnly) {
    const label = userEdited ? 'written with your changes; the agent was told' : t.status === 'ok' ? 'output' : 'why';
    parts.push(`<div class="label">${label}</div><pre class="output">${esc(t.output)}</pre>`);
  }
  return parts.join('\n');
}

/** How the daemon tells the model that the user changed its edit before allowing it. */
const USER_EDIT_NOTE = '\nThe user changed your edit before allowing it: ';

/** An edit's text replacement as diff lines, for a daemon that sends no diff of its own. */
function replacementDiff(source: string, target: string): string {
  const lines = (text: string, sign: string): string[] => text.replace(/\n$/, '').split('\n').map((l) => `${sign}${l}`);
  return [...lines(source, '-'), ...lines(target, '+')].join('\n');
}

/** The diff link of a write or edit: VS Code's diff editor, before beside after. */
function renderChangeLink(t: ToolItem): string {
  if (t.status !== 'ok' || t.change === undefined) {
    return '';
  }
  const via = t.change.via === 'editor' ? ' · through the editor (undo with Ctrl+Z)' : '';
  return `<div class="change-link"><button type="button" class="link" data-action="open-change" data-call="${esc(t.id)}">Open diff</button><span class="meta">${esc(via)}</span></div>`;
}

/** How many of an edit's new problems the row lists; the rest are counted. */
export const PROBLEMS_SHOWN = 10;

function renderProblem(p: ProblemView): string {
  const severity = ['error', 'warning', 'information', 'hint'].includes(p.severity) ? p.severity : 'error';
  const where = `${p.path}:${p.line}`;
  const origin = [p.source, p.code].filter((x) => x !== undefined && x !== '').join(' ');
  return `<li class="problem severity-${severity}"><button type="button" class="link path" data-action="open-file" data-path="${esc(p.path)}" data-line="${p.line}" data-column="${p.column}" title="Open ${esc(where)}">${esc(where)}</button> <span class="severity">${esc(severity)}</span> <span class="problem-message">${esc(p.message)}</span>${origin !== '' ? ` <span class="meta">${esc(origin)}</span>` : ''}</li>`;
}

/**
 * The problems the editor reported that an edit brought (`tool_completed` `diagnostics`), under
 * its row: `path:line severity message`, or that there are none; nothing when none were asked.
 */
export function renderProblems(t: ToolItem): string {
  const problems = t.problems;
  if (problems === undefined || t.status !== 'ok') {
    return '';
  }
  if (problems.length === 0) {
    return '<div class="problems none" title="The editor reports no new errors or warnings after this edit">✓ no new problems</div>';
  }
  const more = problems.length > PROBLEMS_SHOWN ? `<li class="meta">… and ${problems.length - PROBLEMS_SHOWN} more</li>` : '';
  const errors = problems.filter((p) => p.severity === 'error').length;
  const head = errors > 0 ? `${plural(errors, 'new error')}${problems.length > errors ? `, ${plural(problems.length - errors, 'other problem')}` : ''}` : plural(problems.length, 'new problem');
  return `<div class="problems${errors > 0 ? ' has-errors' : ''}" aria-label="new problems after this edit"><div class="problems-head">${errors > 0 ? '✗' : '⚠'} ${esc(head)}</div><ul>${problems.slice(0, PROBLEMS_SHOWN).map(renderProblem).join('')}${more}</ul></div>`;
}

/** The newest output of a running call, its tail, under the row. */
function renderLiveOutput(t: ToolItem): string {
  if (t.status !== 'running' || !t.liveOutput) {
    return '';
  }
  const lines = t.liveOutput.replace(/\n$/, '').split('\n');
  const tail = lines.slice(-12).join('\n');
  const cut = t.liveTruncated ? '<div class="meta">live output stopped here (too much); the result will have the rest</div>' : '';
  return `<pre class="live-output" aria-live="off">${esc(tail)}</pre>${cut}`;
}

function renderTool(s: RunState, runKey: string, t: ToolItem, now: number | undefined): string {
  if (isTaskCall(t)) {
    return renderTask(s, runKey, t, now);
  }
  // The plan tool changes nothing: its work is the checklist at the top of the run.
  if (isPlanCall(t) && t.status !== 'failed' && t.status !== 'refused') {
    return `<div class="plan-mark" data-tool="${esc(t.name)}">☰ updated the plan</div>`;
  }
  return `<details class="tool ${shownStatus(t)}" data-key="${esc(`${runKey}/${t.id}`)}" data-tool="${esc(t.name)}">
<summary>${renderSummary(t, now)}</summary>
${renderToolBody(t)}
</details>${renderApproval(t.approval, t.status === 'waiting')}${renderLiveOutput(t)}${renderChangeLink(t)}${renderProblems(t)}${renderChangedFiles(t)}`;
}

function renderCompaction(t: TurnView): string {
  const c = t.compacted;
  if (c === undefined) {
    return '';
  }
  const how = c.method === 'summary' ? 'older turns summarised' : c.method === 'prune' ? 'old tool outputs trimmed' : 'compacted';
  const sizes = c.beforeTokens !== undefined && c.afterTokens !== undefined
    ? ` · ${formatTokens(c.beforeTokens)} → ${formatTokens(c.afterTokens)} tokens`
    : '';
  return `<div class="compacted">context compacted: ${esc(how)}${esc(sizes)}</div>`;
}

/** True for the turn whose text is the run's answer (the last, without tool calls, once done). */
function isAnswerTurn(s: RunState, t: TurnView): boolean {
  const last = s.turns[s.turns.length - 1];
  return t === last && t.complete && t.toolCallIds.length === 0 && (s.status === 'completed' || s.status === 'max_turns');
}

/** True for a call that only records the agent's reasoning (kind `think`: update_plan). */
export function isPlanCall(t: ToolItem): boolean {
  return !isTaskCall(t) && (t.kind === 'think' || (t.kind === undefined && t.name === 'update_plan'));
}

/** True for a call that ran a child agent (`task`). */
export function isTaskCall(t: ToolItem): boolean {
  return t.name === 'task';
}

/** The child agent of a task call, and what the call asked it, from its end or its arguments. */
export function taskOf(s: RunState, t: ToolItem): { agent: string; description: string } {
  const args = t.arguments && typeof t.arguments === 'object' ? (t.arguments as Record<string, unknown>) : {};
  const named = typeof args.agent === 'string' ? args.agent : undefined;
  const description = typeof args.description === 'string' ? args.description : '';
  return { agent: t.agent ?? s.children?.[t.id]?.agent ?? named ?? 'explore', description };
}

/** A task's facts: its child's calls, time, tokens and cost. */
function taskFacts(s: RunState, t: ToolItem): string[] {
  const calls = (s.children?.[t.id]?.turns ?? []).reduce((n, turn) => n + turn.toolCallIds.length, 0);
  // A running task's clock goes in a span of its own, which the webview updates in place.
  const told = summarize(t).facts.filter((f) => f !== 'running');
  return [
    plural(calls, 'tool call'),
    ...told,
    t.usage !== undefined ? `tokens in ${t.usage.inputTokens} · out ${t.usage.outputTokens}` : '',
    t.costUsd !== undefined ? dollars(t.costUsd) : '',
  ].filter((x) => x !== '');
}

/**
 * A task call: a row naming its agent, with its own calls, tokens and cost, that opens on the
 * child's turns (its text and its calls, live) and the result the parent got. Open while it runs.
 */
function renderTask(s: RunState, runKey: string, t: ToolItem, now: number | undefined): string {
  const { agent, description } = taskOf(s, t);
  const turns = s.children?.[t.id]?.turns ?? [];
  const rows = turns.map((turn) => {
    const text = turn.text ? `<div class="assistant markdown child-text">${renderMarkdown(turn.text)}</div>` : '';
    const tools = turn.toolCallIds.map((id) => s.tools[id]).filter((x) => x !== undefined).map((x) => renderTool(s, runKey, x, now));
    return [text, ...tools].filter((p) => p !== '').join('\n');
  });
  const label = t.status === 'ok' ? 'result' : 'why';
  const result = t.output !== undefined ? `<div class="label">${label}</div><pre class="output">${esc(t.output)}</pre>` : '';
  const clock = t.status === 'running' && t.startedAt !== undefined
    ? ` <span class="meta" data-started="${t.startedAt}">${esc(formatDuration((now ?? t.startedAt) - t.startedAt))}</span>`
    : '';
  const open = t.status === 'running' || t.status === 'waiting' ? ' open' : '';
  return `<details class="tool task ${shownStatus(t)}" data-key="${esc(`${runKey}/${t.id}`)}" data-tool="task" data-agent="${esc(agent)}"${open}>
<summary><span class="icon">${TOOL_ICON[shownStatus(t)]}</span> <span class="agent">${esc(agent)}</span> <span class="verb">task</span> <code class="args">${esc(description)}</code> <span class="meta">${esc(taskFacts(s, t).join(' · '))}</span>${clock}</summary>
<div class="task-rows">${rows.join('\n')}</div>${result}
</details>${renderApproval(t.approval, t.status === 'waiting')}`;
}

/** A message the user sent into the run: where it landed, or on its way there. */
export function renderSteer(m: SteerView): string {
  if (m.turn === undefined) {
    return `<div class="steer pending" role="status"><div class="steer-label">you, while it runs · on its way to the agent</div><div class="steer-text">${esc(m.text)}</div></div>`;
  }
  return `<div class="steer"><div class="steer-label">you, while it ran</div><div class="steer-text">${esc(m.text)}</div></div>`;
}

const PLAN_MARK: Readonly<Record<string, string>> = { done: '✓', in_progress: '▸', pending: '○' };

/**
 * The plan as a checklist, pinned at the top of its run; `go` adds the button that carries it out
 * (after a run that only planned).
 */
export function renderPlan(plan: PlanView, go: boolean): string {
  const done = plan.items.filter((i) => i.status === 'done').length;
  const items = plan.items
    .map((i) => {
      const status = PLAN_MARK[i.status] !== undefined ? i.status : 'pending';
      return `<li class="plan-item ${status}" data-status="${status}"><span class="plan-check" aria-hidden="true">${PLAN_MARK[status]}</span> <span class="plan-text">${esc(i.text)}</span></li>`;
    })
    .join('');
  const note = plan.note !== undefined ? `<div class="plan-note">${esc(plan.note)}</div>` : '';
  const button = go
    ? '<div class="plan-actions"><button type="button" class="primary go" data-action="execute-plan" title="Run the agent again in the normal mode, to carry out this plan">▶ Go: carry out the plan</button></div>'
    : '';
  return `<section class="plan" aria-label="plan"><div class="plan-head">Plan <span class="meta">${done} of ${plan.items.length} done</span></div>
<ul class="plan-items">${items}</ul>${note}${button}</section>`;
}

function renderTurn(s: RunState, runKey: string, t: TurnView, now: number | undefined): string {
  const parts = [renderCompaction(t)];
  for (const m of (s.steers ?? []).filter((x) => x.turn === t.turn)) {
    parts.push(renderSteer(m));
  }
  if (t.thinking) {
    parts.push(`<details class="thinking"><summary>thought</summary><div class="thinking-text">${esc(t.thinking)}</div></details>`);
  }
  if (t.text) {
    const streaming = !t.complete && !isFinished(s);
    const cls = isAnswerTurn(s, t) ? 'assistant markdown final-text' : `assistant markdown${streaming ? ' streaming' : ''}`;
    parts.push(`<div class="${cls}">${renderMarkdown(t.text)}</div>`);
  }
  const checkpoints = (s.checkpoints ?? []).filter((c) => c.turn === t.turn);
  for (const cp of checkpoints.filter((c) => c.beforeTools)) {
    parts.push(renderCheckpoint(s, cp));
  }
  for (const id of t.toolCallIds) {
    const tool = s.tools[id];
    if (tool) {
      parts.push(renderTool(s, runKey, tool, now));
    }
  }
  for (const cp of checkpoints.filter((c) => !c.beforeTools)) {
    parts.push(renderCheckpoint(s, cp));
  }
  return `<section class="turn" data-turn="${t.turn}">${parts.filter((p) => p !== '').join('\n')}</section>`;
}

/** `950`, `12.3k`, `1.2M`. */
export function formatTokens(n: number): string {
  if (n < 1000) {
    return String(n);
  }
  return n < 1_000_000 ? `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k` : `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** A run's cost: `$0.0123`, or `$12.50` from a dollar up. */
export function dollars(amount: number): string {
  return amount < 1 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`;
}

function renderFooter(s: RunState): string {
  const facts = [
    s.turnCount !== undefined ? plural(s.turnCount, 'turn') : '',
    s.toolCallCount !== undefined ? plural(s.toolCallCount, 'tool call') : '',
    // None yet while the first call runs; none for a run read back from a stored session.
    s.usage.inputTokens + s.usage.outputTokens > 0 || (isFinished(s) && s.lastSeq > 0)
      ? `tokens in ${s.usage.inputTokens} · out ${s.usage.outputTokens}`
      : '',
    s.usage.costUsd !== undefined ? dollars(s.usage.costUsd) : '',
  ].filter((x) => x !== '');
  // The answer is the last turn's text, already shown; only one that came without it shows here.
  const shown = s.turns.some((t) => t.text !== '' && t.text === s.finalText);
  const error = s.error ? `<div class="error">${esc(s.error)}</div>` : '';
  if (s.command !== undefined) {
    return error; // no model, no tokens: the command's text is the whole of it
  }
  const answer = s.finalText && !shown && (s.status === 'completed' || s.status === 'max_turns')
    ? `<div class="assistant markdown final-text">${renderMarkdown(s.finalText)}</div>`
    : '';
  const off = s.checkpointsOff ? `<div class="checkpoints-off">checkpoints off: ${esc(s.checkpointsOff)}</div>` : '';
  return `${answer}${error}${off}${renderReview(s)}<div class="usage">${esc(facts.join(' · '))}</div>`;
}

/** "Review changes" on a finished run that edited files: the editor's diff of each, to keep or revert. */
export function renderReview(s: RunState): string {
  if (!canReview(s)) {
    return '';
  }
  const files = plural(reviewedFiles(s).length, 'file');
  return `<div class="review"><button type="button" class="link" data-action="review" title="Open the run's changes in the diff editor, where you keep or revert each one">⇄ Review changes</button> <span class="meta">${esc(files)} edited</span></div>`;
}

/** A prompt waiting in the session's queue, with its place and a button to take it out. */
function renderQueued(s: RunState, index: number, place: number): string {
  const runKey = s.runId ?? `run-${index}`;
  // Until the daemon says it is in the queue (its `queued`), it is on its way there.
  const when = s.queueId === undefined ? 'on its way' : place === 1 ? 'next' : `#${place} in line`;
  return `<article class="run queued status-queued" data-run="${esc(runKey)}" data-index="${index}">
<header><div class="prompt">${esc(s.prompt)}</div>
<div class="status">queued · ${esc(when)}</div>
<button type="button" class="link unqueue" data-action="unqueue" title="Take this prompt out of the queue">× Remove</button></header>
</article>`;
}

/** How the run was asked: plan only, or carrying out the plan. */
function modeBadge(s: RunState): string {
  if (s.planMode) {
    return '<div class="mode-badge" title="Asked to investigate and plan, changing nothing">plan first</div>';
  }
  return s.executePlan ? '<div class="mode-badge" title="Asked to carry out the plan">carrying out the plan</div>' : '';
}

/**
 * A command the daemon ran itself: a muted row naming it (`/compact`, `/resume 1234`), then its
 * text, plain and laid out as written (lists of commands, sessions, models are lines).
 */
function renderCommand(s: RunState, c: CommandView): string {
  const args = c.arguments !== undefined ? ` ${c.arguments}` : '';
  const text = s.finalText ?? s.turns.map((t) => t.text).join('');
  const body = text !== '' ? `<div class="assistant command-text">${esc(text)}</div>` : '';
  return `<div class="command-row" title="a command run by harness9 itself, without the model">/${esc(c.name)}${esc(args)}</div>${body}`;
}

/** The HTML of one run: prompt, plan, turns with their tool rows, status and usage. */
export function renderRun(s: RunState, index: number, now?: number, go = false): string {
  const runKey = s.runId ?? `run-${index}`;
  // A command the daemon ran itself used no model: naming one would mislead.
  const where = s.command === undefined ? [s.provider, s.model].filter((x) => x).join(' · ') : '';
  const turns = new Set(s.turns.map((t) => t.turn));
  // Messages still on their way, or delivered at a turn not shown: after the turns.
  const loose = (s.steers ?? []).filter((m) => m.turn === undefined || !turns.has(m.turn));
  return `<article class="run status-${s.status}" data-run="${esc(runKey)}" data-index="${index}">
<header><div class="prompt">${esc(s.prompt)}</div>
<div class="status">${esc(STATUS_LABEL[s.status] ?? s.status)}</div>${modeBadge(s)}
${where ? `<div class="where">${esc(where)}</div>` : ''}</header>
${s.plan !== undefined && s.plan.items.length > 0 ? renderPlan(s.plan, go) : ''}
${s.command !== undefined ? renderCommand(s, s.command) : s.turns.map((t) => renderTurn(s, runKey, t, now)).join('\n')}
${loose.map(renderSteer).join('\n')}
${renderFooter(s)}
</article>`;
}

/**
 * The run whose plan a Go button carries out: the last run shown, when it only planned, ended
 * well and has a plan.
 */
export function goIndex(runs: readonly RunState[]): number | undefined {
  for (let i = runs.length - 1; i >= 0; i -= 1) {
    const r = runs[i];
    if (r.unqueued) {
      continue;
    }
    const ok = r.planMode === true && (r.status === 'completed' || r.status === 'max_turns') && (r.plan?.items.length ?? 0) > 0;
    return ok ? i : undefined;
  }
  return undefined;
}

/** All runs of the session, oldest first; an empty view says how to start. */
export function renderRuns(runs: readonly RunState[], now?: number): string {
  if (runs.length === 0) {
    return '<p class="empty">Ask harness9 to do something in this workspace: type below and press Enter.</p>';
  }
  const go = goIndex(runs);
  // The runs, then the prompts waiting in the queue under them (a steer's next run, which goes
  // ahead of the queue, may come later in the list than prompts queued before it).
  const shown = runs
    .map((r, i) => (r.unqueued || r.status === 'queued' ? '' : renderRun(r, i, now, i === go)))
    .filter((h) => h !== '');
  let place = 0;
  runs.forEach((r, i) => {
    if (!r.unqueued && r.status === 'queued') {
      place += 1;
      shown.push(renderQueued(r, i, place));
    }
  });
  return shown.join('\n');
}

/** How full the model's context is, from the latest run that says: `12.3k / 128k tokens (10%)`. */
export function contextFill(runs: readonly RunState[]): { text: string; fraction: number } | undefined {
  for (let i = runs.length - 1; i >= 0; i -= 1) {
    const u = runs[i].usage;
    if (u.contextTokens !== undefined && u.contextWindow !== undefined && u.contextWindow > 0) {
      const fraction = Math.min(u.contextTokens / u.contextWindow, 1);
      return {
        text: `context ${formatTokens(u.contextTokens)} / ${formatTokens(u.contextWindow)} tokens (${Math.round(fraction * 100)}%)`,
        fraction,
      };
    }
  }
  return undefined;
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

/** "Edit before allowing": the proposed text opens editable; saving it allows the call with it. */
function renderEditFirst(card: ApprovalCard): string {
  return canEditFirst(card)
    ? ' <button type="button" class="link" data-action="edit-first" title="Open the proposed text to change it; saving it allows the call with your text">Edit before allowing</button>'
    : '';
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
<button type="button" class="link" data-action="open-diff">Open in diff editor</button>${renderEditFirst(card)}</div>
${renderDiff(card.diff)}`;
  }
  const args = typeof card.arguments === 'string' ? card.arguments : JSON.stringify(card.arguments, null, 2);
  return `<div class="label">arguments</div><pre class="arguments">${esc(args ?? '')}</pre>`;
}

/**
 * Why the daemon asks (its `reason`), and for a command that would leave the OS sandbox a warning
 * that, allowed, it runs with no sandbox at all.
 */
export function renderWhy(card: ApprovalCard): string {
  const reason = card.reason !== undefined
    ? `<div class="approval-reason">Asked because it ${esc(card.reason)}</div>\n`
    : '';
  const outside = card.outsideSandbox
    ? '<div class="approval-outside" role="note">⚠ Allowed, this command runs OUTSIDE the sandbox: it can write anywhere you can and reach the network.</div>\n'
    : '';
  return `${outside}${reason}`;
}

/**
 * Who asks: `harness9`, or a child agent with the task it works on, e.g. `explore (task: find
 * the tests)`; the task's description comes from the run shown that has the task call.
 */
export function askerOf(card: ApprovalCard, runs: readonly RunState[]): string {
  const parent = card.parentToolCallId;
  if (parent === undefined && card.agent === undefined) {
    return 'harness9';
  }
  const run = parent === undefined ? undefined : runs.find((r) => r.tools[parent] !== undefined);
  const task = run !== undefined && parent !== undefined ? taskOf(run, run.tools[parent]) : undefined;
  const agent = card.agent ?? task?.agent ?? 'a subagent';
  return task !== undefined && task.description !== '' ? `${agent} (task: ${task.description})` : agent;
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
export function renderApprovalCard(card: ApprovalCard, runs: readonly RunState[] = []): string {
  const key = esc(card.id);
  const reasonId = `reason-${key}`;
  const buttons = card.options
    .map((o) => `<button type="button" class="${BUTTON_CLASS[o.id] ?? 'secondary'}" data-decision="${esc(o.id)}">${esc(o.label)}</button>`)
    .join('');
  // A child's turn is its own, not the run's: not shown.
  const turn = card.turn !== undefined && card.parentToolCallId === undefined ? ` · turn ${card.turn}` : '';
  const cls = card.outsideSandbox ? 'approval-card outside-sandbox' : 'approval-card';
  const who = askerOf(card, runs);
  const verb = card.outsideSandbox ? 'asks to run outside the sandbox' : 'asks to run';
  const asks = `${who} ${verb}`;
  return `<section class="${cls}" data-approval="${key}" role="group" aria-label="${esc(`${asks}: ${card.title}`)}">
<div class="approval-head"><span class="approval-icon">${WAITING_ICON}</span> <span class="approval-who">${esc(who)}</span> ${verb} <strong class="approval-title">${esc(card.title)}</strong><span class="meta">${esc(turn)}</span></div>
${renderWhy(card)}${renderSubject(card)}
<div class="approval-actions">${buttons}</div>
<label class="reason-label" for="${reasonId}">Reason for rejecting (optional, sent to the agent; Ctrl+Enter rejects)</label>
<textarea id="${reasonId}" class="reason" rows="2" placeholder="e.g. do not delete files; run the tests instead"></textarea>
</section>`;
}
