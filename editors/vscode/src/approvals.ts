/**
 * Approvals, the pure part: the `agent/requestApproval` params as the extension keeps them, the
 * answers, the words the run view uses for decisions, and a unified diff applied to a text (for
 * VS Code's diff editor). No `vscode` import: unit-tested, and bundled into the webview.
 */
import type * as P from './protocol.generated';
import { received, receivedList } from './wire';

/** The user's answer to a question. */
export type Decision = P.RequestApprovalResult['decision'];

export const DECISIONS: readonly Decision[] = ['allow_once', 'allow_session', 'reject'];

/** Labels of the three answers, as the protocol's `options` name them. */
export const DEFAULT_OPTIONS: readonly ApprovalOption[] = [
  { id: 'allow_once', label: 'Allow once' },
  { id: 'allow_session', label: 'Allow for this session' },
  { id: 'reject', label: 'Reject' },
];

/** An answer the daemon offers, with its label. */
export type ApprovalOption = Readonly<P.ApprovalOption>;

/** One open question, as the run view shows it (`id` is the extension's, not the wire's). */
export interface ApprovalCard {
  readonly id: string;
  readonly runId?: string;
  readonly turn?: number;
  readonly toolCallId?: string;
  readonly tool: string;
  readonly title: string;
  readonly arguments: unknown;
  readonly path?: string;
  readonly diff?: string;
  readonly options: readonly ApprovalOption[];
  /** Why the daemon asks (`reason`), e.g. `writes .git/config, which controls what git runs`. */
  readonly reason?: string;
  /** Allowed, the command runs outside the OS sandbox (an escalation, or a rerun it stopped). */
  readonly outsideSandbox?: boolean;
  /** The daemon writes the user's own text of an allowed file call (it announced `approvalContent`). */
  readonly editable?: boolean;
  /** Asked by a child agent: the agent's name and the id of the `task` call that runs it. */
  readonly agent?: string;
  readonly parentToolCallId?: string;
}

/**
 * How the protocol's reasons for leaving the sandbox begin: bash's `escalate`, and the offer to
 * run again outside a command that the sandbox stopped.
 */
const OUTSIDE_REASONS: readonly string[] = ['asks to run outside the OS sandbox', 'was stopped by the OS sandbox'];

/** True when allowing the question runs the command outside the OS sandbox. */
export function leavesSandbox(args: unknown, reason: string | undefined): boolean {
  const escalate = args !== null && typeof args === 'object' && (args as Record<string, unknown>).escalate === true;
  return escalate || (reason !== undefined && OUTSIDE_REASONS.some((r) => reason.startsWith(r)));
}

/**
 * The answer to `agent/requestApproval`; `content`: with an allowed write_file or edit_file, the
 * file's whole text as the user changed it ("Edit before allowing").
 */
export type ApprovalAnswer = P.RequestApprovalResult;

/** The file tools whose proposed text the user may change before allowing it. */
const EDITABLE_TOOLS: readonly string[] = ['write_file', 'edit_file'];

/**
 * Whether the question offers "Edit before allowing": a file call with its path and diff, asked
 * by a daemon that writes the user's text.
 */
export function canEditFirst(card: ApprovalCard): boolean {
  return card.editable === true && EDITABLE_TOOLS.includes(card.tool) && card.path !== undefined && card.diff !== undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function isDecision(v: unknown): v is Decision {
  return typeof v === 'string' && (DECISIONS as readonly string[]).includes(v);
}

/** The options the daemon offers, in its order, with its labels; ours when it sends none usable. */
function optionsFrom(v: unknown): ApprovalOption[] {
  const out = receivedList<P.ApprovalOption>(v)
    .filter((o) => isDecision(o.id))
    .map((o) => ({ id: o.id as Decision, label: str(o.label) ?? labelOf(o.id as Decision) }));
  return out.length > 0 ? out : [...DEFAULT_OPTIONS];
}

function labelOf(d: Decision): string {
  return DEFAULT_OPTIONS.find((o) => o.id === d)?.label ?? d;
}

/** Reads the request's params; loose on purpose (unknown fields ignored, missing ones guessed). */
export function approvalCardFrom(id: string, params: unknown): ApprovalCard {
  const p = received<P.RequestApprovalParams>(params);
  const tool = str(p.tool) ?? '?';
  return {
    id,
    runId: str(p.runId),
    turn: typeof p.turn === 'number' ? p.turn : undefined,
    toolCallId: str(p.toolCallId),
    tool,
    title: str(p.title) ?? tool,
    arguments: p.arguments,
    path: str(p.path),
    diff: str(p.diff),
    options: optionsFrom(p.options),
    reason: str(p.reason),
    ...(leavesSandbox(p.arguments, str(p.reason)) ? { outsideSandbox: true } : {}),
    ...(str(p.agent) !== undefined ? { agent: str(p.agent) } : {}),
    ...(str(p.parentToolCallId) !== undefined ? { parentToolCallId: str(p.parentToolCallId) } : {}),
  };
}

/** The answer for a decision; a reason only goes with a rejection, and only when there is one. */
export function answerFor(decision: Decision, reason?: string): ApprovalAnswer {
  const message = reason?.trim();
  return decision === 'reject' && message ? { decision, message } : { decision };
}

/** The command of a bash call, else undefined. */
export function commandOf(card: ApprovalCard): string | undefined {
  const args = card.arguments;
  if (args && typeof args === 'object') {
    return str((args as Record<string, unknown>).command);
  }
  return undefined;
}

/** Counts of added and removed lines of a unified diff (headers excluded). */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) {
      added += 1;
    } else if (line.startsWith('-') && !line.startsWith('---')) {
      removed += 1;
    }
  }
  return { added, removed };
}

