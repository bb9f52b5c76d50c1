/**
 * Background tasks as the Tasks view shows them: the `agent/tasks` answer read into entries,
 * each entry's line (status, files, +/−), which actions it offers, the notes after Apply, and
 * which `agent/progress` notifications are a task's. Pure (no `vscode`), for the unit tests.
 */
import type * as P from './protocol.generated';
import { isKind, type ProgressNotification, received, receivedList } from './wire';

/** One task as listed: its session, status, worktree and what it changed. */
export interface TaskEntry {
  readonly sessionId: string;
  /** `running`, the run's end status (`completed`, `error`, …), `applied` or `interrupted`. */
  readonly status: string;
  /** The workspace's place in the task's worktree, and the task's branch. */
  readonly worktree: { readonly path: string; readonly branch: string };
  /** The workspace the task applies to (absent from an older daemon). */
  readonly workspace?: string;
  /** What the task was asked to do, as the daemon keeps it (absent or empty from an older one). */
  readonly title?: string;
  /** Paths relative to the workspace root. */
  readonly changedFiles: readonly string[];
  readonly insertions: number;
  readonly deletions: number;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The tasks of an `agent/tasks` answer, oldest first; malformed entries are left out. */
export function tasksFrom(answer: unknown): TaskEntry[] {
  const entries: TaskEntry[] = [];
  for (const t of receivedList<P.TaskListed>(received<P.TasksResult>(answer).tasks)) {
    const tree = received<P.TaskWorktree>(t.worktree);
    if (typeof t.sessionId !== 'string' || typeof tree.path !== 'string') {
      continue;
    }
    entries.push({
      sessionId: t.sessionId,
      status: typeof t.status === 'string' ? t.status : 'unknown',
      worktree: { path: tree.path, branch: typeof tree.branch === 'string' ? tree.branch : '' },
      ...(typeof t.workspace === 'string' ? { workspace: t.workspace } : {}),
      ...(typeof t.title === 'string' && t.title !== '' ? { title: t.title } : {}),
      changedFiles: Array.isArray(t.changedFiles) ? t.changedFiles.filter((f): f is string => typeof f === 'string') : [],
      insertions: num(t.insertions),
      deletions: num(t.deletions),
    });
  }
  return entries;
}

/** `n file(s)`. */
export function filesCount(n: number): string {
  return `${n} file${n === 1 ? '' : 's'}`;
}

/**
 * The line beside a task's title: `2 files +3 −1 · completed` (the counts first: where the view
 * is narrow, the status is its icon too).
 */
export function taskDescription(t: TaskEntry): string {
  const changes = t.changedFiles.length === 0 ? 'no changes' : `${filesCount(t.changedFiles.length)} +${t.insertions} −${t.deletions}`;
  return `${changes} · ${t.status}`;
}

/** The path of a conflict's document: `src/a (conflicts).ts`, its extension kept for its language. */
export function conflictName(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  const cut = dot > slash + 1 ? dot : path.length;
  return `/${path.slice(0, cut)} (conflicts)${path.slice(cut)}`;
}

/** The note when a task's run ends: `background task "…": completed, 1 file +1 −1`. */
export function endedNote(title: string, t: TaskEntry): string {
  const changes = t.changedFiles.length === 0 ? 'no changes' : `${filesCount(t.changedFiles.length)} +${t.insertions} −${t.deletions}`;
  return `background task "${clipTitle(title, 40)}": ${t.status}, ${changes}`;
}

/** The codicon of a status (the tree item's icon). */
export function statusIcon(status: string): string {
  switch (status) {
    case 'running':
      return 'sync~spin';
    case 'completed':
      return 'pass';
    case 'applied':
      return 'check-all';
    case 'cancelled':
      return 'circle-slash';
    case 'error':
      return 'error';
    default:
      return 'warning'; // interrupted, max_turns, a status this build does not know
  }
}

/**
 * The tree item's context value, which the view's menus match: `task-running` (Stop, Review),
 * `task-applied` (Review, Discard), `task-done` (Review, Apply, Discard).
 */
export function taskContext(t: TaskEntry): 'task-running' | 'task-applied' | 'task-done' {
  return t.status === 'running' ? 'task-running' : t.status === 'applied' ? 'task-applied' : 'task-done';
}

/** A title cut to fit one line of the view. */
export function clipTitle(title: string, max = 32): string {
  const line = title.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The outcome of `agent/applyTask`, read. */
export interface ApplyOutcome {
  readonly applied: boolean;
  readonly files: readonly string[];
  readonly conflicts: readonly { readonly path: string; readonly text: string }[];
}

/** The `agent/applyTask` answer read: a conflict named without hunks gets an empty text. */
export function applyOutcomeFrom(answer: unknown): ApplyOutcome {
  const r = received<P.ApplyTaskResult>(answer);
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
  const hunks = receivedList<P.ConflictHunks>(r.hunks);
  const conflicts = strings(r.conflicts).map((path) => {
    const text = hunks.find((h) => h.path === path)?.text;
    return { path, text: typeof text === 'string' ? text : '' };
  });
  return { applied: r.applied === true, files: strings(r.files), conflicts };
}

/** The note after Apply: what was written, or which files conflict (nothing written). */
export function applyNote(title: string, outcome: ApplyOutcome): string {
  if (outcome.applied) {
    const files = outcome.files.length === 0 ? 'nothing to write' : `${filesCount(outcome.files.length)} (${outcome.files.join(', ')})`;
    return `applied the task "${clipTitle(title, 40)}": ${files}. Undo in an open file takes its change back.`;
  }
  const paths = outcome.conflicts.map((c) => c.path).join(', ');
  return `the task "${clipTitle(title, 40)}" was not applied: ${paths} ${outcome.conflicts.length === 1 ? 'conflicts' : 'conflict'} with your changes; nothing was written.`;
}

/**
 * Which `agent/progress` notifications are a background task's: a `run_started` with a
 * `worktree`, then everything of its run and session. Remembers the run in progress of each
 * task, for Stop.
 */
export class TaskRuns {
  private readonly sessions = new Set<string>();
  private readonly running = new Map<string, string>();

  /**
   * Whether `n` is a task's: `started` (a task's run began), `changed` (a call of it ended: its
   * files may have changed), `finished`, or `progress`; undefined when it is not a task's.
   */
  claim(n: ProgressNotification): 'started' | 'changed' | 'finished' | 'progress' | undefined {
    const runId = typeof n.runId === 'string' ? n.runId : undefined;
    const sessionId = typeof n.sessionId === 'string' ? n.sessionId : undefined;
    if (isKind(n, 'run_started') && n.worktree !== null && typeof n.worktree === 'object' && sessionId !== undefined) {
      this.sessions.add(sessionId);
      if (runId !== undefined) {
        this.running.set(sessionId, runId);
      }
      return 'started';
    }
    if (sessionId === undefined || !this.sessions.has(sessionId)) {
      return undefined;
    }
    if (isKind(n, 'run_finished')) {
      this.running.delete(sessionId);
      return 'finished';
    }
    return isKind(n, 'tool_completed') ? 'changed' : 'progress';
  }

  /** The run in progress of a task's session, if this window saw it start. */
  runOf(sessionId: string): string | undefined {
    return this.running.get(sessionId);
  }

  /** Whether `sessionId` is a task's this window saw run. */
  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }
}
