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
import type * as P from './protocol.generated';
import { request } from './requests';
import {
  addPendingSteer,
  applyRequestError,
  applyResult,
  applySteerAnswer,
  initialRunState,
  reduce,
  type RunState,
} from './runState';
import { Orphans, runParams } from './runRequest';
import type { RunView } from './runView';
import { type SessionSwitch, sessionSwitchOf } from './slash';
import type { StatusItem } from './status';
import { isKind, type ProgressNotification, type Received, received } from './wire';

/** A run the chat follows: asked with `agent/run` (answered when it ends), or a steer's next run. */
interface ActiveRun {
  state: RunState;
  readonly index: number;
  /** The daemon's client, once it is up (a run shows before, `starting…`). */
  client?: LanguageClient;
  readonly folder: vscode.Uri;
  /** The prompt as the user gave it (`''`: carry out the plan, the daemon's own words). */
  readonly prompt: string;
  /** The `agent/run` request's cancel; absent for a run started by a steer (no request of ours). */
  readonly cancel?: vscode.CancellationTokenSource;
}

/** How a run is asked: queued behind the one in progress, plan only, or carrying out the plan. */
export interface RunOptions {
  readonly queue?: boolean;
  readonly plan?: boolean;
  readonly executePlan?: boolean;
}

/** What others add to runs and learn of sessions: the model chosen, a new session, a switch. */
export interface RunHooks {
  /** Params for a run that starts a new session (the model chosen before it). */
  readonly newSessionParams?: () => P.RunParams;
  /** A run started the chat's session. */
  readonly sessionStarted?: (sessionId: string) => void;
  /** A command's answer moved the chat to another session (`/clear`, `/resume ID`). */
  readonly switchSession?: (to: SessionSwitch) => void;
  /** A slash command ran without the model (`/model …` changed the session's model). */
  readonly commandRan?: (name: string) => void;
}

/** The prompt `agent/run {executePlan: true}` gets when none is given. */
export const EXECUTE_PLAN_PROMPT = 'Carry out the plan.';

