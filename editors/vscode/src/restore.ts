/**
 * The words and numbers of "Restore to here": which files a restore may touch, the question
 * asked before it and the error shown after it. Pure (no `vscode`), for the unit tests.
 */
import type * as P from './protocol.generated';
import type { CheckpointView, RunState } from './runState';
import { received } from './wire';

/** The JSON-RPC code of a request the daemon refuses because the session is busy. */
export const BUSY_CODE = -32803;

/**
 * The files a restore to `checkpointId` may touch, as far as the chat can tell: those changed in
 * the checkpoints after it, over the session's runs shown (oldest first). Only for a daemon that
 * cannot say it itself (without `restorePreview`).
 */
export function filesAfterCheckpoint(runs: readonly RunState[], checkpointId: string): string[] {
  const all = runs.flatMap((r) => r.checkpoints ?? []);
  const i = all.findIndex((c) => c.checkpointId === checkpointId);
  return i < 0 ? [] : [...new Set(all.slice(i + 1).flatMap((c) => c.files))].sort();
}

/** The confirmation asked before a restore. */
export function restoreQuestion(turn: number, files: readonly string[]): string {
  if (files.length === 0) {
    return `Go back to the checkpoint of turn ${turn}? No file changed since then needs restoring; the conversation is cut back to that point.`;
  }
  const what = files.length === 1 ? '1 file' : `${files.length} files`;
  return `Restore ${what} to the checkpoint of turn ${turn}? The files go back to how they were then, and the conversation is cut back to that point.`;
}

/** The files of the question, one a line (the first `shown`, then how many more). */
export function restoreDetail(files: readonly string[], shown = 12): string {
  const more = files.length - shown;
  return [...files.slice(0, shown), ...(more > 0 ? [`and ${more} more`] : [])].join('\n');
}

/** The paths of an `agent/restore` answer (`restored`), a dry run's or a restore's. */
export function restoredPaths(answer: unknown): string[] {
  const r = received<P.RestoreResult>(answer).restored;
  return Array.isArray(r) ? r.filter((p): p is string => typeof p === 'string') : [];
}

/**
 * A refused or failed restore in words; a busy workspace says what to do. Only `busy` is a
 * busy refusal: the daemon's other -32803 kinds (`conflict`: something no checkpoint holds is
 * in the way; `internal`) say themselves what happened.
 */
export function restoreErrorText(code: number | undefined, message: string, data: unknown): string {
  const kind = data && typeof data === 'object' ? (data as Record<string, unknown>).kind : undefined;
  if (kind === 'busy' || (code === BUSY_CODE && kind === undefined)) {
    return 'the workspace is busy (a run is in progress in this or another session); wait for it to end or cancel it, then restore';
  }
  return message;
}

/**
 * The runs after a restore to `checkpointId`: the checkpoints newer than it are marked dropped,
 * as the daemon dropped them with the history it cut.
 */
export function dropCheckpointsAfter(runs: readonly RunState[], checkpointId: string): RunState[] {
  let found = false;
  const mark = (c: CheckpointView): CheckpointView => {
    const drop = found;
    found ||= c.checkpointId === checkpointId;
    return drop && !c.dropped ? { ...c, dropped: true } : c;
  };
  return runs.map((r) => (r.checkpoints ? { ...r, checkpoints: r.checkpoints.map(mark) } : r));
}
