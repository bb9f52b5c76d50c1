/**
 * What the user does with background tasks: "Run in Background" (`agent/run` with isolation
 * `worktree`, a new session in a git worktree of its own), and on a task of the Tasks view
 * "Review" (the multi-diff editor: each changed file of the workspace beside the task's),
 * "Apply" (`agent/applyTask`: merged with the user's changes, open buffers as one undo step
 * each; a conflict opens its hunks and nothing is written), "Discard" (`agent/discardTask`) and
 * "Stop" (`agent/cancel`).
 */
import * as vscode from 'vscode';
import type { ContextItem } from './chips';
import type { Daemon } from './daemon';
import { settleEditedDocument } from './editedDocuments';
import type * as P from './protocol.generated';
import { request } from './requests';
import { activeFolder } from './runner';
import { applyNote, applyOutcomeFrom, clipTitle, conflictName, endedNote, filesCount, type TaskEntry } from './taskList';
import type { TaskNode, TaskView } from './taskView';
import { received } from './wire';
import { VirtualTexts } from './virtualTexts';

const SCHEME = 'harness9-task';
let tokenCounter = 0;

export class TaskActions implements vscode.Disposable {
  /** Texts of the virtual documents: a conflict's hunks, the empty side of a new or removed file. */
  private readonly texts = new VirtualTexts(SCHEME);

  constructor(
    private readonly daemon: Daemon,
    private readonly view: TaskView,
    /** Params for a new session (the model chosen in the chat). */
    private readonly newSessionParams: () => P.RunParams | undefined,
  ) {
  }

  /**
   * "Run in Background": `prompt` (else one asked for) as a task in a worktree of the active
   * folder; the Tasks view lists it while it runs. Resolves when the task's run ends.
   */
  async run(prompt?: string, context: readonly ContextItem[] = []): Promise<void> {
    const folder = activeFolder();
    if (!folder) {
      void vscode.window.showErrorMessage('harness9: open a folder first; a background task works on a copy of a workspace folder.');
      return;
    }
    const client = await this.daemon.ensureStarted();
    if (!client) {
      return;
    }
    if (!this.daemon.supports('agent/tasks')) {
      void vscode.window.showInformationMessage('harness9: this daemon has no background tasks (no agent/tasks); update harness9.');
      return;
    }
    const text = prompt ?? (await askPrompt());
    if (text === undefined) {
      return;
    }
    this.view.expect(text);
    const params: P.RunParams = {
      ...this.newSessionParams(),
      workspaceFolder: folder.uri.toString(),
      prompt: text,
      isolation: 'worktree',
      // Our own token: the daemon shows no progress toast for a run that goes on in the background.
      workDoneToken: `harness9-task-${process.pid}-${++tokenCounter}`,
      ...(context.length > 0 ? { context: [...context] } : {}),
    };
    let sessionId: unknown;
    try {
      sessionId = received<P.RunResult>(await request(client, 'agent/run', params)).sessionId;
    } catch (err) {
      this.view.unexpect(text);
      void vscode.window.showErrorMessage(`harness9: the background task did not start: ${messageOf(err)}`);
      return;
    } finally {
      await this.view.refresh();
    }
    if (typeof sessionId === 'string') {
      this.view.setTitle(sessionId, text);
      void this.tellEnded(sessionId, text);
    }
  }

  /** A note that the task ended, with what it changed and its next steps. */
  private async tellEnded(sessionId: string, title: string): Promise<void> {
    const task = this.view.shown.find((t) => t.sessionId === sessionId);
    if (!task) {
      return;
    }
    const actions = task.changedFiles.length > 0 ? ['Review', 'Apply'] : [];
    const choice = await vscode.window.showInformationMessage(`harness9: ${endedNote(title, task)}`, ...actions);
    const node: TaskNode = { kind: 'task', task };
    if (choice === 'Review') {
      await this.review(node);
    } else if (choice === 'Apply') {
      await this.apply(node);
    }
  }

  /** "Review": every changed file, the workspace's (left) beside the task's (right, editable). */
  async review(node?: TaskNode): Promise<void> {
    const task = node?.task;
    if (!task) {
      return;
    }
    if (task.changedFiles.length === 0) {
      void vscode.window.showInformationMessage('harness9: the task changed no file.');
      return;
    }
    const resources: [vscode.Uri, vscode.Uri, vscode.Uri][] = [];
    for (const path of task.changedFiles) {
      const [mine, theirs] = await this.sides(task, path);
      resources.push([mine, mine, theirs]);
    }
    const title = `Task: ${clipTitle(this.view.title(task.sessionId), 40)} (harness9)`;
    await vscode.commands.executeCommand('vscode.changes', title, resources);
  }

  /** A changed file's row: its diff, the workspace's beside the task's. */
  async openFile(node?: TaskNode): Promise<void> {
    if (node?.kind !== 'file') {
      return;
    }
    const [mine, theirs] = await this.sides(node.task, node.path);
    await vscode.commands.executeCommand('vscode.diff', mine, theirs, `${node.path}: workspace ↔ task (harness9)`, { preview: true });
  }

