/**
 * The run view: a webview panel showing the runs of the current session. The extension posts
 * run states; the webview renders them with the same pure renderer the tests use.
 */
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import type { RunState } from './runState';

const POST_INTERVAL_MS = 50;

export class RunView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private runs: RunState[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** Opens the panel (or brings it forward) without taking the focus from the editor. */
  show(): void {
    if (this.panel) {
      this.panel.reveal(undefined, true);
      return;
    }
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const panel = vscode.window.createWebviewPanel(
      'harness9.run',
      'harness9 Run',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [dist] },
    );
    panel.webview.html = this.html(panel.webview, dist);
    panel.webview.onDidReceiveMessage((m: { type?: string }) => {
      if (m?.type === 'ready') {
        this.post();
      }
    });
    panel.onDidDispose(() => {
      this.panel = undefined;
    });
    this.panel = panel;
  }

  /** Adds a run (shown last) or replaces the one with the same index. */
  setRun(index: number, state: RunState): void {
    this.runs[index] = state;
    this.schedulePost();
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

  private post(): void {
    void this.panel?.webview.postMessage({ type: 'runs', runs: this.runs });
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
<title>harness9 Run</title></head>
<body><main id="runs"></main>
<script nonce="${nonce}" src="${script.toString()}"></script></body></html>`;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.panel?.dispose();
  }
}
