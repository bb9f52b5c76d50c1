/**
 * Opens a file change of the agent (write_file, edit_file) in VS Code's diff editor: the file
 * before the change beside the file now. The before-text is rebuilt from the change's unified
 * diff and the current text, and served by a content provider. "Review changes" opens all the
 * files a run edited in the multi-diff editor, each beside the real file, where the user keeps
 * or reverts each change with the editor's own commands and saves.
 */
import * as vscode from 'vscode';
import { applyUnifiedDiff, invertDiff } from './approvals';
import { type ReviewedFile, reviewedFiles, textBeforeRun, unreviewableNote } from './review';
import type { FileChange } from './runState';
import type { RunAction, RunView } from './runView';
import { VirtualTexts } from './virtualTexts';

const SCHEME = 'harness9-before';

export class ChangeViewer implements vscode.Disposable {
  private readonly texts = new VirtualTexts(SCHEME);

  constructor(
    private readonly view: RunView,
    private readonly fallbackRoot: () => vscode.Uri | undefined,
  ) {
    view.onRunAction((a) => void this.act(a));
  }

  private async act(action: RunAction): Promise<void> {
    if (action.type === 'review') {
      await this.review(action.run);
      return;
    }
    if (action.type !== 'openChange') {
      return;
    }
    const run = this.view.shownRuns[action.run];
    const change = run?.tools[action.toolCallId]?.change;
    const root = run?.workspaceRoot !== undefined ? vscode.Uri.file(run.workspaceRoot) : this.fallbackRoot();
    if (change && root) {
      await this.open(root, change, action.toolCallId);
    }
  }

  /** The diff editor for one change; its diff as text when the file moved on since. */
  async open(root: vscode.Uri, change: FileChange, key: string): Promise<void> {
    const file = vscode.Uri.joinPath(root, ...change.path.split('/'));
    const after = await textOf(file);
    const before =
      change.diff === undefined || after === undefined || change.diffTruncated
        ? undefined
        : applyUnifiedDiff(after, invertDiff(change.diff));
    if (before === undefined) {
      const doc = await vscode.workspace.openTextDocument({ content: change.diff ?? '(no diff)', language: 'diff' });
      await vscode.window.showTextDocument(doc, { preview: true });
      return;
    }
    const left = this.texts.put(this.texts.uri(`/${change.path}`, key), before);
    await vscode.commands.executeCommand('vscode.diff', left, file, `${change.path}: the agent's change (harness9)`, {
      preview: true,
    });
  }

  /**
   * The multi-diff editor of the files the run edited: each file before the run (read-only)
   * beside the file itself (editable). Files that moved on since, and cannot be rebuilt, are named.
   */
  async review(index: number): Promise<void> {
    const run = this.view.shownRuns[index];
    const root = run?.workspaceRoot !== undefined ? vscode.Uri.file(run.workspaceRoot) : this.fallbackRoot();
    if (!run || !root) {
      return;
    }
    const resources: [vscode.Uri, vscode.Uri, vscode.Uri][] = [];
    const missed: string[] = [];
    for (const file of reviewedFiles(run)) {
      const uri = vscode.Uri.joinPath(root, ...file.path.split('/'));
      // The file's own path: the editor shows the pair as one file changed, not as a rename.
      const left = this.texts.uri(uri.path, `review-${run.runId ?? index}`);
      // Once rebuilt, a file's text before the run is kept: a second review after reverting
      // some hunks still compares with it.
      const before = this.texts.get(left) ?? (await this.rebuild(uri, file));
      if (before === undefined) {
        missed.push(file.path);
        continue;
      }
      this.texts.put(left, before);
      resources.push([uri, left, uri]);
    }
    if (missed.length > 0) {
      void vscode.window.showWarningMessage(`harness9: ${unreviewableNote(missed)}`);
    }
    if (resources.length > 0) {
      await vscode.commands.executeCommand('vscode.changes', `Changes of the run: ${clip(run.prompt)} (harness9)`, resources);
    }
  }

  /** The file's text before the run, from its text now and the run's diffs of it. */
  private async rebuild(uri: vscode.Uri, file: ReviewedFile): Promise<string | undefined> {
    const now = await textOf(uri);
    return now === undefined ? undefined : textBeforeRun(now, file);
  }

  dispose(): void {
    this.texts.dispose();
  }
}

/** A prompt cut to fit a tab's title. */
function clip(prompt: string): string {
  const line = prompt.replace(/\s+/g, ' ').trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

/** The file's text as the editor has it (open document or disk); undefined when unreadable. */
async function textOf(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return (await vscode.workspace.openTextDocument(uri)).getText();
  } catch {
    return undefined;
  }
}