/**
 * How an `approval_resolved` reads in the timeline: `decision` is the user's answer
 * (`allow_once`, `allow_session`, `reject`) or the policy's (`allow`, `deny`), `by` what decided.
 */
export function describeResolution(decision: string, by: string, rule?: string): { allowed: boolean; text: string } {
  const allowed = decision.startsWith('allow');
  if (by === 'user') {
    if (decision === 'allow_session') {
      return { allowed, text: 'allowed by you for this session' };
    }
    return { allowed, text: allowed ? 'allowed by you, once' : 'rejected by you' };
  }
  const verb = allowed ? 'allowed' : 'denied';
  switch (by) {
    case 'rule':
      return { allowed, text: rule ? `${verb} by the rule ${rule}` : `${verb} by a rule` };
    case 'session':
      return { allowed, text: `${verb}: you allowed it for this session` };
    case 'mode':
      return { allowed, text: `${verb} by the approvals mode` };
    default:
      return { allowed, text: by ? `${verb} (${by})` : verb };
  }
}

interface Hunk {
  readonly oldStart: number;
  readonly lines: readonly string[];
}

const HUNK_HEAD = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function hunksOf(diff: string): Hunk[] | undefined {
  const hunks: { oldStart: number; lines: string[] }[] = [];
  for (const line of diff.split('\n')) {
    const head = HUNK_HEAD.exec(line);
    if (head) {
      hunks.push({ oldStart: Number(head[1]), lines: [] });
    } else if (hunks.length > 0 && /^[ +\-\\]/.test(line)) {
      hunks[hunks.length - 1].lines.push(line);
    } else if (hunks.length > 0 && line.startsWith('[diff cut')) {
      return undefined; // a cut diff cannot be applied
    }
  }
  return hunks;
}

/** Splits text into lines that keep their line ends, as the daemon's differ does. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * The text after applying a unified diff (as the daemon writes them) to `before`; undefined when
 * the diff does not fit the text (it changed since) or was cut.
 */
export function applyUnifiedDiff(before: string, diff: string): string | undefined {
  const hunks = hunksOf(diff);
  if (hunks === undefined) {
    return undefined;
  }
  const old = linesOf(before);
  const out: string[] = [];
  let next = 0; // index in `old` of the first line not yet copied
  for (const hunk of hunks) {
    // Hunks name their first line 1-based; one that adds to an empty file says 0.
    const start = Math.max(hunk.oldStart - 1, 0);
    if (start < next) {
      return undefined;
    }
    out.push(...old.slice(next, start));
    next = start;
    let previous = '';
    for (const line of hunk.lines) {
      const body = line.slice(1);
      if (line.startsWith('\\')) {
        // "\ No newline at end of file": an added line before it has no line end (a removed
        // or kept one was copied from the text as it is).
        const last = out.length - 1;
        if (previous === '+' && last >= 0) {
          out[last] = out[last].replace(/\n$/, '');
        }
        continue;
      }
      previous = line[0];
      if (line.startsWith('+')) {
        out.push(`${body}\n`);
        continue;
      }
      if (old[next]?.replace(/\n$/, '') !== body) {
        return undefined;
      }
      if (line.startsWith(' ')) {
        out.push(old[next]);
      }
      next += 1;
    }
  }
  out.push(...old.slice(next));
  return out.join('');
}

/**
 * The unified diff that undoes `diff`: added and removed lines swap, and so do the hunk heads'
 * ranges. Applied to the text after the change, it gives the text before.
 */
export function invertDiff(diff: string): string {
  return diff
    .split('\n')
    .map((line) => {
      const head = HUNK_HEAD.exec(line);
      if (head) {
        const range = (start: string, count: string | undefined): string => (count === undefined ? start : `${start},${count}`);
        return `@@ -${range(head[3], head[4])} +${range(head[1], head[2])} @@${line.slice(head[0].length)}`;
      }
      if (line.startsWith('+++') || line.startsWith('---')) {
        return line;
      }
      if (line.startsWith('+')) {
        return `-${line.slice(1)}`;
      }
      return line.startsWith('-') ? `+${line.slice(1)}` : line;
    })
    .join('\n');
}
