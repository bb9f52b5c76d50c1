/**
 * Renders run states as HTML for the run view. Pure (no `vscode`, no DOM): the webview calls it
 * on each state it receives, and unit tests call it directly.
 */
import type { RunState, ToolItem, TurnView } from './runState';

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

const TOOL_ICON: Readonly<Record<string, string>> = { running: '⟳', ok: '✓', failed: '✗' };

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

function renderTool(runKey: string, t: ToolItem): string {
  const detail = [
    t.status === 'running' ? 'running' : formatDuration(t.durationMs),
    t.status === 'failed' ? t.reason ?? 'error' : '',
    t.truncated ? `truncated, ${t.bytes ?? '?'} bytes` : '',
  ].filter((s) => s !== '');
  const args = typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments, null, 2);
  return `<details class="tool ${t.status}" data-key="${esc(`${runKey}/${t.id}`)}">
<summary><span class="icon">${TOOL_ICON[t.status]}</span> <span class="tool-name">${esc(t.name)}</span> <code class="args">${esc(argSummary(t.arguments))}</code> <span class="meta">${esc(detail.join(' · '))}</span></summary>
<div class="label">arguments</div><pre class="arguments">${esc(args ?? '')}</pre>
${t.output !== undefined ? `<div class="label">output</div><pre class="output">${esc(t.output)}</pre>` : ''}
</details>`;
}

function renderTurn(s: RunState, runKey: string, t: TurnView): string {
  const parts = [`<div class="turn-head">turn ${t.turn}</div>`];
  if (t.thinking) {
    parts.push(`<div class="thinking"><span class="label">thinking</span> ${esc(t.thinking)}</div>`);
  }
  if (t.text) {
    parts.push(`<div class="assistant${t.complete ? '' : ' streaming'}">${esc(t.text)}</div>`);
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
  return `${answer}${error}<div class="usage">${esc(facts.join(' · '))}</div>`;
}

/** The HTML of one run: prompt, turns with their tool items, final answer, status and usage. */
export function renderRun(s: RunState, index: number): string {
  const runKey = s.runId ?? `run-${index}`;
  const where = [s.provider, s.model].filter((x) => x).join(' · ');
  return `<article class="run status-${s.status}" data-run="${esc(runKey)}">
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
