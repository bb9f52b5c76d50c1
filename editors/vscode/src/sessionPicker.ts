/**
 * Stored sessions in the chat: "harness9: Resume Session" lists them (title, time, turns) to
 * resume or delete, the chat shows the session it continues again when it opens (after a reload
 * or a restart), and an empty chat lists the recent ones. All need a daemon that keeps sessions
 * (`agent/sessions` among its methods).
 */
import * as vscode from 'vscode';
import type { Daemon } from './daemon';
import { request } from './requests';
import type { Runner } from './runner';
import type { RunView } from './runView';
import { runsFromSession, type SessionSummary, sessionRow, sessionsFrom, withCheckpoints } from './sessions';

const DELETE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Delete this session' };

interface Row extends vscode.QuickPickItem {
  readonly session: SessionSummary;
}

export class SessionPicker {
  constructor(
    private readonly daemon: Daemon,
    private readonly runner: Runner,
    private readonly view: RunView,
  ) {
    // Sessions are offered from the start; a daemon that came up without them takes them away.
    this.offer(true);
    daemon.onDidChangeRunning((running) => {
      if (running) {
        this.offer(daemon.supports('agent/sessions'));
      }
    });
    // A new, empty chat lists the others to go back to.
    runner.onDidChangeSession((kind) => {
      if (kind === 'new') {
        void this.listRecent();
      }
    });
  }

  /** Shows or hides the Sessions button (under the prompt, and in the view's title bar). */
  private offer(sessions: boolean): void {
    this.view.setComposer({ sessions });
    void vscode.commands.executeCommand('setContext', 'harness9.sessions', sessions);
  }

  /** "harness9: Resume Session": a quick pick of the stored sessions of this workspace. */
  async pick(): Promise<void> {
    const client = await this.daemon.ensureStarted();
    if (!client) {
      return;
    }
    if (!this.daemon.supports('agent/sessions')) {
      void vscode.window.showInformationMessage('harness9: this daemon does not keep sessions (it has no agent/sessions).');
      return;
    }
    const qp = vscode.window.createQuickPick<Row>();
    qp.title = 'harness9: Resume Session';
    qp.placeholder = 'Pick a conversation to continue';
    qp.matchOnDescription = true;
    const load = async (): Promise<void> => {
      qp.busy = true;
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.toString();
      const result = await request(client, 'agent/sessions', folder ? { workspaceFolder: folder } : {}).catch(() => undefined);
      const now = Date.now();
      qp.items = sessionsFrom(result).map((s) => ({ ...sessionRow(s, now), session: s, buttons: [DELETE] }));
      qp.busy = false;
    };
    qp.onDidTriggerItemButton(async (e) => {
      await request(client, 'agent/deleteSession', { sessionId: e.item.session.sessionId }).catch(() => undefined);
      if (this.runner.sessionId === e.item.session.sessionId) {
        this.runner.newSession();
      }
      await load();
    });
    qp.onDidAccept(() => {
      const row = qp.selectedItems[0];
      qp.hide();
      if (row) {
        void this.open(row.session.sessionId);
      }
    });
    qp.onDidHide(() => qp.dispose());
    qp.show();
    await load();
  }

  /**
   * When the chat view opens: the daemon starts (so the first prompt does not wait for it), and
   * the chat shows the session it continues, if the daemon still has it; else the empty chat
   * lists the workspace's recent chats.
   */
  async restore(): Promise<void> {
    if (this.idle()) {
      await this.daemon.ensureStarted();
    }
    const id = this.runner.sessionId;
    if (id !== undefined && this.runner.sessionStored && this.daemon.supports('agent/session') && this.idle()) {
      await this.open(id, true);
    }
    if (this.idle()) {
      await this.listRecent();
    }
  }

  /** True while the chat shows nothing and nothing runs: a session may be shown in it. */
  private idle(): boolean {
    return this.view.shownRuns.length === 0 && !this.runner.busy;
  }

  /** The empty chat's list of the workspace's stored sessions (none from a daemon without them). */
  private async listRecent(): Promise<void> {
    const client = this.daemon.supports('agent/sessions') ? await this.daemon.ensureStarted() : undefined;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.toString();
    const result = client === undefined ? undefined : await request(client, 'agent/sessions', folder ? { workspaceFolder: folder } : {}).catch(() => undefined);
    this.view.setRecent(sessionsFrom(result));
  }

  /** Shows the stored session in the chat and continues it (`quiet`: no error message). */
  async open(sessionId: string, quiet = false): Promise<void> {
    const client = await this.daemon.ensureStarted();
    if (!client) {
      return;
    }
    try {
      const result = await request(client, 'agent/session', { sessionId });
      // Each turn's "Restore to here" comes back too.
      const checkpoints = this.daemon.supports('agent/checkpoints')
        ? await request(client, 'agent/checkpoints', { sessionId }).catch(() => undefined)
        : undefined;
      if (quiet && this.runner.busy) {
        return; // a prompt sent meanwhile: its run is the chat now
      }
      this.runner.resume(sessionId, withCheckpoints(runsFromSession(result), checkpoints));
      this.view.show();
    } catch (err) {
      if (!quiet) {
        void vscode.window.showErrorMessage(`harness9: cannot open the session: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
