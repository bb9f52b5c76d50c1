/**
 * Runs the agent: sends `agent/run` on the active workspace folder with the prompt from the chat
 * (or the palette) and the attached context, follows the run in the chat view and the status bar,
 * and cancels on request. It keeps the session the chat continues, also across window reloads.
 */
import * as vscode from 'vscode';
import { type LanguageClient, ResponseError, WorkDoneProgress } from 'vscode-languageclient/node';
import type { ContextItem } from './chips';
import type { Daemon } from './daemon';
import { offerOnboarding } from './onboarding';
import {
  applyRequestError,
  applyResult,
  initialRunState,
  type ProgressNotification,
  reduce,
  type RunState,
} from './runState';
import type { RunView } from './runView';
import type { StatusItem } from './status';

interface ActiveRun {
  state: RunState;
  readonly index: number;
  readonly client: LanguageClient;
  readonly folder: vscode.Uri;
  readonly cancel: vscode.CancellationTokenSource;
}

/** Where the session the chat continues is remembered (per workspace). */
const SESSION_KEY = 'harness9.sessionId';
/** True when the daemon that ran that session stores sessions (a reload may show it again). */
const STORED_KEY = 'harness9.sessionStored';
let tokenCounter = 0;

export class Runner {
  private active: ActiveRun | undefined;

  constructor(
    private readonly daemon: Daemon,
    private readonly view: RunView,
    private readonly status: StatusItem,
    private readonly memory: vscode.Memento,
  ) {
    // A new daemon (this window's) has none of the sessions of one that did not store them.
    if (!this.sessionStored) {
      this.sessionId = undefined;
    }
    // A restarted daemon without stored sessions has none of the old ones.
    daemon.onDidChangeRunning((running) => {
      if (!running && !daemon.supports('agent/sessions')) {
        this.sessionId = undefined;
      }
    });
  }

  /** The session the next run continues (undefined: a new one). */
  get sessionId(): string | undefined {
    return this.memory.get<string>(SESSION_KEY);
  }

  set sessionId(id: string | undefined) {
    void this.memory.update(SESSION_KEY, id);
    void this.memory.update(STORED_KEY, id !== undefined && this.daemon.supports('agent/session'));
  }

  /** True when the remembered session can be read back from the daemon (after a reload). */
  get sessionStored(): boolean {
    return this.sessionId !== undefined && this.memory.get<boolean>(STORED_KEY) === true;
  }

  /** True while a run is in progress. */
  get busy(): boolean {
    return this.active !== undefined;
  }

  /** "harness9: Run Agent": the prompt given, else one asked for in an input box. */
  async runAgent(promptArg?: string, context: readonly ContextItem[] = []): Promise<void> {
    if (this.active) {
      const choice = await vscode.window.showWarningMessage('harness9: a run is in progress.', 'Stop');
      if (choice === 'Stop') {
        await this.cancelRun();
      }
      return;
    }
    const folder = activeFolder();
    if (!folder) {
      void vscode.window.showErrorMessage('harness9: open a folder first; the agent works on a workspace folder.');
      return;
    }
    // Start the daemon first: no point in typing a prompt it cannot run.
    const client = await this.daemon.ensureStarted();
    if (!client) {
      return;
    }
    const prompt = promptArg ?? (await askPrompt(this.sessionId !== undefined));
    if (prompt) {
      await this.execute(client, prompt, folder, context);
    }
  }

  /** "harness9: Stop": `agent/cancel {runId}`, or a request cancel before the run has an id. */
  async cancelRun(): Promise<void> {
    const run = this.active;
    if (!run) {
      void vscode.window.showInformationMessage('harness9: no run in progress.');
      return;
    }
    if (run.state.runId === undefined) {
      run.cancel.cancel();
      return;
    }
    try {
      await run.client.sendRequest('agent/cancel', { runId: run.state.runId });
    } catch {
      run.cancel.cancel();
    }
  }

  /** "harness9: New Chat": the next run starts a fresh conversation; the chat is cleared. */
  newSession(): boolean {
    if (this.active) {
      void vscode.window.showWarningMessage('harness9: a run is in progress; stop it or wait before starting a new chat.');
      return false;
    }
    this.sessionId = undefined;
    this.view.clear();
    return true;
  }

