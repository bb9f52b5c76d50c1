/**
 * The Tasks view: the background tasks of the workspace (`agent/tasks`), each with its status,
 * its changed files and their +/− counts, under the chat in harness9's side bar. It shows once
 * the daemon lists a task, and is read again when a task's run starts, changes a file or ends
 * (its `agent/progress`), after Apply and Discard, and on Refresh.
 */
import * as vscode from 'vscode';
import type { Daemon } from './daemon';
import { request } from './requests';
import { received, receivedList } from './wire';
import type * as P from './protocol.generated';
import { clipTitle, statusIcon, type TaskEntry, taskContext, taskDescription, TaskRuns, tasksFrom } from './taskList';
import type { ProgressNotification } from './wire';

/** The view's id (package.json `views`). */
export const TASKS_VIEW_ID = 'harness9.tasks';
/** Where the prompts of the tasks started in this workspace are kept, by session. */
const TITLES_KEY = 'harness9.taskTitles';
/** A running task's calls come fast: its counts are read again at most this often. */
const REFRESH_DELAY_MS = 400;

/** A row of the view: a task, or one of its changed files. */
export type TaskNode =
  | { readonly kind: 'task'; readonly task: TaskEntry }
  | { readonly kind: 'file'; readonly task: TaskEntry; readonly path: string };

export class TaskView implements vscode.TreeDataProvider<TaskNode>, vscode.Disposable {
  private tasks: TaskEntry[] = [];
  private readonly changed = new vscode.EventEmitter<TaskNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly runs = new TaskRuns();
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private readonly tree: vscode.TreeView<TaskNode>;
  /** Prompts of tasks asked for whose run has not started yet, oldest first. */
  private pending: string[] = [];

  constructor(
    private readonly daemon: Daemon,
    private readonly memory: vscode.Memento,
  ) {
    this.tree = vscode.window.createTreeView(TASKS_VIEW_ID, { treeDataProvider: this, showCollapseAll: false });
    daemon.onDidChangeRunning((running) => {
      if (running) {
        this.refreshSoon(0);
      }
    });
  }

  /** The tasks listed last, oldest first. */
  get shown(): readonly TaskEntry[] {
    return this.tasks;
  }

  /** Follows `agent/progress`; true when the notification is a task's (the chat leaves it). */
  onProgress(n: ProgressNotification): boolean {
    const what = this.runs.claim(n);
    const sessionId = typeof n.sessionId === 'string' ? n.sessionId : '';
    if (what === 'started' && this.title(sessionId) === sessionId && this.pending.length > 0) {
      // Its prompt, until the run's answer names its session for sure.
      this.setTitle(sessionId, this.pending.shift() as string);
    }
    if (what === 'started' || what === 'finished') {
      this.refreshSoon(0);
    } else if (what === 'changed') {
      this.refreshSoon(REFRESH_DELAY_MS);
    }
    return what !== undefined;
  }

  /**
   * A task's title: the daemon's (what the task was asked to do); from a daemon that keeps none,
   * its prompt when this workspace started it, else its session's title.
   */
  title(sessionId: string): string {
    const listed = this.tasks.find((t) => t.sessionId === sessionId)?.title;
    return listed ?? this.memory.get<Record<string, string>>(TITLES_KEY, {})[sessionId] ?? sessionId;
  }

  /** A task of `prompt` is asked for: its run's start takes it as its title. */
  expect(prompt: string): void {
    this.pending.push(prompt);
  }

  /** The task of `prompt` did not start. */
  unexpect(prompt: string): void {
    const at = this.pending.indexOf(prompt);
    if (at >= 0) {
      this.pending.splice(at, 1);
    }
  }

  /** Remembers the prompt a task was started with. */
  setTitle(sessionId: string, prompt: string): void {
    const titles = { ...this.memory.get<Record<string, string>>(TITLES_KEY, {}), [sessionId]: prompt };
    void this.memory.update(TITLES_KEY, titles);
    this.changed.fire(undefined);
  }

