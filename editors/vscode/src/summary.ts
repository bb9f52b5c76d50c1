/**
 * What a tool call did, in English, for people: "edited pager.py +1 −1", "ran `npm test` · exit 1 ·
 * 291 ms". Built from the structured fields (arguments, path, diff counts, exitCode, duration),
 * never from the model-facing output text. Pure: used by the renderer and by unit tests.
 */
import type { ToolItem, ToolStatus } from './runState';

/** A call's summary: a verb, what it acted on (shown as code) and short facts. */
export interface ToolSummary {
  readonly verb: string;
  readonly subject: string;
  /** e.g. `+1 −1`, shown right after the subject. */
  readonly counts?: { readonly added: number; readonly removed: number };
  readonly facts: readonly string[];
}

/** `291 ms`, `2.4 s`, `3 min 05 s`; empty when unknown. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) {
    return '';
  }
  if (ms < 1000) {
    return `${Math.round(ms)} ms`;
  }
  if (ms < 60_000) {
    return `${(ms / 1000).toFixed(1)} s`;
  }
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** `n thing` or `n things`. */
export function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** How a finished command ended, from its `exitCode` or `signal`: `exit 1`, `killed (SIGKILL)`. */
export function exitOf(t: ToolItem): string | undefined {
  if (t.status !== 'ok') {
    return undefined;
  }
  if (t.exitCode !== undefined) {
    return `exit ${t.exitCode}`;
  }
  return t.signal !== undefined ? `killed (${t.signal})` : undefined;
}

/**
 * True for a call that completed but whose command failed: it exited non-zero (`exitCode`) or a
 * signal killed it. The model got a normal result; the user sees a failed row.
 */
export function commandFailed(t: ToolItem): boolean {
  return t.status === 'ok' && ((t.exitCode !== undefined && t.exitCode !== 0) || t.signal !== undefined);
}

/** The status a call's row shows: its own, or `failed` for a command that failed (`commandFailed`). */
export function shownStatus(t: ToolItem): ToolStatus {
  return commandFailed(t) ? 'failed' : t.status;
}

function argsOf(t: ToolItem): Readonly<Record<string, unknown>> {
  return t.arguments && typeof t.arguments === 'object' ? (t.arguments as Record<string, unknown>) : {};
}

function oneLine(s: string, max = 80): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Characters of a refusal's message shown in its row (the rest is in the row's "why"). */
const MESSAGE_CHARS = 200;

/** Words for the ways a call fails or is refused. */
const REASON_WORDS: Readonly<Record<string, string>> = {
  timeout: 'timed out',
  cancelled: 'cancelled',
  unknown_tool: 'no such tool',
  bad_arguments: 'bad arguments',
  error: 'failed',
  rejected: 'rejected',
  denied: 'denied',
};

const VERBS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  bash: { waiting: 'wants to run', running: 'running', ok: 'ran', failed: 'ran', refused: 'did not run' },
  read_file: { waiting: 'wants to read', running: 'reading', ok: 'read', failed: 'could not read', refused: 'did not read' },
  write_file: { waiting: 'wants to write', running: 'writing', ok: 'wrote', failed: 'could not write', refused: 'did not write' },
  edit_file: { waiting: 'wants to edit', running: 'editing', ok: 'edited', failed: 'could not edit', refused: 'did not edit' },
  // The editor's language servers, asked about a symbol (its name is the subject).
  find_definition: { waiting: 'wants to find the definition of', running: 'finding the definition of', ok: 'found the definition of', failed: 'could not find the definition of', refused: 'did not look up' },
  find_references: { waiting: 'wants to find the references to', running: 'finding the references to', ok: 'found the references to', failed: 'could not find the references to', refused: 'did not look up' },
  hover: { waiting: 'wants to look up', running: 'looking up', ok: 'looked up', failed: 'could not look up', refused: 'did not look up' },
  rename_symbol: { waiting: 'wants to rename', running: 'renaming', ok: 'renamed', failed: 'could not rename', refused: 'did not rename' },
  workspace_symbols: { waiting: 'wants to search the symbols for', running: 'searching the symbols for', ok: 'searched the symbols for', failed: 'could not search the symbols for', refused: 'did not search the symbols for' },
  diagnostics: { waiting: 'wants to check the problems of', running: 'checking the problems of', ok: 'checked the problems of', failed: 'could not check the problems of', refused: 'did not check the problems of' },
};

