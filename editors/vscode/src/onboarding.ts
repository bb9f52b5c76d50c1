/**
 * Getting started: when no provider is configured, the error offers the settings, storing an API
 * key in VS Code's secret storage (passed to the daemon it starts), and the offline demo (a copy
 * of the sample project in a new window, with the scripted model).
 */
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';

/** The keys the daemon reads from its environment, and their providers. */
export const SECRET_KEYS: readonly { readonly variable: string; readonly label: string }[] = [
  { variable: 'OPENAI_API_KEY', label: 'OpenAI (or an OpenAI-compatible service)' },
  { variable: 'ANTHROPIC_API_KEY', label: 'Anthropic' },
];

const DEMO_KEY = 'harness9.pendingDemo';
/** The demo projects this extension made, with their scripts (its own storage: no repository writes it). */
const DEMOS_KEY = 'harness9.demoProjects';
/** How many demo projects keep their scripted model (the newest). */
const MAX_DEMOS = 8;

interface DemoProject {
  readonly project: string;
  readonly replay: string;
}
/** The file that marks the demo's copy of the sample project (an activation event names it). */
export const DEMO_MARKER = '.vscode/harness9-demo.json';
const DEMO_PROMPT =
  'The tests of this project fail. Find the bug, fix it, add a regression test, and check that the whole suite passes.';

let context: vscode.ExtensionContext | undefined;
/** Keys stored or removed in this window: the daemon's restart does not wait on the store for them. */
const known = new Map<string, string | undefined>();
/** How long a start waits for the secret storage (a slow keychain must not hold the daemon up). */
const SECRET_TIMEOUT_MS = 3000;

function withTimeout<T>(p: Thenable<T>, fallback: T): Promise<T> {
  return Promise.race([Promise.resolve(p), new Promise<T>((resolve) => setTimeout(() => resolve(fallback), SECRET_TIMEOUT_MS))]);
}

/** Keeps the extension's context for the secrets and the demo files. */
export function initOnboarding(ctx: vscode.ExtensionContext): void {
  context = ctx;
}

/** The stored API keys, as environment variables for the daemon. */
export async function secretEnvironment(): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const { variable } of SECRET_KEYS) {
    const value = known.has(variable) ? known.get(variable) : await withTimeout(context?.secrets.get(variable) ?? Promise.resolve(undefined), undefined);
    if (value) {
      env[variable] = value;
    }
  }
  return env;
}

/** True for the daemon's "no LLM provider is configured" error. */
export function isNoProvider(message: string): boolean {
  return /no LLM provider is configured/i.test(message);
}

/** Shows a failed run's error, with the way out when it is the missing provider. */
export function offerOnboarding(message: string, showLog: () => void): void {
  if (!isNoProvider(message)) {
    void vscode.window.showErrorMessage(`harness9: the run failed: ${message}`, 'Show Log').then((c) => {
      if (c === 'Show Log') {
        showLog();
      }
    });
    return;
  }
  const choices = ['Store API Key', 'Open Settings', 'Try the Offline Demo'];
  void vscode.window
    .showErrorMessage('harness9: no LLM provider is configured. Store an API key, choose a provider, or try the offline demo.', ...choices)
    .then((c) => {
      if (c === 'Store API Key') {
        void storeApiKey();
      } else if (c === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'harness9');
      } else if (c === 'Try the Offline Demo') {
        void startDemo();
      }
    });
}

/** "harness9: Store API Key": into the secret storage; the daemon restarts with it. */
export async function storeApiKey(): Promise<void> {
  const pick = await vscode.window.showQuickPick(
    SECRET_KEYS.map((k) => ({ label: k.label, description: k.variable, variable: k.variable })),
    { title: 'harness9: Store API Key', placeHolder: 'Which provider is the key for?' },
  );
  if (!pick || !context) {
    return;
  }
  const value = await vscode.window.showInputBox({
    title: `harness9: ${pick.variable}`,
    prompt: 'Kept in VS Code\'s secret storage and given to the daemon only. Empty removes it.',
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) {
    return;
  }
  known.set(pick.variable, value.trim() || undefined);
  if (value.trim() === '') {
    await withTimeout(context.secrets.delete(pick.variable), undefined);
  } else {
    await withTimeout(context.secrets.store(pick.variable, value.trim()), undefined);
  }
  await vscode.commands.executeCommand('harness9.restartDaemon');
  void vscode.window.showInformationMessage(`harness9: ${pick.variable} ${value.trim() ? 'stored' : 'removed'}; the daemon restarted with it.`);
}

/** "harness9: Try the Offline Demo": the sample project, copied, opens in a new window. */
export async function startDemo(): Promise<void> {
  if (!context) {
    return;
  }
  const bundled = vscode.Uri.joinPath(context.extensionUri, 'dist', 'demo');
  const root = vscode.Uri.joinPath(context.globalStorageUri, `demo-${Date.now()}`);
  const project = vscode.Uri.joinPath(root, 'project');
  await fs.mkdir(project.fsPath, { recursive: true });
  await fs.cp(vscode.Uri.joinPath(bundled, 'sample').fsPath, project.fsPath, { recursive: true });
  const replay = vscode.Uri.joinPath(root, 'replay.json');
  await fs.copyFile(vscode.Uri.joinPath(bundled, 'replay.json').fsPath, replay.fsPath);
  // The scripted model is chosen in the extension's own storage, not in the project's workspace
  // settings: those cannot choose a provider or a script (machine scope), and must not.
  const demos = context.globalState.get<DemoProject[]>(DEMOS_KEY) ?? [];
  const entry = { project: project.fsPath, replay: replay.fsPath };
  await context.globalState.update(DEMOS_KEY, [entry, ...demos].slice(0, MAX_DEMOS));
  await fs.mkdir(vscode.Uri.joinPath(project, '.vscode').fsPath, { recursive: true });
  // Its presence activates the extension in the new window (package.json), which then opens the chat.
  await fs.writeFile(vscode.Uri.joinPath(project, ...DEMO_MARKER.split('/')).fsPath, '{"demo": true}\n');
  await context.globalState.update(DEMO_KEY, project.fsPath);
  await vscode.commands.executeCommand('vscode.openFolder', project, { forceNewWindow: true });
}

/**
 * In a window on a demo project this extension made: the scripted model and its script, over
 * the user's settings; nothing elsewhere.
 */
export function demoSettings(): Record<string, unknown> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const demo = (context?.globalState.get<DemoProject[]>(DEMOS_KEY) ?? []).find((d) => d.project === folder);
  return demo === undefined ? {} : { provider: 'replay', replayFile: demo.replay };
}

/** In the demo's new window: the chat opens and the demo's prompt runs. */
export function pendingDemoPrompt(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!context || folder === undefined || context.globalState.get<string>(DEMO_KEY) !== folder) {
    return undefined;
  }
  void context.globalState.update(DEMO_KEY, undefined);
  return DEMO_PROMPT;
}