  /** Reads the list again after `delayMs` (calls meanwhile join the same read). */
  refreshSoon(delayMs: number): void {
    if (this.timer !== undefined) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, delayMs);
  }

  /** Reads `agent/tasks` now; the view shows once there is a task. */
  async refresh(): Promise<void> {
    // One read at a time; a refresh asked during one reads again after it.
    while (this.reading) {
      await this.reading;
    }
    this.reading = this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    const client = await this.daemon.ensureStarted();
    if (!client || !this.daemon.supports('agent/tasks')) {
      return;
    }
    let answer: unknown;
    try {
      answer = await request(client, 'agent/tasks', {});
    } catch {
      return; // a daemon going down; the next start reads again
    }
    this.tasks = tasksFrom(answer);
    await this.learnTitles(this.tasks.filter((t) => this.title(t.sessionId) === t.sessionId));
    void vscode.commands.executeCommand('setContext', 'harness9.hasTasks', this.tasks.length > 0);
    this.changed.fire(undefined);
  }

  /** The titles of tasks started elsewhere (the terminal, another window): their sessions'. */
  private async learnTitles(unknown: readonly TaskEntry[]): Promise<void> {
    const client = await this.daemon.ensureStarted();
    if (unknown.length === 0 || !client || !this.daemon.supports('agent/sessions')) {
      return;
    }
    const folders = new Set(unknown.map((t) => t.workspace).filter((w): w is string => w !== undefined));
    for (const folder of folders) {
      const answer = await request(client, 'agent/sessions', { workspaceFolder: vscode.Uri.file(folder).toString() }).catch(() => undefined);
      for (const s of receivedList<P.SessionListed>(received<P.SessionsResult>(answer).sessions)) {
        if (typeof s.sessionId === 'string' && typeof s.title === 'string' && s.title !== '' && unknown.some((t) => t.sessionId === s.sessionId)) {
          this.setTitle(s.sessionId, s.title);
        }
      }
    }
  }

  getTreeItem(node: TaskNode): vscode.TreeItem {
    return node.kind === 'task' ? this.taskItem(node.task) : fileItem(node.task, node.path);
  }

  getChildren(node?: TaskNode): TaskNode[] {
    if (node === undefined) {
      // Newest first: the task just started is at the top.
      return [...this.tasks].reverse().map((task) => ({ kind: 'task', task }));
    }
    return node.kind === 'task' ? node.task.changedFiles.map((path) => ({ kind: 'file', task: node.task, path })) : [];
  }

  private taskItem(t: TaskEntry): vscode.TreeItem {
    const title = this.title(t.sessionId);
    const item = new vscode.TreeItem(clipTitle(title), t.changedFiles.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `task:${t.sessionId}`;
    item.description = taskDescription(t);
    item.iconPath = new vscode.ThemeIcon(statusIcon(t.status));
    item.contextValue = taskContext(t);
    const tip = new vscode.MarkdownString();
    tip.appendText(`${title}\n\n`);
    tip.appendMarkdown(`**${t.status}** · ${t.changedFiles.length} files · +${t.insertions} −${t.deletions}\n\n`);
    tip.appendText(`branch ${t.worktree.branch}\nworktree ${t.worktree.path}\nsession ${t.sessionId}`);
    item.tooltip = tip;
    return item;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.tree.dispose();
    this.changed.dispose();
  }
}

/** A changed file's row: its name, its folder beside it; a click opens its diff. */
function fileItem(t: TaskEntry, path: string): vscode.TreeItem {
  // The workspace's file: its icon, and its name as the editor decorates it.
  const file = vscode.Uri.joinPath(vscode.Uri.file(t.workspace ?? t.worktree.path), ...path.split('/'));
  const item = new vscode.TreeItem(file, vscode.TreeItemCollapsibleState.None);
  item.id = `task:${t.sessionId}:${path}`;
  const slash = path.lastIndexOf('/');
  item.description = slash > 0 ? path.slice(0, slash) : '';
  item.label = slash >= 0 ? path.slice(slash + 1) : path;
  item.tooltip = `${path}: the workspace's beside the task's`;
  item.contextValue = 'task-file';
  item.command = { command: 'harness9.tasks.openFile', title: 'Open Diff', arguments: [{ kind: 'file', task: t, path }] };
  return item;
}