/** Where the session the chat continues is remembered (per workspace). */
const SESSION_KEY = 'harness9.sessionId';
/** True when the daemon that ran that session stores sessions (a reload may show it again). */
const STORED_KEY = 'harness9.sessionStored';
let tokenCounter = 0;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export class Runner {
  /** The runs in progress or queued, oldest first. */
  private runs: ActiveRun[] = [];
  private readonly orphans = new Orphans();
  private hooks: RunHooks = {};
  private readonly sessionListeners: ((kind: 'new' | 'clear' | 'resume', sessionId?: string) => void)[] = [];

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
    // A daemon without stored sessions that stopped took its sessions with it. (Not one that is
    // only starting: before it runs, no daemon of this window has said what it keeps.)
    let up = false;
    daemon.onDidChangeRunning((running) => {
      if (!running && up && !daemon.supports('agent/sessions')) {
        this.sessionId = undefined;
      }
      up = running;
      if (!running) {
        // A steer's next run has no request to fail with the daemon: it ends here.
        for (const run of this.runs.filter((r) => r.cancel === undefined)) {
          this.settle(run, applyRequestError(run.state, undefined, 'the daemon stopped'));
          this.untrack(run);
        }
      }
    });
  }

  /** What others add to runs and learn of sessions. */
  setHooks(hooks: RunHooks): void {
    this.hooks = hooks;
  }

  /** Called when the chat moves to another session: a new chat, a cleared one, a resumed one. */
  onDidChangeSession(listener: (kind: 'new' | 'clear' | 'resume', sessionId?: string) => void): void {
    this.sessionListeners.push(listener);
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

  /** True while a run is in progress or queued. */
  get busy(): boolean {
    return this.runs.length > 0;
  }

  /** The run in progress (not one waiting in the queue), if any. */
  private get current(): ActiveRun | undefined {
    return this.runs.find((r) => r.state.status === 'running' || r.state.status === 'starting');
  }

  /**
   * "harness9: Run Agent": the prompt given, else one asked for in an input box. While a run is in
   * progress it is queued behind it (`opts.queue`), else the user is offered to queue or stop.
   */
  async runAgent(promptArg?: string, context: readonly ContextItem[] = [], opts: RunOptions = {}): Promise<void> {
    let queue = opts.queue === true && this.busy;
    if (this.busy && !queue) {
      const choice = await vscode.window.showWarningMessage('harness9: a run is in progress.', 'Queue After It', 'Stop');
      if (choice === 'Stop') {
        await this.cancelRun();
        return;
      }
      if (choice !== 'Queue After It') {
        return;
      }
      queue = true;
    }
    const folder = activeFolder();
    if (!folder) {
      void vscode.window.showErrorMessage('harness9: open a folder first; the agent works on a workspace folder.');
      return;
    }
    if (queue && this.queueSession() === undefined) {
      void vscode.window.showWarningMessage('harness9: the run has not started yet; queue your prompt in a moment.');
      return;
    }
    const asked = { ...opts, queue };
    // A prompt given shows at once, "starting…" while the daemon comes up (seconds, the first time).
    const known = opts.executePlan ? promptArg ?? '' : promptArg;
    const early = known !== undefined && (known !== '' || opts.executePlan) ? this.begin(known, folder, asked) : undefined;
    // Else the daemon first: no point in typing a prompt it cannot run.
    const client = await this.daemon.ensureStarted();
    if (!client || early?.cancel?.token.isCancellationRequested) {
      if (early) {
        // Stopped while the daemon came up, or it could not (its own message says why).
        this.settle(early, applyRequestError(early.state, client ? -32800 : undefined, 'the daemon could not start'));
        this.untrack(early);
      }
      return;
    }
    const prompt = known ?? (await askPrompt(this.sessionId !== undefined));
    if (prompt !== undefined && (prompt !== '' || opts.executePlan)) {
      await this.execute(client, early ?? this.begin(prompt, folder, asked), context, asked);
    }
  }

  /**
   * Sends `prompt` into the run in progress (`agent/steer`): it joins the conversation at the
   * agent's next step, or, when the run ends first, runs next as a prompt of its own. With no run
   * that can take it yet, it is queued.
   */
  async steer(prompt: string, context: readonly ContextItem[] = []): Promise<void> {
    const run = this.current;
    const runId = run?.state.runId;
    const client = run?.client;
    if (!run || runId === undefined || !client || !this.daemon.supports('agent/steer')) {
      await this.runAgent(prompt, context, { queue: true });
      return;
    }
    this.update(run, addPendingSteer(run.state, prompt));
    const params: P.SteerParams = { runId, prompt };
    if (context.length > 0) {
      params.context = [...context];
    }
    let answer: Received<P.SteerResult>;
    try {
      answer = received<P.SteerResult>(await request(client, 'agent/steer', params));
    } catch (err) {
      this.update(run, applySteerAnswer(run.state, prompt, 'failed'));
      const message = err instanceof Error ? err.message : String(err);
      void vscode.window.showErrorMessage(`harness9: the message did not reach the agent: ${message}`);
      return;
    }
    const delivered = str(answer.delivered) ?? 'run';
    this.update(run, applySteerAnswer(run.state, prompt, delivered));
    const nextId = str(answer.runId);
    if (delivered === 'next' && nextId !== undefined && !this.runs.some((r) => r.state.runId === nextId)) {
      // The run ended first: the message is the session's next prompt, a run of its own.
      const next: ActiveRun = {
        state: { ...initialRunState(prompt, run.state.sessionId, true), runId: nextId },
        index: this.view.nextIndex(),
        client,
        prompt,
        folder: run.folder,
      };
      this.track(next);
      for (const n of this.orphans.take(nextId)) {
        this.apply(next, n);
      }
    }
  }

  /** Takes the queued run shown at `index` out of the queue (`agent/unqueue`). */
  async unqueue(index: number): Promise<void> {
    const run = this.runs.find((r) => r.index === index);
    if (!run || run.state.status !== 'queued') {
      return;
    }
    const sessionId = run.state.sessionId ?? this.queueSession();
    if (run.state.queueId === undefined || sessionId === undefined || !run.client) {
      // Not in the queue yet: withdraw the request; it never runs.
      this.update(run, { ...run.state, unqueued: true });
      run.cancel?.cancel();
      return;
    }
    try {
      await request(run.client, 'agent/unqueue', { sessionId, queueId: run.state.queueId });
    } catch (err) {
      void vscode.window.showErrorMessage(`harness9: could not remove the prompt: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** "harness9: Stop": cancels the run in progress (`agent/cancel {runId}`); queued prompts then start. */
  async cancelRun(): Promise<void> {
    const run = this.current ?? this.runs[0];
    if (!run) {
      void vscode.window.showInformationMessage('harness9: no run in progress.');
      return;
    }
    if (run.state.runId === undefined || !run.client) {
      run.cancel?.cancel();
      return;
    }
    try {
      await request(run.client, 'agent/cancel', { runId: run.state.runId });
    } catch {
      run.cancel?.cancel();
    }
  }

  /** "harness9: New Chat": the next run starts a fresh conversation; the chat is cleared. */
  newSession(): boolean {
    if (this.busy) {
      void vscode.window.showWarningMessage('harness9: a run is in progress; stop it or wait before starting a new chat.');
      return false;
    }
    this.sessionId = undefined;
    this.view.clear();
    this.sessionListeners.forEach((l) => l('new'));
    return true;
  }

  /** `/clear` answered with a new, empty session: the chat continues there, empty. */
  clearTo(sessionId: string): void {
    this.sessionId = sessionId;
    this.view.clear();
    this.sessionListeners.forEach((l) => l('clear', sessionId));
  }

  /** Shows `runs` as the chat and continues their session with the next prompt. */
  resume(sessionId: string, runs: readonly RunState[]): boolean {
    if (this.busy) {
      void vscode.window.showWarningMessage('harness9: a run is in progress; stop it or wait before switching chats.');
      return false;
    }
    this.sessionId = sessionId;
    this.view.setRuns(runs);
    this.sessionListeners.forEach((l) => l('resume', sessionId));
    return true;
  }

  /** The folder the run in progress works on, else the one the next run would take. */
  workspaceRoot(): vscode.Uri | undefined {
    return this.runs[0]?.folder ?? activeFolder()?.uri;
  }

  /** Feeds an `agent/progress` notification to the run it belongs to. */
  onProgress(params: unknown): void {
    if (!params || typeof params !== 'object') {
      return;
    }
    const n = params as ProgressNotification;
    const runId = str(n.runId);
    let run = this.runs.find((r) => r.state.runId !== undefined && r.state.runId === runId);
    // A run we asked for is first heard of by its first notification: queued, or run_started.
    if (!run && (runId === undefined || isKind(n, 'queued') || isKind(n, 'run_started') || n.seq === 1)) {
      run = this.runs.find((r) => r.cancel !== undefined && r.client !== undefined && r.state.runId === undefined);
    }
    if (!run) {
      this.orphans.keep(runId, n);
      return;
    }
    this.apply(run, n);
  }

  private apply(run: ActiveRun, n: ProgressNotification): void {
    const next = reduce(run.state, n, Date.now());
    if (next !== run.state) {
      this.update(run, next);
      if (this.sessionId === undefined && next.sessionId !== undefined) {
        this.sessionId = next.sessionId;
      }
      const current = this.current;
      this.status.update({ turn: current?.state.turns[current.state.turns.length - 1]?.turn });
    }
    if (isKind(n, 'run_finished') && run.cancel === undefined) {
      this.untrack(run); // a steer's next run: no answer to wait for
    }
  }

  private update(run: ActiveRun, state: RunState): void {
    run.state = state;
    this.view.setRun(run.index, state);
  }

  /** The session a queued prompt joins: the chat's, or the one the run in progress started. */
  private queueSession(): string | undefined {
    return this.sessionId ?? this.runs.find((r) => r.state.sessionId !== undefined)?.state.sessionId;
  }

  private track(run: ActiveRun): void {
    this.runs.push(run);
    this.view.setRun(run.index, run.state);
    this.view.setComposer({ busy: true });
    this.status.update({ running: true });
  }

  private untrack(run: ActiveRun): void {
    this.runs = this.runs.filter((r) => r !== run);
    if (this.runs.length === 0) {
      this.view.setComposer({ busy: false });
      this.status.update({ running: false, turn: undefined, message: undefined });
    }
  }

  /** Shows a run of `prompt` in the chat (`starting…`, or queued) before it is sent. */
  private begin(prompt: string, folder: vscode.WorkspaceFolder, opts: RunOptions): ActiveRun {
    const sessionId = opts.queue ? this.queueSession() : this.sessionId;
    const state = initialRunState(prompt || EXECUTE_PLAN_PROMPT, sessionId, opts.queue === true);
    // Approval mode `plan` in the settings: every run plans first (Go then carries it out).
    const planMode = opts.plan === true || (!opts.executePlan && vscode.workspace.getConfiguration('harness9').get('approvals.mode') === 'plan');
    const run: ActiveRun = {
      state: { ...state, ...(planMode ? { planMode: true } : {}), ...(opts.executePlan ? { executePlan: true } : {}) },
      index: this.view.nextIndex(),
      folder: folder.uri,
      cancel: new vscode.CancellationTokenSource(),
      prompt,
    };
    const first = !this.busy;
    this.track(run);
    this.view.show();
    if (first) {
      this.status.update({ running: true, turn: undefined, message: undefined });
    }
    return run;
  }

  /** Sends the run `begin` showed (`agent/run`) and follows it to its end. */
  private async execute(client: LanguageClient, run: ActiveRun, context: readonly ContextItem[], opts: RunOptions): Promise<void> {
    run.client = client;
    const sessionId = run.state.sessionId;
    // Our own token, so the daemon creates none (VS Code would show it as a toast over the chat);
    // its messages go to the status bar.
    const workDoneToken = `harness9-run-${process.pid}-${++tokenCounter}`;
    const asked = { prompt: run.prompt, folder: run.folder.toString(), sessionId };
    const params = runParams(asked, context, opts, workDoneToken, () => this.hooks.newSessionParams?.());
    const progress = client.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
      if (v.kind === 'report' && v.message && this.current === run) {
        this.status.update({ message: v.message });
      }
    });
    const cancel = run.cancel as vscode.CancellationTokenSource;
    let result: unknown;
    try {
      result = await request(client, 'agent/run', params, cancel.token);
      this.settle(run, applyResult(run.state, result));
    } catch (err) {
      this.failed(run, err);
    } finally {
      progress.dispose();
      cancel.dispose();
      this.untrack(run);
    }
    this.afterRun(sessionId, result);
  }

  /** Tells the hooks of a session the run started, or of the session a command moved to. */
  private afterRun(before: string | undefined, result: unknown): void {
    // Compared with the session the run was asked for: `/clear` runs in the new one already.
    const to = sessionSwitchOf(result, before);
    const command = received<P.RunResult>(result).command;
    if (typeof command === 'string') {
      this.hooks.commandRan?.(command);
    }
    if (to !== undefined) {
      this.hooks.switchSession?.(to);
    } else if (before === undefined && this.sessionId !== undefined) {
      this.hooks.sessionStarted?.(this.sessionId);
    }
  }

  private settle(run: ActiveRun, state: RunState): void {
    this.update(run, state);
    this.sessionId = state.sessionId ?? this.sessionId;
  }

  private failed(run: ActiveRun, err: unknown): void {
    const code = err instanceof ResponseError ? err.code : undefined;
    const message = err instanceof Error ? err.message : String(err);
    this.settle(run, applyRequestError(run.state, code, message));
    if (code === -32800 || run.cancel?.token.isCancellationRequested) {
      return;
    }
    if (code === -32602 && /session/i.test(message)) {
      this.sessionId = undefined;
    }
    offerOnboarding(message, () => this.daemon.output.show(true));
  }
}

/** The folder of the active editor, else the first of the workspace. */
export function activeFolder(): vscode.WorkspaceFolder | undefined {
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
