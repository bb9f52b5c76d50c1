/**
 * "Review changes": which files a run changed with write_file and edit_file, and each file's
 * text before the run, rebuilt by undoing the run's diffs of it, newest first, on the text now.
 * Pure (no `vscode`), for the unit tests.
 */
import { applyUnifiedDiff, invertDiff } from './approvals';
import type * as P from './protocol.generated';
import { allCallIds, type FileChange, isFinished, type RunState } from './runState';
import { received, receivedList } from './wire';

/** One file the run changed, with its changes in the order they were made. */
export interface ReviewedFile {
  readonly path: string;
  readonly changes: readonly FileChange[];
}

/** The files the run's successful write_file and edit_file calls changed, in the order first changed. */
export function reviewedFiles(s: RunState): ReviewedFile[] {
  const byPath = new Map<string, FileChange[]>();
  for (const id of allCallIds(s)) {
    const change = s.tools[id]?.status === 'ok' ? s.tools[id].change : undefined;
    if (change !== undefined) {
      byPath.set(change.path, [...(byPath.get(change.path) ?? []), change]);
    }
  }
  return [...byPath].map(([path, changes]) => ({ path, changes }));
}

/** Whether the run offers "Review changes": it ended and changed files. */
export function canReview(s: RunState): boolean {
  return isFinished(s) && s.command === undefined && reviewedFiles(s).length > 0;
}

/**
 * The file's text before the run, from its text now; undefined when a diff was cut, or does not
 * fit because the file changed since (the user or a command edited it).
 */
export function textBeforeRun(now: string, file: ReviewedFile): string | undefined {
  let text: string | undefined = now;
  for (const change of [...file.changes].reverse()) {
    if (text === undefined || change.diff === undefined || change.diffTruncated) {
      return undefined;
    }
    text = applyUnifiedDiff(text, invertDiff(change.diff));
  }
  return text;
}

/** The note shown when some files cannot be reviewed, naming them. */
export function unreviewableNote(paths: readonly string[]): string {
  const list = paths.join(', ');
  return paths.length === 1
    ? `${list} changed since the run (or its diff was cut): open it from its row instead`
    : `${list} changed since the run (or their diffs were cut): open them from their rows instead`;
}

/** A file as it was at a checkpoint (`agent/changedSince`): its text, or why there is none. */
export type FileThen = Readonly<P.FileThen>;

/** The files of an `agent/changedSince` answer. */
export function filesThenFrom(answer: unknown): FileThen[] {
  return receivedList<P.FileThen>(received<P.ChangedSinceResult>(answer).files)
    .filter((f) => typeof f.path === 'string')
    .map((f) => ({
      path: f.path as string,
      existed: f.existed === true,
      ...(typeof f.text === 'string' ? { text: f.text } : {}),
      ...(typeof f.skipped === 'string' ? { skipped: f.skipped } : {}),
    }));
}

/** The text a file had then, for the diff's left side ('' when it did not exist); undefined when it cannot be shown. */
export function textThen(file: FileThen): string | undefined {
  return file.existed ? file.text : '';
}

/** The note naming the files that changed but cannot be shown side by side, and why. */
export function notShownNote(files: readonly FileThen[]): string {
  return `changed but not shown: ${files.map((f) => `${f.path} (${f.skipped ?? 'unreadable'})`).join(', ')}`;
}
