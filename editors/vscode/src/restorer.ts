/**
 * The run view's actions on what a run changed: opens a file a bash call changed (or an edit's
 * problem, at its line), and restores a checkpoint (`agent/restore`) after a modal confirmation,
 * showing the outcome in the view.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type LanguageClient, ResponseError } from 'vscode-languageclient/node';
import type { Daemon } from './daemon';
import type * as P from './protocol.generated';
import { request } from './requests';
import { dropCheckpointsAfter, filesAfterCheckpoint, restoreDetail, restoredPaths, restoreErrorText, restoreQuestion } from './restore';
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

  /**
   * Asks, then restores. The files asked about come from the daemon (a dry run) and are the
   * files the restore is then limited to: what the question counts is what is restored.
   */
  private async restore(run: number, checkpointId: string): Promise<void> {
    const state = this.view.shownRuns[run];
    const cp = state?.checkpoints?.find((c) => c.checkpointId === checkpointId);
    if (!state || !cp || state.sessionId === undefined) {
      return;
    }
    const client = await this.daemon.ensureStarted();
    if (!client) {
      this.fail(run, { checkpointId, error: 'the daemon is not running' });
      return;
    }
    const preview = this.daemon.previewsRestores();
    const params = { sessionId: state.sessionId, checkpointId };
    const listed = preview
      ? await this.send(client, { ...params, dryRun: true })
      : { checkpointId, restored: filesAfterCheckpoint(this.view.shownRuns, checkpointId) };
    if (listed.error !== undefined) {
      this.fail(run, listed);
      return;
    }
    const files = listed.restored ?? [];
    const yes = 'Restore';
    const choice = await vscode.window.showWarningMessage(restoreQuestion(cp.turn, files), { modal: true, detail: restoreDetail(files) }, yes);
    if (choice !== yes) {
      return;
    }
    const outcome = await this.send(client, preview ? { ...params, files: [...files] } : params);
    if (outcome.error !== undefined) {
      this.fail(run, outcome);
    } else {
      this.show(run, outcome);
    }
  }

  /** A restore (or its dry run) that failed: said under the checkpoint and in a message. */
  private fail(run: number, outcome: RestoreView): void {
    this.show(run, outcome);
    void vscode.window.showErrorMessage(`harness9: restore failed: ${outcome.error ?? ''}`);
  }

  /** An `agent/restore` request (a dry run or a restore) and what it came to. */
  private async send(client: LanguageClient, params: P.RestoreParams): Promise<RestoreView> {
    const checkpointId = params.checkpointId;
    try {
      return { checkpointId, restored: restoredPaths(await request(client, 'agent/restore', params)) };
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
