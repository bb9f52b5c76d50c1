/**
 * The slash commands the chat's prompt box completes: `agent/commands` for the chat's session and
 * workspace folder, asked again each time the user starts typing one (custom commands are files
 * the user may just have written).
 */
import type * as vscode from 'vscode';
import type { Daemon } from './daemon';
import type * as P from './protocol.generated';
import { request } from './requests';
import type { RunView } from './runView';
import { commandsFrom } from './slash';

export class CommandList {
  constructor(
    private readonly daemon: Daemon,
    private readonly view: RunView,
    private readonly sessionOf: () => string | undefined,
    private readonly folderOf: () => vscode.Uri | undefined,
  ) {}

  /** Asks the daemon for its commands and gives them to the prompt box. */
  async refresh(): Promise<void> {
    const client = await this.daemon.ensureStarted();
    if (!client || !this.daemon.supports('agent/commands')) {
      return;
    }
    const params: P.CommandsParams = {};
    const sessionId = this.sessionOf();
    const folder = this.folderOf();
    if (sessionId !== undefined) {
      params.sessionId = sessionId;
    }
    if (folder !== undefined) {
      params.workspaceFolder = folder.toString();
    }
    try {
      this.view.setCommands(commandsFrom(await request(client, 'agent/commands', params)));
    } catch {
      // The list stays as it was; a prompt starting with `/name` still runs the command.
    }
  }
}
