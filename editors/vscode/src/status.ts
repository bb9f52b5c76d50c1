/**
 * The status bar item: idle, running (turn N and what the daemon reports), or waiting for the
 * user's approval. Clicking it shows the chat, or the question when one is open.
 */
import * as vscode from 'vscode';
import { type AgentActivity, statusText } from './activity';

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 1000);
  private activity: AgentActivity = { running: false, questions: [] };

  constructor() {
    this.item.name = 'harness9';
    this.render();
    this.item.show();
  }

  update(change: Partial<AgentActivity>): void {
    this.activity = { ...this.activity, ...change };
    this.render();
  }

  private render(): void {
    const { text, tooltip, asking } = statusText(this.activity);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.command = asking ? 'harness9.showApproval' : 'harness9.focusChat';
    this.item.backgroundColor = asking ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
