/**
 * Entry point of the harness9 extension: wires the daemon, the runner and the run view to the
 * four commands. The daemon starts on the first command and stops when the extension deactivates.
 */
import * as vscode from 'vscode';
import { Daemon } from './daemon';
import { Runner } from './runner';
import { RunView } from './runView';

let daemon: Daemon | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('harness9');
  const view = new RunView(context.extensionUri);
  let runner: Runner | undefined;
  daemon = new Daemon(output, (method, params) => {
    if (method === 'agent/progress') {
      runner?.onProgress(params);
    }
  });
  runner = new Runner(daemon, view);
  const r = runner;
  context.subscriptions.push(
    output,
    view,
    daemon,
    vscode.commands.registerCommand('harness9.runAgent', (prompt?: unknown) =>
      r.runAgent(typeof prompt === 'string' ? prompt : undefined),
    ),
    vscode.commands.registerCommand('harness9.cancelRun', () => r.cancelRun()),
    vscode.commands.registerCommand('harness9.showLog', () => output.show(true)),
    vscode.commands.registerCommand('harness9.newSession', () => r.newSession()),
  );
}

export async function deactivate(): Promise<void> {
  await daemon?.stop();
  daemon = undefined;
}