  /** The workspace's file and the task's; an empty document stands for one that does not exist. */
  private async sides(task: TaskEntry, path: string): Promise<[vscode.Uri, vscode.Uri]> {
    const parts = path.split('/');
    const mine = vscode.Uri.joinPath(vscode.Uri.file(task.workspace ?? activeFolder()?.uri.fsPath ?? '/'), ...parts);
    const theirs = vscode.Uri.joinPath(vscode.Uri.file(task.worktree.path), ...parts);
    return [
      (await exists(mine)) ? mine : this.virtual(mine.path, 'none', ''),
      (await exists(theirs)) ? theirs : this.virtual(mine.path, `removed-${task.sessionId}`, ''),
    ];
  }

  /** A read-only document of `text` at `path` (its name gives its language). */
  private virtual(path: string, query: string, text: string): vscode.Uri {
    return this.texts.put(this.texts.uri(path, query), text);
  }

  /**
   * "Apply": the task's changes into the workspace, merged with the user's. Open buffers get
   * them as one undo step each (and are saved when their text is the file's); on a conflict
   * nothing is written and each conflicting file's hunks open.
   */
  async apply(node?: TaskNode): Promise<void> {
    // The task as listed now (the node may be older: a message's button after the row's Apply).
    const task = this.view.shown.find((t) => t.sessionId === node?.task.sessionId) ?? node?.task;
    if (task?.status === 'applied') {
      void vscode.window.showInformationMessage('harness9: that task is applied already.');
      return;
    }
    const client = task ? await this.daemon.ensureStarted() : undefined;
    if (!task || !client) {
      return;
    }
    const title = this.view.title(task.sessionId);
    let answer: unknown;
    try {
      answer = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'harness9: applying the task' },
        () => request(client, 'agent/applyTask', { sessionId: task.sessionId }),
      );
    } catch (err) {
      void vscode.window.showErrorMessage(`harness9: ${messageOf(err)}`);
      return;
    } finally {
      void this.view.refresh();
    }
    const outcome = applyOutcomeFrom(answer);
    if (outcome.applied) {
      const root = vscode.Uri.file(task.workspace ?? activeFolder()?.uri.fsPath ?? '/');
      await Promise.all(outcome.files.map((f) => settleEditedDocument(root, f).catch(() => false)));
      void vscode.window.showInformationMessage(`harness9: ${applyNote(title, outcome)}`);
      return;
    }
    for (const conflict of outcome.conflicts) {
      const uri = this.virtual(conflictName(conflict.path), `conflict-${task.sessionId}`, conflict.text || '(the file cannot be merged)');
      await vscode.window.showTextDocument(uri, { preview: false, preserveFocus: true });
    }
    const choice = await vscode.window.showWarningMessage(`harness9: ${applyNote(title, outcome)}`, 'Review');
    if (choice === 'Review') {
      await this.review({ kind: 'task', task });
    }
  }

  /** "Discard": after a confirmation, the task's worktree and branch are removed. */
  async discard(node?: TaskNode): Promise<void> {
    const task = node?.task;
    if (!task) {
      return;
    }
    const changes = task.status === 'applied' || task.changedFiles.length === 0 ? '' : ` Its changes (${filesCount(task.changedFiles.length)}) are lost.`;
    const choice = await vscode.window.showWarningMessage(
      `Discard the task "${clipTitle(this.view.title(task.sessionId), 40)}"?`,
      { modal: true, detail: `Its worktree and its branch ${task.worktree.branch} are removed.${changes}` },
      'Discard',
    );
    const client = choice === 'Discard' ? await this.daemon.ensureStarted() : undefined;
    if (!client) {
      return;
    }
    try {
      await request(client, 'agent/discardTask', { sessionId: task.sessionId });
    } catch (err) {
      void vscode.window.showErrorMessage(`harness9: ${messageOf(err)}`);
    }
    await this.view.refresh();
  }

  /** "Stop": cancels the task's run in progress. */
  async stop(node?: TaskNode): Promise<void> {
    const runId = node ? this.view.runs.runOf(node.task.sessionId) : undefined;
    const client = runId !== undefined ? await this.daemon.ensureStarted() : undefined;
    if (runId === undefined || !client) {
      void vscode.window.showInformationMessage('harness9: this window did not start that run; it cannot stop it.');
      return;
    }
    await request(client, 'agent/cancel', { runId }).catch((err: unknown) => {
      void vscode.window.showErrorMessage(`harness9: ${messageOf(err)}`);
    });
  }

  dispose(): void {
    this.texts.dispose();
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  return vscode.workspace.fs.stat(uri).then(() => true, () => false);
}

async function askPrompt(): Promise<string | undefined> {
  const prompt = await vscode.window.showInputBox({
    title: 'harness9: Run in Background',
    prompt: 'What should the agent do, in a git worktree of its own? (Apply brings its changes in.)',
    placeHolder: 'e.g. add a test for the parser and make it pass',
    ignoreFocusOut: true,
  });
  return prompt?.trim() || undefined;
}
