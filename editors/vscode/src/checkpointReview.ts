/**
 * "⇄ Changes since" on a checkpoint: the multi-diff editor of the files the chat's session
 * changed since that checkpoint, as the daemon names them (`agent/changedSince`: the files a
 * restore would put back), each as it was then (read-only) beside the file now, where the user
 * keeps or reverts each change with the editor's own commands. Where "Review changes" covers
 * one run, this covers every run since the point chosen.
 */
import * as vscode from 'vscode';
import type { Daemon } from './daemon';
import { request } from './requests';
import { filesThenFrom, notShownNote, textThen } from './review';
import type { RunAction, RunView } from './runView';
import { VirtualTexts } from './virtualTexts';

const SCHEME = 'harness9-then';

export class CheckpointReviewer implements vscode.Disposable {
  private readonly texts = new VirtualTexts(SCHEME);

  constructor(
    private readonly daemon: Daemon,
    private readonly view: RunView,
    private readonly fallbackRoot: () => vscode.Uri | undefined,
  ) {
    view.onRunAction((a: RunAction) => {
      if (a.type === 'reviewSince') {
        void this.review(a.run, a.checkpointId);
      }
    });
  }

  /** Opens the changes since `checkpointId` of the run shown at `index`. */
  async review(index: number, checkpointId: string): Promise<void> {
    const run = this.view.shownRuns[index];
    const turn = run?.checkpoints?.find((c) => c.checkpointId === checkpointId)?.turn;
    const root = run?.workspaceRoot !== undefined ? vscode.Uri.file(run.workspaceRoot) : this.fallbackRoot();
    const client = await this.daemon.ensureStarted();
    if (!run || run.sessionId === undefined || !root || !client) {
      return;
    }
    if (!this.daemon.supports('agent/changedSince')) {
      void vscode.window.showInformationMessage('harness9: this daemon cannot show the changes since a checkpoint (it has no agent/changedSince); update harness9.');
      return;
    }
    let answer: unknown;
    try {
      answer = await request(client, 'agent/changedSince', { sessionId: run.sessionId, checkpointId });
    } catch (err) {
      void vscode.window.showErrorMessage(`harness9: cannot show the changes: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const files = filesThenFrom(answer);
    const shown = files.filter((f) => textThen(f) !== undefined);
    if (shown.length < files.length) {
      void vscode.window.showWarningMessage(`harness9: ${notShownNote(files.filter((f) => textThen(f) === undefined))}`);
    }
    if (files.length === 0) {
      void vscode.window.showInformationMessage('harness9: none of the files this chat changed differs from that checkpoint.');
      return;
    }
    const resources: [vscode.Uri, vscode.Uri, vscode.Uri][] = [];
    for (const file of shown) {
      const uri = vscode.Uri.joinPath(root, ...file.path.split('/'));
      // The file's own path on both sides: the editor shows one file changed, not a rename.
      const then = this.texts.put(this.texts.uri(uri.path, checkpointId), textThen(file) ?? '');
      const now = (await exists(uri)) ? uri : this.empty(uri);
      resources.push([uri, then, now]);
    }
    if (resources.length > 0) {
      const since = turn !== undefined ? `turn ${turn}` : 'the checkpoint';
      await vscode.commands.executeCommand('vscode.changes', `Changes since ${since} (harness9)`, resources);
    }
  }

  /** The right side of a file deleted since: an empty document. */
  private empty(uri: vscode.Uri): vscode.Uri {
    return this.texts.put(this.texts.uri(uri.path, 'deleted'), '');
  }

  dispose(): void {
    this.texts.dispose();
  }
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  return vscode.workspace.fs.stat(uri).then(() => true, () => false);
}