  /** Shows `runs` as the chat and continues their session with the next prompt. */
  resume(sessionId: string, runs: readonly RunState[]): boolean {
    if (this.active) {
      void vscode.window.showWarningMessage('harness9: a run is in progress; stop it or wait before switching chats.');
      return false;
    }
    this.sessionId = sessionId;
    this.view.setRuns(runs);
    return true;
  }

  /** The folder the run in progress works on, else the one the next run would take. */
  workspaceRoot(): vscode.Uri | undefined {
    return this.active?.folder ?? activeFolder()?.uri;
  }

  /** Feeds an `agent/progress` notification to the active run's state. */
  onProgress(params: unknown): void {
    const run = this.active;
    if (!run || !params || typeof params !== 'object') {
      return;
    }
    const next = reduce(run.state, params as ProgressNotification, Date.now());
    if (next !== run.state) {
      run.state = next;
      this.view.setRun(run.index, next);
      this.status.update({ turn: next.turns[next.turns.length - 1]?.turn });
    }
  }

  private async execute(
    client: LanguageClient,
    prompt: string,
    folder: vscode.WorkspaceFolder,
    context: readonly ContextItem[],
  ): Promise<void> {
    const run: ActiveRun = {
      state: initialRunState(prompt, this.sessionId),
      index: this.view.nextIndex(),
      client,
      folder: folder.uri,
      cancel: new vscode.CancellationTokenSource(),
    };
    this.active = run;
    this.view.setRun(run.index, run.state);
    this.view.show();
    this.view.setComposer({ busy: true });
    this.status.update({ running: true, turn: undefined, message: undefined });
    // Our own token, so the daemon creates none (VS Code would show it as a toast over the chat);
    // its messages go to the status bar.
    const workDoneToken = `harness9-run-${process.pid}-${++tokenCounter}`;
    const params: Record<string, unknown> = { prompt, workspaceFolder: folder.uri.toString(), workDoneToken };
    if (this.sessionId !== undefined) {
      params.sessionId = this.sessionId;
    }
    if (context.length > 0) {
      params.context = context;
    }
    const progress = client.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
      if (v.kind === 'report' && v.message) {
        this.status.update({ message: v.message });
      }
    });
    try {
      const result = await client.sendRequest<Record<string, unknown>>('agent/run', params, run.cancel.token);
      this.settle(run, applyResult(run.state, result));
    } catch (err) {
      this.failed(run, err);
    } finally {
      progress.dispose();
      run.cancel.dispose();
      this.active = undefined;
      this.view.setComposer({ busy: false });
      this.status.update({ running: false, turn: undefined, message: undefined });
    }
  }

  private settle(run: ActiveRun, state: RunState): void {
    run.state = state;
    this.sessionId = state.sessionId ?? this.sessionId;
    this.view.setRun(run.index, state);
  }

  private failed(run: ActiveRun, err: unknown): void {
    const code = err instanceof ResponseError ? err.code : undefined;
    const message = err instanceof Error ? err.message : String(err);
    this.settle(run, applyRequestError(run.state, code, message));
    if (code === -32800 || run.cancel.token.isCancellationRequested) {
      return;
    }
    if (code === -32602 && /session/i.test(message)) {
      this.sessionId = undefined;
    }
    offerOnboarding(message, () => this.daemon.output.show(true));
  }
}

function activeFolder(): vscode.WorkspaceFolder | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  const fromEditor = uri ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
  return fromEditor ?? vscode.workspace.workspaceFolders?.[0];
}

async function askPrompt(continuing: boolean): Promise<string | undefined> {
  const prompt = await vscode.window.showInputBox({
    title: continuing ? 'harness9: Run Agent (continuing the session)' : 'harness9: Run Agent (new session)',
    prompt: 'What should the agent do?',
    placeHolder: 'e.g. add a test for the parser and make it pass',
    ignoreFocusOut: true,
  });
  return prompt?.trim() || undefined;
}
