/**
 * The harness9 daemon as a language client: starts `harness9 serve` (or `harness9.serverCommand`),
 * says clearly when it cannot, restarts it when it crashes, keeps its settings in step and stops it.
 * It announces that it answers `agent/requestApproval` and passes those questions on, and answers
 * the daemon's questions about what the editor knows: problems and language features.
 */
import * as vscode from 'vscode';
import {
  type CancellationToken,
  type ClientCapabilities,
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandlerResult,
  LanguageClient,
  type LanguageClientOptions,
  type Message,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { bundledDaemon } from './bundled';
import { DEFAULT_SERVER_COMMAND, daemonSettingsOver, findExecutable, serverCommandFrom, syncedDocuments } from './config';
import { answerLanguageQuery, EditorKnowledgeFeature, ProblemsAnswerer } from './editorKnowledge';
import type * as P from './protocol.generated';
import { flagsOf, methodsOf } from './requests';

const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function section(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('harness9');
}

/** Restarts the daemon after a crash, unless it crashed too often in a short time. */
class CrashHandler {
  private restarts: number[] = [];

  constructor(
    private readonly hasStarted: () => boolean,
    private readonly onCrash: () => void,
  ) {}

  error(_error: Error, _message: Message | undefined, count: number | undefined): ErrorHandlerResult {
    return { action: count !== undefined && count <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown };
  }

  closed(): CloseHandlerResult {
    if (!this.hasStarted()) {
      // It never came up: starting again would fail the same way; start() reports why.
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    this.onCrash();
    const now = Date.now();
    this.restarts = [...this.restarts.filter((t) => now - t < RESTART_WINDOW_MS), now];
    if (this.restarts.length > MAX_RESTARTS) {
      return {
        action: CloseAction.DoNotRestart,
        message: 'The harness9 daemon stopped 5 times in 3 minutes and will not be restarted. See "harness9: Show Log".',
      };
    }
    return { action: CloseAction.Restart, message: 'The harness9 daemon stopped; restarting it.' };
  }
}

/** Answers one `agent/requestApproval` (resolves with the answer, or a ResponseError). */
export type ApprovalHandler = (params: unknown, token: CancellationToken) => Promise<unknown>;

/** Tells the daemon, in `capabilities.experimental.harness9`, that this client answers approval requests. */
export class ApprovalRequestsFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    const ours = (experimental.harness9 ?? {}) as P.ClientCapabilities;
    capabilities.experimental = { ...experimental, harness9: { ...ours, approvalRequests: true } satisfies P.ClientCapabilities };
  }

  initialize(): void {}

  getState(): { kind: 'static' } {
    return { kind: 'static' };
  }

  clear(): void {}
}

