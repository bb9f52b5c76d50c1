/**
 * The `agent/run` request of a prompt, and the notifications of runs not known yet. Pure (no
 * `vscode`), for the unit tests.
 */
import type { ContextItem } from './chips';
import type * as P from './protocol.generated';
import type { ProgressNotification } from './wire';

/** What a run asks beyond its prompt: queued, plan only, or carrying out the plan. */
export interface RunAsk {
  readonly plan?: boolean;
  readonly executePlan?: boolean;
}

/**
 * The `agent/run` params: the prompt (none: the daemon's own words for carrying out the plan),
 * the session it continues (else `fresh`, a new session's params), the context attached.
 */
export function runParams(
  run: { readonly prompt: string; readonly folder: string; readonly sessionId?: string },
  context: readonly ContextItem[],
  ask: RunAsk,
  workDoneToken: string,
  fresh: () => P.RunParams | undefined,
): P.RunParams {
  return {
    workspaceFolder: run.folder,
    workDoneToken,
    ...(run.prompt !== '' ? { prompt: run.prompt } : {}),
    ...(run.sessionId !== undefined ? { sessionId: run.sessionId } : fresh()),
    ...(context.length > 0 ? { context: [...context] } : {}),
    ...(ask.plan ? { plan: true } : {}),
    ...(ask.executePlan ? { executePlan: true } : {}),
  };
}

/** Notifications of runs not known yet (a steer's next run, before its answer), kept a moment. */
export class Orphans {
  private readonly kept = new Map<string, ProgressNotification[]>();

  constructor(
    private readonly runs = 8,
    private readonly perRun = 2000,
  ) {}

  /** Keeps `n` of run `runId` (the oldest runs' go first, and a run keeps its first `perRun`). */
  keep(runId: string | undefined, n: ProgressNotification): void {
    if (runId === undefined) {
      return;
    }
    const kept = this.kept.get(runId) ?? [];
    if (kept.length === 0) {
      this.kept.set(runId, kept);
      while (this.kept.size > this.runs) {
        this.kept.delete(this.kept.keys().next().value as string);
      }
    }
    if (kept.length < this.perRun) {
      kept.push(n);
    }
  }

  /** The notifications kept of run `runId`, oldest first; they are forgotten here. */
  take(runId: string): ProgressNotification[] {
    const kept = this.kept.get(runId) ?? [];
    this.kept.delete(runId);
    return kept;
  }
}