/**
 * What a call acts on, and where, when it is not its path or command: a symbol (with its place,
 * `main.ts:3`), a rename (`greet → welcome`), a search's query, the workspace's problems.
 */
function subjectOf(t: ToolItem, args: Readonly<Record<string, unknown>>): { subject: string; where?: string } | undefined {
  const where = typeof args.path === 'string' ? `${args.path}${typeof args.line === 'number' ? `:${args.line}` : ''}` : undefined;
  switch (t.name) {
    case 'find_definition':
    case 'find_references':
    case 'hover':
      return typeof args.symbol === 'string' ? { subject: args.symbol, where } : undefined;
    case 'rename_symbol':
      return typeof args.symbol === 'string' && typeof args.newName === 'string' ? { subject: `${args.symbol} → ${args.newName}`, where } : undefined;
    case 'workspace_symbols':
      return typeof args.query === 'string' ? { subject: args.query } : undefined;
    case 'diagnostics':
      return { subject: typeof args.path === 'string' ? args.path : 'the workspace' };
    default:
      return undefined;
  }
}

/** The summary of a call; `now` (ms since the epoch) gives a running call its elapsed time. */
export function summarize(t: ToolItem, now?: number): ToolSummary {
  const args = argsOf(t);
  const known = VERBS[t.name];
  const special = subjectOf(t, args);
  const subjectText = special?.subject ?? (t.kind === 'execute' ? args.command : t.change?.path ?? args.path);
  const subject = typeof subjectText === 'string' ? oneLine(subjectText) : oneLine(JSON.stringify(t.arguments ?? ''));
  const verb = t.status === 'failed' && t.reason === 'cancelled' && known
    ? t.neverRan ? known.refused : 'stopped'
    : known?.[t.status] ?? 'called';
  const facts: string[] = special?.where !== undefined ? [special.where] : [];
  const exit = exitOf(t);
  if (exit !== undefined) {
    facts.push(exit);
  }
  if (t.status === 'failed' || t.status === 'refused') {
    // Why, once: `rejected: not now`, `denied: deny rule bash(rm *)`, or the reason alone.
    const why = REASON_WORDS[t.reason ?? ''] ?? t.reason ?? 'failed';
    const message = t.message !== undefined ? oneLine(t.message, MESSAGE_CHARS) : '';
    facts.push(message !== '' ? `${why}: ${message}` : why);
  }
  if (t.status === 'waiting') {
    facts.push('waiting for approval');
  } else if (t.status === 'running') {
    facts.push(now !== undefined && t.startedAt !== undefined ? formatDuration(now - t.startedAt) : 'running');
  } else if (t.status !== 'refused' && t.durationMs !== undefined) {
    facts.push(formatDuration(t.durationMs));
  }
  if (t.truncated) {
    facts.push(`output cut, ${t.bytes ?? '?'} bytes`);
  }
  const c = t.change;
  const counts = c?.added !== undefined && c.removed !== undefined ? { added: c.added, removed: c.removed } : undefined;
  return { verb, subject: known ? subject : oneLine(`${t.name} ${subject}`), counts, facts: facts.filter((f) => f !== '') };
}

/** The summary as one plain line, e.g. `edited pager.py +1 −1 · 12 ms`. */
export function summaryLine(t: ToolItem, now?: number): string {
  const s = summarize(t, now);
  const counts = s.counts ? ` +${s.counts.added} −${s.counts.removed}` : '';
  return [`${s.verb} ${s.subject}${counts}`, ...s.facts].join(' · ');
}
