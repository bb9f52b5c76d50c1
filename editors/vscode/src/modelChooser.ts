/**
 * The model of the chat: the picker in the chat's footer and "harness9: Select Model" list what
 * `agent/models` answers; a choice goes to the session with `agent/setModel`. A chat without a
 * session yet keeps the choice, sends it with its first `agent/run` and stores it with the session
 * the run starts.
 */
import * as vscode from 'vscode';
import type { Daemon } from './daemon';
import {
  EFFORTS, type Effort, effortLabel, type ModelChoice, modelFacts, modelLabel, type ModelList, modelListFrom, runParamsOf,
  sameModel, setModelParams, stillServed, takesEffort,
} from './models';
import type * as P from './protocol.generated';
import { request } from './requests';
import type { RunView } from './runView';

const EMPTY: ModelList = { models: [], current: undefined, errors: [], providers: [] };

interface ModelRow extends vscode.QuickPickItem {
  readonly choice?: ModelChoice;
}

export class ModelChooser {
  private list: ModelList = EMPTY;
  /** False once a daemon without `agent/models` runs. */
  private available = true;
  /** The choice not yet stored with a session: the next new session's first run takes it. */
  private pending: ModelChoice | undefined;
  /** The user's latest choice in this window, which a new chat keeps. */
  private last: ModelChoice | undefined;

  constructor(
    private readonly daemon: Daemon,
    private readonly view: RunView,
    private readonly sessionOf: () => string | undefined,
  ) {
    daemon.onDidChangeRunning((running) => {
      if (running) {
        void this.refresh();
      } else {
        this.post();
      }
    });
  }

  /** The model shown: the one chosen for the next new session, else the session's (or default). */
  get shown(): ModelChoice | undefined {
    return this.pending ?? this.list.current;
  }

  /** Asks `agent/models` again (for the chat's session) and shows the answer. */
  async refresh(): Promise<void> {
    const client = await this.daemon.ensureStarted();
    this.available = client === undefined || this.daemon.supports('agent/models');
    if (!client || !this.available) {
      this.list = EMPTY;
      this.post();
      return;
    }
    const sessionId = this.sessionOf();
    try {
      const result = await request(client, 'agent/models', sessionId !== undefined ? { sessionId } : {});
      this.list = modelListFrom(result);
      this.forgetUnserved();
    } catch (err) {
      this.list = { ...EMPTY, errors: [`models: ${err instanceof Error ? err.message : String(err)}`] };
    }
    this.post();
  }

  /** A choice kept for new chats whose provider the daemon no longer serves gives way to its default. */
  private forgetUnserved(): void {
    if (this.last !== undefined && !stillServed(this.list, this.last)) {
      this.last = undefined;
    }
    if (this.pending !== undefined && !stillServed(this.list, this.pending)) {
      this.pending = undefined;
    }
  }

  /** The user chose a model (and effort): the session's from now on, or the next new session's. */
  async choose(choice: ModelChoice): Promise<void> {
    this.last = choice;
    const sessionId = this.sessionOf();
    if (sessionId === undefined) {
      this.pending = choice;
      this.post();
      return;
    }
    this.pending = undefined;
    await this.store(sessionId, choice);
  }

  /** The `agent/run` params of a run that starts a new session: the model chosen for it. */
  runParams(): P.RunParams {
    return this.pending !== undefined ? runParamsOf(this.pending) : {};
  }

  /** A run started the chat's session: the model chosen before it is stored with it. */
  async sessionStarted(sessionId: string): Promise<void> {
    const choice = this.pending;
    this.pending = undefined;
    if (choice !== undefined) {
      await this.store(sessionId, choice);
    } else {
      await this.refresh();
    }
  }

  /**
   * The chat moved to another session: a new or cleared one keeps the user's latest choice
   * (`/clear` names its new session, which gets it at once); a resumed one has its own model.
   */
  async sessionChanged(kind: 'new' | 'clear' | 'resume', sessionId?: string): Promise<void> {
    this.pending = kind === 'resume' ? undefined : this.last;
    if (kind === 'clear' && sessionId !== undefined && this.pending !== undefined) {
      await this.sessionStarted(sessionId);
      return;
    }
    await this.refresh();
  }

  /** "harness9: Select Model": a quick pick of the models, then of the effort where it applies. */
  async pick(): Promise<void> {
    await this.refresh();
    if (this.list.models.length === 0) {
      const why = this.list.errors.length > 0 ? `: ${this.list.errors.join('; ')}` : '';
      void vscode.window.showInformationMessage(`harness9: no models to choose from${why}`);
      return;
    }
    const row = await vscode.window.showQuickPick(this.rows(), {
      title: 'harness9: Select Model',
      placeHolder: this.shown ? `In use: ${modelLabel(this.shown)}` : 'Pick the model of the chat',
      matchOnDescription: true,
    });
    if (row?.choice === undefined) {
      return;
    }
    const effort = takesEffort(this.list.models, row.choice) ? await pickEffort(this.shown?.reasoningEffort ?? 'default') : 'default';
    if (effort !== undefined) {
      await this.choose({ ...row.choice, reasoningEffort: effort });
    }
  }

  private rows(): ModelRow[] {
    const shown = this.shown;
    const rows: ModelRow[] = [];
    let provider: string | undefined;
    for (const m of this.list.models) {
      if (m.provider !== provider) {
        provider = m.provider;
        rows.push({ label: provider, kind: vscode.QuickPickItemKind.Separator });
      }
      const current = shown !== undefined && sameModel(m, shown);
      rows.push({
        label: `${current ? '$(check) ' : ''}${modelLabel({ provider: m.provider, model: m.id })}`,
        description: modelFacts(m),
        choice: { provider: m.provider, model: m.id, reasoningEffort: current ? shown.reasoningEffort : 'default' },
      });
    }
    for (const e of this.list.errors) {
      rows.push({ label: `$(warning) ${e}`, alwaysShow: true });
    }
    return rows;
  }

  private async store(sessionId: string, choice: ModelChoice): Promise<void> {
    const client = await this.daemon.ensureStarted();
    if (client && this.daemon.supports('agent/setModel')) {
      try {
        await request(client, 'agent/setModel', setModelParams(sessionId, choice));
      } catch (err) {
        void vscode.window.showErrorMessage(`harness9: could not change the model: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    await this.refresh();
  }

  private post(): void {
    const shown = this.shown;
    this.view.setModels({
      models: this.list.models,
      current: shown,
      errors: this.list.errors,
      effort: takesEffort(this.list.models, shown),
      available: this.available,
    });
  }
}

async function pickEffort(current: Effort): Promise<Effort | undefined> {
  const rows = EFFORTS.map((e) => ({ label: `${e === current ? '$(check) ' : ''}${effortLabel(e)}`, effort: e }));
  const row = await vscode.window.showQuickPick(rows, { title: 'harness9: Reasoning Effort', placeHolder: 'How hard the model thinks' });
  return row?.effort;
}
