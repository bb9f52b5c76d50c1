/**
 * Runs the agent: asks for a prompt, sends `agent/run` on the active workspace folder, follows the
 * run in the run view and in a cancellable progress notification, and cancels on request.
 */
import * as vscode from 'vscode';
import { type LanguageClient, ResponseError, WorkDoneProgress } from 'vscode-languageclient/node';
import type { Daemon } from './daemon';
import {
  applyRequestError,
  applyResult,
  initialRunState,
  type ProgressNotification,
  reduce,
  type RunState,
} from './runState';
import type { RunView } from './runView';

interface ActiveRun {
  state: RunState;
  readonly index: number;
  readonly client: LanguageClient;
  readonly folder: vscode.Uri;
  readonly cancel: vscode.CancellationTokenSource;
}

const CANCEL_FALLBACK_MS = 3000;
let tokenCounter = 0;

export class Runner {
  private sessionId: string | undefined;
  private active: ActiveRun | undefined;

  constructor(
    private readonly daemon: Daemon,
    private readonly view: RunView,
  ) {
    // A restarted daemon has none of the old sessions.
    daemon.onDidChangeRunning((running) => {
      if (!running) {
        this.sessionId = undefined;
      }
    });
  }

  /** "harness9: Run Agent". */
  async runAgent(promptArg?: string): Promise<void> {
    if (this.active) {
      const choice = await vscode.window.showWarningMessage('harness9: a run is in progress.', 'Cancel Run');
      if (choice === 'Cancel Run') {
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
      await this.execute(client, prompt, folder);
    }
  }

  /** "harness9: Cancel Run": `agent/cancel {runId}`, or a request cancel before the run has an id. */
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

  /** "harness9: New Session": the next run starts a fresh conversation. */
  newSession(): void {
    if (this.active) {
      void vscode.window.showWarningMessage('harness9: a run is in progress; cancel it or wait before starting a new session.');
      return;
    }
    this.sessionId = undefined;
    this.view.clear();
    void vscode.window.showInformationMessage('harness9: the next run starts a new session.');
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
    const next = reduce(run.state, params as ProgressNotification);
    if (next !== run.state) {
      run.state = next;
      this.view.setRun(run.index, next);
    }
  }

  private async execute(client: LanguageClient, prompt: string, folder: vscode.WorkspaceFolder): Promise<void> {
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
    const workDoneToken = `harness9-run-${process.pid}-${++tokenCounter}`;
    const params: Record<string, unknown> = { prompt, workspaceFolder: folder.uri.toString(), workDoneToken };
    if (this.sessionId !== undefined) {
      params.sessionId = this.sessionId;
    }
    try {
      await withRunProgress(client, workDoneToken, run.cancel, async () => {
        const result = await client.sendRequest<Record<string, unknown>>('agent/run', params, run.cancel.token);
        this.settle(run, applyResult(run.state, result));
      });
    } catch (err) {
      this.failed(run, err);
    } finally {
      run.cancel.dispose();
      this.active = undefined;
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
    void vscode.window.showErrorMessage(`harness9: the run failed: ${message}`, 'Show Log').then((c) => {
      if (c === 'Show Log') {
        this.daemon.output.show(true);
      }
    });
  }
}

/** Shows the run's `$/progress` as a cancellable notification; cancelling it cancels the run. */
async function withRunProgress(
  client: LanguageClient,
  token: string,
  cancel: vscode.CancellationTokenSource,
  body: () => Promise<void>,
): Promise<void> {
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'harness9', cancellable: true },
    async (progress, uiToken) => {
      const sub = client.onProgress(WorkDoneProgress.type, token, (v) => {
        if (v.kind !== 'end' && v.message) {
          progress.report({ message: v.message });
        }
      });
      let fallback: NodeJS.Timeout | undefined;
      const onCancel = uiToken.onCancellationRequested(() => {
        void client.sendNotification('window/workDoneProgress/cancel', { token });
        // Should the daemon not act on the progress cancel, cancel the request itself.
        fallback = setTimeout(() => cancel.cancel(), CANCEL_FALLBACK_MS);
      });
      try {
        await body();
      } finally {
        clearTimeout(fallback);
        sub.dispose();
        onCancel.dispose();
      }
    },
  );
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
