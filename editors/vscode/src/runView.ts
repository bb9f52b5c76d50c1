/**
 * The chat view: a webview view in harness9's own activity-bar container, showing the runs of
 * the current session, the approval questions open now, and a prompt box with its context chips.
 * The extension posts run states, questions and the composer's state; the webview renders them
 * with the same pure renderer the tests use and posts back what the user does.
 */
import * as vscode from 'vscode';
import type { ApprovalCard } from './approvals';
import { chatHtml } from './chatHtml';
import type { ChipView } from './chips';
import type { ModelChoice, ModelInfo } from './models';
import type { RunState } from './runState';
import type { SessionSummary } from './sessions';
import type { SlashCommand } from './slash';
import { type ApprovalAction, type ChatAction, chatActionFrom, type RunAction, runActionFrom } from './viewMessages';

/** The view's id (package.json `views`); `<id>.focus` is VS Code's command that reveals it. */
export const CHAT_VIEW_ID = 'harness9.chat';
export type { ApprovalAction, ChatAction, RunAction } from './viewMessages';

/** What the footer's model picker shows. */
export interface ModelsState {
  readonly models: readonly ModelInfo[];
  /** The chat's model, marked in the list (undefined: not known yet). */
  readonly current: ModelChoice | undefined;
  /** Providers whose list could not be read, one line each. */
  readonly errors: readonly string[];
  /** The current model takes a reasoning effort: the effort toggle shows. */
  readonly effort: boolean;
  /** False when the daemon that runs has no `agent/models`: no picker. */
  readonly available: boolean;
}

/** The composer's state: busy (a run is in progress), the chips, what the daemon can do. */
export interface ComposerState {
  readonly busy: boolean;
  readonly chips: readonly ChipView[];
  readonly sessions: boolean;
  /** The daemon takes messages into a running run and queues prompts (`agent/steer`). */
  readonly steering: boolean;
  /** The daemon plans before it acts on request (`plan: true`, `executePlan: true`). */
  readonly planning: boolean;
  /** The daemon runs prompts as background tasks in worktrees (`agent/tasks`). */
  readonly tasks: boolean;
}

const POST_INTERVAL_MS = 50;

type Listener<T> = (value: T) => void;

