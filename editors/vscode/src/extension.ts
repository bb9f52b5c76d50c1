/**
 * Entry point of the harness9 extension: wires the daemon, the runner, the approver, the
 * restorer and the run view to the commands. The daemon starts on the first command and stops
 * when the extension deactivates.
 */
import * as vscode from 'vscode';
import { Approver } from './approver';
import { Daemon } from './daemon';
import { Restorer } from './restorer';
import { Runner } from './runner';
import { RunView } from './runView';

let daemon: Daemon | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('harness9');
  const view = new RunView(context.extensionUri);
  let runner: Runner | undefined;
  const approver = new Approver(view, () => runner?.workspaceRoot());
  daemon = new Daemon(
    output,
    (method, params) => {
      if (method === 'agent/progress') {
        runner?.onProgress(params);
      }
    },
    (params, token) => approver.handle(params, token),
  );
  daemon.onDidChangeRunning((running) => {
    if (!running) {
      approver.clear();
    }
  });
  runner = new Runner(daemon, view);
  const r = runner;
  new Restorer(daemon, view, () => r.workspaceRoot());
  context.subscriptions.push(
    output,
    view,
    approver,
    daemon,
    vscode.commands.registerCommand('harness9.runAgent', (prompt?: unknown) =>
      r.runAgent(typeof prompt === 'string' ? prompt : undefined),
    ),
    vscode.commands.registerCommand('harness9.cancelRun', () => r.cancelRun()),
    vscode.commands.registerCommand('harness9.showLog', () => output.show(true)),
    vscode.commands.registerCommand('harness9.newSession', () => r.newSession()),
    vscode.commands.registerCommand('harness9.showApproval', () => approver.showFirst()),
  );
}

export async function deactivate(): Promise<void> {
  await daemon?.stop();
  daemon = undefined;
}
