/**
 * The run view's actions on what a run changed: opens a file a bash call changed (or an edit's
 * problem, at its line), and restores a checkpoint (`agent/restore`) after a modal confirmation,
 * showing the outcome in the view.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import type { Daemon } from './daemon';
import { dropCheckpointsAfter, filesAfterCheckpoint, restoreErrorText, restoreQuestion } from './restore';
import { applyRestore, type RestoreView } from './runState';
import type { RunAction, RunView } from './runView';

export class Restorer {
  constructor(
    private readonly daemon: Daemon,
    private readonly view: RunView,
    private readonly fallbackRoot: () => vscode.Uri | undefined,
  ) {
    view.onRunAction((a) => void this.act(a));
  }

  private async act(action: RunAction): Promise<void> {
    if (action.type === 'openFile') {
      await this.openFile(action.run, action.path, action.line, action.column);
    } else if (action.type === 'restore') {
      await this.restore(action.run, action.checkpointId);
    }
  }

  /** Opens a file of the run's workspace, at a 1-based line and column when given (a problem's place). */
  private async openFile(run: number, relative: string, line?: number, column?: number): Promise<void> {
    const root = this.view.shownRuns[run]?.workspaceRoot;
    const base = root !== undefined ? vscode.Uri.file(root) : this.fallbackRoot();
    if (!base || path.isAbsolute(relative)) {
      return;
    }
    const uri = vscode.Uri.joinPath(base, ...relative.split('/'));
    // Beside the run view, which stays in sight, rather than over it.
    const viewColumn = this.view.column === vscode.ViewColumn.One ? vscode.ViewColumn.Beside : vscode.ViewColumn.One;
    try {
      const at = line !== undefined ? new vscode.Position(line - 1, (column ?? 1) - 1) : undefined;
      const selection = at !== undefined ? new vscode.Range(at, at) : undefined;
      await vscode.window.showTextDocument(uri, { preview: true, viewColumn, selection });
    } catch (err) {
      void vscode.window.showErrorMessage(`harness9: cannot open ${relative}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async restore(run: number, checkpointId: string): Promise<void> {
    const state = this.view.shownRuns[run];
    const cp = state?.checkpoints?.find((c) => c.checkpointId === checkpointId);
    if (!state || !cp || state.sessionId === undefined) {
      return;
    }
    const files = filesAfterCheckpoint(this.view.shownRuns, checkpointId);
    const yes = 'Restore';
    const choice = await vscode.window.showWarningMessage(restoreQuestion(cp.turn, files), { modal: true }, yes);
    if (choice !== yes) {
      return;
    }
    const outcome = await this.request(state.sessionId, checkpointId);
    this.show(run, outcome);
    if (outcome.error !== undefined) {
      void vscode.window.showErrorMessage(`harness9: restore failed: ${outcome.error}`);
    }
  }

  private async request(sessionId: string, checkpointId: string): Promise<RestoreView> {
    const client = await this.daemon.ensureStarted();
    if (!client) {
      return { checkpointId, error: 'the daemon is not running' };
    }
    try {
      const r = await client.sendRequest<Record<string, unknown>>('agent/restore', { sessionId, checkpointId });
      const restored = Array.isArray(r?.restored) ? r.restored.filter((p): p is string => typeof p === 'string') : [];
      return { checkpointId, restored };
    } catch (err) {
      const code = err instanceof ResponseError ? err.code : undefined;
      const data: unknown = err instanceof ResponseError ? err.data : undefined;
      return { checkpointId, error: restoreErrorText(code, err instanceof Error ? err.message : String(err), data) };
    }
  }

  private show(run: number, outcome: RestoreView): void {
    // Read the runs again: the latest one may have moved on while the user read the question.
    const runs = outcome.error === undefined
      ? dropCheckpointsAfter(this.view.shownRuns, outcome.checkpointId)
      : [...this.view.shownRuns];
    runs.forEach((r, i) => {
      const next = i === run ? applyRestore(r, outcome) : r;
      if (next !== this.view.shownRuns[i]) {
        this.view.setRun(i, next);
      }
    });
  }
}