export class RunView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private runs: RunState[] = [];
  private approvals: readonly ApprovalCard[] = [];
  private composer: ComposerState = { busy: false, chips: [], sessions: false, steering: false, planning: true, tasks: true };
  private models: ModelsState = { models: [], current: undefined, errors: [], effort: false, available: true };
  private commands: readonly SlashCommand[] = [];
  private recent: readonly SessionSummary[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly actionListeners: Listener<ApprovalAction>[] = [];
  private readonly runActionListeners: Listener<RunAction>[] = [];
  private readonly chatListeners: Listener<ChatAction>[] = [];
  private readonly readyListeners: (() => void)[] = [];
  private readonly registration: vscode.Disposable;

  constructor(private readonly extensionUri: vscode.Uri) {
    this.registration = vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this, {
      // The conversation, a reason being typed and open rows survive the view being hidden.
      webviewOptions: { retainContextWhenHidden: true },
    });
  }

  /** Called when the user answers a question or asks for its diff in the view. */
  onApprovalAction(listener: Listener<ApprovalAction>): void {
    this.actionListeners.push(listener);
  }

  /** Called when the user opens a file or change, or asks to restore a checkpoint, in the view. */
  onRunAction(listener: Listener<RunAction>): void {
    this.runActionListeners.push(listener);
  }

  /** Called when the user sends a prompt, stops the run or uses the composer's buttons. */
  onChatAction(listener: Listener<ChatAction>): void {
    this.chatListeners.push(listener);
  }

  /** Called each time the webview (re)loads and is ready for state. */
  onReady(listener: () => void): void {
    this.readyListeners.push(listener);
  }

  /** True when the view is open and on screen. */
  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** Editor column of the view: none, it lives in the side bar (editors open in column one). */
  get column(): vscode.ViewColumn | undefined {
    return undefined;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = chatHtml(view.webview, dist);
    view.webview.onDidReceiveMessage((m: unknown) => this.received(m));
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
      }
    });
    this.view = view;
  }

  /**
   * Brings the chat forward, by default without taking the focus from the editor; `focus` also
   * moves the keyboard to the first open question.
   */
  show(focus = false): void {
    if (this.view) {
      this.view.show(!focus);
    } else {
      void vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`, { preserveFocus: !focus });
    }
    if (focus) {
      this.postLater({ type: 'focusApproval' });
    }
  }

  /** Brings the chat forward with the keyboard in the prompt box. */
  focusPrompt(): void {
    void vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`).then(() => this.postLater({ type: 'focusPrompt' }));
  }

  /** Shows exactly these open questions (an empty list removes every card). */
  setApprovals(cards: readonly ApprovalCard[]): void {
    this.approvals = cards;
    // Questions are rare and the user waits for them: post at once, not with the 20 Hz batch.
    this.postApprovals();
  }

  /** Adds a run (shown last) or replaces the one with the same index. */
  setRun(index: number, state: RunState): void {
    this.runs[index] = state;
    this.schedulePost();
  }

  /** Shows exactly these runs (a resumed session). */
  setRuns(runs: readonly RunState[]): void {
    this.runs = [...runs];
    this.schedulePost();
  }

  /** The composer's state: busy or not, the chips, the buttons the daemon supports. */
  setComposer(state: Partial<ComposerState>): void {
    this.composer = { ...this.composer, ...state };
    void this.view?.webview.postMessage({ type: 'composer', ...this.composer });
  }

  /** What the footer's model picker lists and marks. */
  setModels(state: ModelsState): void {
    this.models = state;
    void this.view?.webview.postMessage({ type: 'models', ...state });
  }

  /** The slash commands the prompt box completes. */
  setCommands(commands: readonly SlashCommand[]): void {
    this.commands = commands;
    void this.view?.webview.postMessage({ type: 'commands', commands });
  }

  /** The paths completing the prompt box's `@query`. */
  setMentions(query: string, paths: readonly string[]): void {
    void this.view?.webview.postMessage({ type: 'mentionResults', query, paths });
  }

  /** The chats an empty view lists (the workspace's stored sessions, newest first). */
  setRecent(sessions: readonly SessionSummary[]): void {
    this.recent = sessions;
    void this.view?.webview.postMessage({ type: 'recent', sessions });
  }

  /** The runs shown, oldest first. */
  get shownRuns(): readonly RunState[] {
    return this.runs;
  }

  /** Index a new run will take. */
  nextIndex(): number {
    return this.runs.length;
  }

  /** Forgets the runs shown (a new session starts). */
  clear(): void {
    this.runs = [];
    this.schedulePost();
  }

  private schedulePost(): void {
    // Text deltas can arrive hundreds per second; repainting at 20 Hz is enough to read.
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.post();
    }, POST_INTERVAL_MS);
  }

  /** Posts once the view exists (revealing it may take a moment). */
  private postLater(message: unknown, tries = 20): void {
    if (this.view) {
      void this.view.webview.postMessage(message);
    } else if (tries > 0) {
      setTimeout(() => this.postLater(message, tries - 1), 100);
    }
  }

  private post(): void {
    void this.view?.webview.postMessage({ type: 'runs', runs: this.runs });
  }

  private postApprovals(): void {
    void this.view?.webview.postMessage({ type: 'approvals', approvals: this.approvals });
  }

  private received(raw: unknown): void {
    const m = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    if (m.type === 'ready') {
      this.post();
      this.postApprovals();
      void this.view?.webview.postMessage({ type: 'composer', ...this.composer });
      void this.view?.webview.postMessage({ type: 'models', ...this.models });
      void this.view?.webview.postMessage({ type: 'commands', commands: this.commands });
      void this.view?.webview.postMessage({ type: 'recent', sessions: this.recent });
      this.readyListeners.forEach((l) => l());
      return;
    }
    const chat = chatActionFrom(m);
    if (chat) {
      this.chatListeners.forEach((l) => l(chat));
      return;
    }
    const run = runActionFrom(m);
    if (run) {
      this.runActionListeners.forEach((l) => l(run));
      return;
    }
    if (typeof m.id !== 'string') {
      return;
    }
    if (m.type === 'decide' && typeof m.decision === 'string') {
      const message = typeof m.message === 'string' ? m.message : undefined;
      this.emit({ type: 'decide', id: m.id, decision: m.decision, message });
    } else if (m.type === 'openDiff' || m.type === 'editFirst') {
      this.emit({ type: m.type, id: m.id });
    }
  }

  private emit(action: ApprovalAction): void {
    for (const l of this.actionListeners) {
      l(action);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.registration.dispose();
  }
}
