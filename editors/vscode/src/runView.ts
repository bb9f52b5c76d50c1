/**
 * The chat view: a webview view in harness9's own activity-bar container, showing the runs of
 * the current session, the approval questions open now, and a prompt box with its context chips.
 * The extension posts run states, questions and the composer's state; the webview renders them
 * with the same pure renderer the tests use and posts back what the user does.
 */
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import type { ApprovalCard } from './approvals';
import type { ChipView } from './chips';
import { type Effort, effortOf, type ModelChoice, type ModelInfo } from './models';
import type { RunState } from './runState';
import type { SlashCommand } from './slash';

/** The view's id (package.json `views`); `<id>.focus` is VS Code's command that reveals it. */
export const CHAT_VIEW_ID = 'harness9.chat';

/** What the webview sends when the user acts on a question. */
export type ApprovalAction =
  | { readonly type: 'decide'; readonly id: string; readonly decision: string; readonly message?: string }
  | { readonly type: 'openDiff'; readonly id: string }
  | { readonly type: 'editFirst'; readonly id: string };

/**
 * What the webview sends when the user acts on a run: open a file or a change, review the run's
 * changes, restore a checkpoint.
 */
export type RunAction =
  | { readonly type: 'openFile'; readonly run: number; readonly path: string; readonly line?: number; readonly column?: number }
  | { readonly type: 'openChange'; readonly run: number; readonly toolCallId: string }
  | { readonly type: 'review'; readonly run: number }
  | { readonly type: 'restore'; readonly run: number; readonly checkpointId: string }
  | { readonly type: 'unqueue'; readonly run: number }
  | { readonly type: 'executePlan'; readonly run: number };

/** What the webview sends from the prompt box and the view's buttons. */
export type ChatAction =
  /**
   * The prompt box: `queue` puts it in the session's queue; otherwise it starts a run (`plan`:
   * plan only), or, while one runs, goes into it (a steer).
   */
  | { readonly type: 'send'; readonly prompt: string; readonly queue?: boolean; readonly plan?: boolean }
  | { readonly type: 'stop' }
  | { readonly type: 'newChat' }
  | { readonly type: 'sessions' }
  | { readonly type: 'attach'; readonly kind: string }
  | { readonly type: 'removeChip'; readonly index: number }
  /** The footer's model picker: a model (and effort) chosen, or the list wanted again. */
  | { readonly type: 'setModel'; readonly provider: string; readonly model: string; readonly reasoningEffort: Effort }
  | { readonly type: 'models' }
  /** The prompt box started a slash command: the list wanted again. */
  | { readonly type: 'commands' };

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
}

const POST_INTERVAL_MS = 50;

type Listener<T> = (value: T) => void;

export class RunView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private runs: RunState[] = [];
  private approvals: readonly ApprovalCard[] = [];
  private composer: ComposerState = { busy: false, chips: [], sessions: false, steering: false, planning: true };
  private models: ModelsState = { models: [], current: undefined, errors: [], effort: false, available: true };
  private commands: readonly SlashCommand[] = [];
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
    view.webview.html = this.html(view.webview, dist);
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

  private html(webview: vscode.Webview, dist: vscode.Uri): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css'));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>harness9 Chat</title></head>
<body>
<div id="scroll"><main id="runs" aria-label="conversation"></main><aside id="approvals" aria-live="assertive"></aside></div>
<footer id="composer">
<div id="chips" aria-label="attached context"></div>
<textarea id="prompt" rows="3" aria-label="prompt" placeholder="Ask harness9 to do something (Enter sends, Shift+Enter new line, Up recalls)"></textarea>
<div class="composer-bar">
<button type="button" class="chip-add" data-attach="selection" title="Attach the selected text of the active editor">+ Selection</button>
<button type="button" class="chip-add" data-attach="file" title="Attach the active file">+ File</button>
<button type="button" class="chip-add" data-attach="problems" title="Attach the active file's problems (diagnostics)">+ Problems</button>
<span class="send-group">
<button type="button" id="plan-toggle" class="toggle" aria-pressed="false" hidden title="Plan first: the agent investigates and writes a plan, changing nothing; Go then carries it out">Plan first</button>
<button type="button" id="stop" class="danger" hidden>Stop</button>
<button type="button" id="queue" class="secondary" hidden title="Run this prompt after the run in progress (and any queued before it); Ctrl+Enter">Queue</button>
<button type="button" id="send" class="primary">Send</button>
</span>
</div>
<div id="menu" role="listbox" hidden></div>
<div class="composer-foot"><span class="foot-models"><button type="button" class="picker" id="model" title="The model of this chat (harness9: Select Model)" aria-haspopup="listbox">model ▾</button>
<button type="button" class="picker" id="effort" hidden title="Reasoning effort of the model" aria-haspopup="listbox"></button>
<span id="model-errors" hidden>⚠</span></span>
<span class="foot-rest"><span id="fill"></span><span class="spacer"></span>
<button type="button" class="link" id="sessions" hidden>Sessions</button>
<button type="button" class="link" id="new-chat">New chat</button></span></div>
</footer>
<script nonce="${nonce}" src="${script.toString()}"></script></body></html>`;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.registration.dispose();
  }
}

function chatActionFrom(m: Record<string, unknown>): ChatAction | undefined {
  switch (m.type) {
    case 'send':
      return typeof m.prompt === 'string'
        ? { type: 'send', prompt: m.prompt, queue: m.queue === true, plan: m.plan === true }
        : undefined;
    case 'stop':
    case 'newChat':
    case 'sessions':
    case 'models':
    case 'commands':
      return { type: m.type };
    case 'setModel':
      return typeof m.provider === 'string' && typeof m.model === 'string'
        ? { type: 'setModel', provider: m.provider, model: m.model, reasoningEffort: effortOf(m.reasoningEffort) }
        : undefined;
    case 'attach':
      return typeof m.kind === 'string' ? { type: 'attach', kind: m.kind } : undefined;
    case 'removeChip':
      return typeof m.index === 'number' ? { type: 'removeChip', index: m.index } : undefined;
    default:
      return undefined;
  }
}

function runActionFrom(m: Record<string, unknown>): RunAction | undefined {
  const run = typeof m.run === 'number' ? m.run : undefined;
  if (run === undefined) {
    return undefined;
  }
  if (m.type === 'openFile' && typeof m.path === 'string') {
    const at = typeof m.line === 'number' && m.line > 0
      ? { line: m.line, column: typeof m.column === 'number' && m.column > 0 ? m.column : 1 }
      : {};
    return { type: 'openFile', run, path: m.path, ...at };
  }
  if (m.type === 'openChange' && typeof m.toolCallId === 'string') {
    return { type: 'openChange', run, toolCallId: m.toolCallId };
  }
  if (m.type === 'restore' && typeof m.checkpointId === 'string') {
    return { type: 'restore', run, checkpointId: m.checkpointId };
  }
  if (m.type === 'unqueue' || m.type === 'executePlan' || m.type === 'review') {
    return { type: m.type, run };
  }
  return undefined;
}
