/**
 * The run view: a webview panel showing the runs of the current session and the approval
 * questions open now. The extension posts run states and questions; the webview renders them
 * with the same pure renderer the tests use and posts back the user's answers.
 */
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import type { ApprovalCard } from './approvals';
import type { RunState } from './runState';

/** What the webview sends when the user acts on a question. */
export type ApprovalAction =
  | { readonly type: 'decide'; readonly id: string; readonly decision: string; readonly message?: string }
  | { readonly type: 'openDiff'; readonly id: string };

/** What the webview sends when the user acts on a run: open a changed file, restore a checkpoint. */
export type RunAction =
  | { readonly type: 'openFile'; readonly run: number; readonly path: string }
  | { readonly type: 'restore'; readonly run: number; readonly checkpointId: string };

const POST_INTERVAL_MS = 50;

export class RunView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private runs: RunState[] = [];
  private approvals: readonly ApprovalCard[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly actionListeners: ((action: ApprovalAction) => void)[] = [];
  private readonly runActionListeners: ((action: RunAction) => void)[] = [];

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** Called when the user answers a question or asks for its diff in the view. */
  onApprovalAction(listener: (action: ApprovalAction) => void): void {
    this.actionListeners.push(listener);
  }

  /** Called when the user opens a changed file or asks to restore a checkpoint in the view. */
  onRunAction(listener: (action: RunAction) => void): void {
    this.runActionListeners.push(listener);
  }

  /** True when the panel is open and on screen (not behind another tab). */
  get visible(): boolean {
    return this.panel?.visible ?? false;
  }

  /** The editor column the panel is in, if it is open. */
  get column(): vscode.ViewColumn | undefined {
    return this.panel?.viewColumn;
  }

  /**
   * Opens the panel (or brings it forward), by default without taking the focus from the
   * editor; `focus` also moves the keyboard to the first open question.
   */
  show(focus = false): void {
    if (this.panel) {
      this.panel.reveal(undefined, !focus);
      if (focus) {
        void this.panel.webview.postMessage({ type: 'focusApproval' });
      }
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
    panel.webview.onDidReceiveMessage((m: unknown) => this.received(m));
    panel.onDidDispose(() => {
      this.panel = undefined;
    });
    this.panel = panel;
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

  private post(): void {
    void this.panel?.webview.postMessage({ type: 'runs', runs: this.runs });
  }

  private postApprovals(): void {
    void this.panel?.webview.postMessage({ type: 'approvals', approvals: this.approvals });
  }

  private received(raw: unknown): void {
    const m = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    if (m.type === 'ready') {
      this.post();
      this.postApprovals();
      return;
    }
    const run = typeof m.run === 'number' ? m.run : undefined;
    if (run !== undefined && m.type === 'openFile' && typeof m.path === 'string') {
      this.runActionListeners.forEach((l) => l({ type: 'openFile', run, path: m.path as string }));
      return;
    }
    if (run !== undefined && m.type === 'restore' && typeof m.checkpointId === 'string') {
      this.runActionListeners.forEach((l) => l({ type: 'restore', run, checkpointId: m.checkpointId as string }));
      return;
    }
    if (typeof m.id !== 'string') {
      return;
    }
    if (m.type === 'decide' && typeof m.decision === 'string') {
      const message = typeof m.message === 'string' ? m.message : undefined;
      this.emit({ type: 'decide', id: m.id, decision: m.decision, message });
    } else if (m.type === 'openDiff') {
      this.emit({ type: 'openDiff', id: m.id });
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
<title>harness9 Run</title></head>
<body><main id="runs"></main><aside id="approvals" aria-live="assertive"></aside>
<script nonce="${nonce}" src="${script.toString()}"></script></body></html>`;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.panel?.dispose();
  }
}