export class Daemon implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  /** The `serverCommand` and `python` settings the latest start read. */
  private launchedWith: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly stateListeners: ((running: boolean) => void)[] = [];
  /** The methods of the daemon's `capabilities.experimental.harness9`, read when it came up. */
  private methods: readonly string[] = [];
  /** The true flags of its `capabilities.experimental.harness9` (`approvalContent`, `restorePreview`), read when it came up. */
  private flags: readonly string[] = [];
  /** Variables added to the daemon's environment (API keys kept in VS Code's secret storage). */
  private extraEnv: () => Promise<Record<string, string>> = () => Promise.resolve({});
  /** Settings the extension itself chooses over the user's (the offline demo's scripted model); read at each send. */
  settingsOverlay: () => Record<string, unknown> = () => ({});
  /** The daemon bundled with the extension (dist/daemon), run when `harness9` is not on PATH, and where it is unpacked. */
  private bundle: { readonly dir: string; readonly storage: string } | undefined;
  /** Answers `harness9/diagnostics`; watches problems and documents from the start. */
  private readonly problems = new ProblemsAnswerer();

  constructor(
    readonly output: vscode.OutputChannel,
    private readonly onNotification: (method: string, params: unknown) => void,
    private readonly onApprovalRequest: ApprovalHandler,
  ) {
    this.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => this.configChanged(e)), this.problems);
  }

  /** Called with false whenever the daemon stops (its sessions are gone), true when it runs. */
  onDidChangeRunning(listener: (running: boolean) => void): void {
    this.stateListeners.push(listener);
  }

  /** Where the bundled daemon is (the extension's dist/daemon folder) and where to unpack it. */
  setBundle(dir: string, storage: string): void {
    this.bundle = { dir, storage };
  }

  /** Where the daemon's extra environment comes from; read each time it starts. */
  setEnvironmentSource(source: () => Promise<Record<string, string>>): void {
    this.extraEnv = source;
  }

  /** True when the daemon (the running one, else the last one) serves `method`. */
  supports(method: keyof P.ProtocolMethods): boolean {
    return this.methods.includes(method);
  }
  /** Whether the running daemon writes the user's own text of an allowed file call ("Edit before allowing"). */
  takesApprovalContent(): boolean {
    return this.flags.includes('approvalContent' satisfies keyof P.ServerCapabilities);
  }

  /** Whether the running daemon previews a restore (`agent/restore {dryRun, files}`, the session's own files only). */
  previewsRestores(): boolean {
    return this.flags.includes('restorePreview' satisfies keyof P.ServerCapabilities);
  }

  /** The running client, starting the daemon if needed; undefined when it cannot start. */
  async ensureStarted(): Promise<LanguageClient | undefined> {
    const client = this.client;
    if (client) {
      // Running: resolves at once; restarting after a crash: waits for it; stopped after too
      // many crashes: starts it again, since the user asks for it.
      try {
        await client.start();
        return client;
      } catch (err) {
        this.failed(serverCommandFrom(section().get('serverCommand')), errorText(err));
        return undefined;
      }
    }
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<LanguageClient | undefined> {
    this.launchedWith = launchSettings();
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const command = await this.command(cwd);
    if (command === undefined) {
      return undefined;
    }
    const { argv, env } = command;
    const client = this.createClient(argv, cwd, { ...process.env, ...env, ...(await this.extraEnv().catch(() => ({}))) });
    try {
      await client.start();
    } catch (err) {
      this.failed(argv, errorText(err));
      await client.dispose().catch(() => undefined);
      return undefined;
    }
    this.client = client;
    return client;
  }

  /**
   * The command that starts the daemon: `harness9.serverCommand`, else (the default command not on
   * PATH) the bundled daemon; undefined, after saying why, when there is none.
   */
  private async command(cwd: string | undefined): Promise<{ argv: string[]; env: Record<string, string> } | undefined> {
    const argv = serverCommandFrom(section().get('serverCommand'));
    if (findExecutable(argv[0], process.env.PATH, cwd) !== undefined) {
      return { argv, env: {} };
    }
    const isDefault = argv.join(' ') === DEFAULT_SERVER_COMMAND.join(' ');
    const bundle = this.bundle;
    const python = (section().get<string>('python') ?? '').trim();
    // The first start unpacks the bundle, which takes a few seconds: say so in the status bar.
    const bundled = isDefault && bundle !== undefined
      ? await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'harness9: preparing the bundled daemon' },
        () => bundledDaemon(bundle.dir, bundle.storage, python, process.env.PATH),
      )
      : undefined;
    if (bundled === undefined) {
      this.failed(argv, argv[0].includes('/') ? 'no such program' : `"${argv[0]}" is not on PATH`);
      return undefined;
    }
    if ('error' in bundled) {
      this.failed(argv, bundled.error, 'harness9.python');
      return undefined;
    }
    this.output.appendLine(`harness9 is not on PATH: running the daemon bundled with the extension: ${bundled.argv.join(' ')}`);
    return bundled;
  }

  private createClient(argv: string[], cwd: string | undefined, env: NodeJS.ProcessEnv): LanguageClient {
    const serverOptions: ServerOptions = {
      command: argv[0],
      args: argv.slice(1),
      // The daemon inherits the editor's environment (where API keys come from) and the keys
      // stored in VS Code's secret storage.
      options: { cwd, env },
    };
    const clientOptions: LanguageClientOptions = {
      // The workspace's files are synced, so the agent reads the buffers and edits through them.
      documentSelector: syncedDocuments((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath)),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // A function: a restarted daemon gets the settings of the moment.
      initializationOptions: () => daemonSettingsOver(this.settingsOverlay(), (k) => section().get(k)),
      errorHandler: new CrashHandler(
        () => this.client !== undefined,
        () => this.notifyRunning(false),
      ),
      initializationFailedHandler: () => false,
    };
    const client = new LanguageClient('harness9', 'harness9', serverOptions, clientOptions);
    client.registerFeature(new ApprovalRequestsFeature());
    client.registerFeature(new EditorKnowledgeFeature());
    client.onRequest('agent/requestApproval', (params: unknown, token) => this.onApprovalRequest(params, token));
    client.onRequest('harness9/diagnostics', (params: unknown, token) => this.problems.answer(params, client.code2ProtocolConverter, token));
    client.onRequest('harness9/languageQuery', (params: unknown) => answerLanguageQuery(params, client.code2ProtocolConverter));
    client.onNotification('agent/progress', (params: unknown) => this.onNotification('agent/progress', params));
    // The daemon's log messages repeat lines of its stderr, which the log already shows.
    client.onNotification('window/logMessage', () => undefined);
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.methods = methodsOf(client);
        this.flags = flagsOf(client);
      }
      this.notifyRunning(e.newState === State.Running);
    });
    return client;
  }

  private notifyRunning(running: boolean): void {
    for (const l of this.stateListeners) {
      l(running);
    }
  }

  private failed(argv: string[], reason: string, setting = 'harness9.serverCommand'): void {
    const cmd = argv.join(' ');
    this.output.appendLine(`Could not start the harness9 daemon (${cmd}): ${reason}`);
    const fix = setting === 'harness9.serverCommand' ? ' Install harness9 or set "harness9.serverCommand".' : '.';
    void vscode.window
      .showErrorMessage(
        `harness9: could not start the daemon (${cmd}): ${reason}${fix}`,
        'Show Log',
        'Open Settings',
      )
      .then((choice) => {
        if (choice === 'Show Log') {
          this.output.show(true);
        } else if (choice === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', setting);
        }
      });
  }

  private configChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('harness9')) {
      return;
    }
    if (e.affectsConfiguration('harness9.serverCommand') || e.affectsConfiguration('harness9.python')
      || e.affectsConfiguration('harness9.pathMap')) {
      // A daemon running or starting with the old command is restarted (once it is up); one
      // that already read the new command is not restarted again (VS Code may report one change
      // of a settings file more than once). With none, the next start reads the new command.
      const running = this.client !== undefined || this.starting !== undefined;
      if (running && launchSettings() !== this.launchedWith) {
        void this.restart();
        return;
      }
      if (!running) {
        return;
      }
      // The command stayed (e.g. a workspace's value, which machine scope ignores, came or went):
      // the change may carry other settings, which the running daemon gets below.
    }
    // A daemon starting now may have read the old settings: it gets the new ones once it is up.
    const client = this.client?.isRunning() ? Promise.resolve(this.client) : this.starting;
    void client?.then((c) => {
      const settings = { harness9: daemonSettingsOver(this.settingsOverlay(), (k) => section().get(k)) };
      return c?.sendNotification('workspace/didChangeConfiguration', { settings });
    }).catch(() => undefined); // a daemon that stopped meanwhile gets them when it starts
  }

  /** Stops the daemon if it runs and starts it again (new environment, new settings). */
  async restart(): Promise<void> {
    // A start in progress ends first; otherwise the restart would wait for it and start nothing new.
    await this.starting;
    const old = this.client;
    this.client = undefined;
    await old?.stop().catch(() => undefined);
    await this.ensureStarted();
  }

  /** Stops the daemon (shutdown + exit); safe to call when it is not running. */
  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client?.isRunning()) {
      await client.stop(5000).catch(() => undefined);
    }
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** What decides which daemon runs: the `serverCommand` and `python` settings. */
function launchSettings(): string {
  // `pathMap` too: the workspace folders the daemon was started on are mapped with it.
  return JSON.stringify([section().get('serverCommand'), section().get('python'), section().get('pathMap')]);
}
