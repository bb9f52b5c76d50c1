/**
 * Entry point of the harness9 extension: wires the daemon, the runner, the approver, the
 * restorer, the change viewer, the sessions and the chat view to the commands. The daemon starts
 * on the first command (or when the chat has a session to show) and stops when the extension
 * deactivates.
 */
import * as vscode from 'vscode';
import { Approver } from './approver';
import { ChangeViewer } from './changes';
import { CheckpointReviewer } from './checkpointReview';
import { ContextChips } from './contextChips';
import { CommandList } from './commandList';
import { Daemon } from './daemon';
import { onEditedThroughEditor } from './editedDocuments';
import { MentionFinder } from './mentionFinder';
import { withMentioned } from './mentions';
import { ModelChooser } from './modelChooser';
import { demoSettings, initOnboarding, pendingDemoPrompt, secretEnvironment, startDemo, storeApiKey } from './onboarding';
import { Restorer } from './restorer';
import { Runner } from './runner';
import { type ChatAction, RunView } from './runView';
import { SessionPicker } from './sessionPicker';
import { StatusItem } from './status';
import { TaskActions } from './taskActions';
import { type TaskNode, TaskView } from './taskView';

let daemon: Daemon | undefined;

export function activate(context: vscode.ExtensionContext): void {
  initOnboarding(context);
  const output = vscode.window.createOutputChannel('harness9');
  const view = new RunView(context.extensionUri);
  const status = new StatusItem();
  let runner: Runner | undefined;
  let tasks: TaskView | undefined;
  const approver = new Approver(view, () => runner?.workspaceRoot(), status, () => daemon?.takesApprovalContent() === true);
  daemon = new Daemon(
    output,
    (method, params) => {
      // A background task's progress goes to the Tasks view; the chat's to the chat.
      if (method === 'agent/progress' && !tasks?.onProgress(params as Record<string, unknown>)) {
        runner?.onProgress(params);
        onEditedThroughEditor(params, runner?.workspaceRoot());
      }
    },
    (params, token) => approver.handle(params, token),
  );
  daemon.setEnvironmentSource(secretEnvironment);
  daemon.settingsOverlay = demoSettings;
  daemon.setBundle(vscode.Uri.joinPath(context.extensionUri, 'dist', 'daemon').fsPath, context.globalStorageUri.fsPath);
  daemon.onDidChangeRunning((running) => {
    if (!running) {
      approver.clear();
    }
  });
  const d = daemon;
  runner = new Runner(d, view, status, context.workspaceState);
  const r = runner;
  const chips = new ContextChips(view);
  const sessions = new SessionPicker(d, r, view);
  new Restorer(d, view, () => r.workspaceRoot());
  const changes = new ChangeViewer(view, () => r.workspaceRoot());
  const since = new CheckpointReviewer(d, view, () => r.workspaceRoot());
  const models = new ModelChooser(d, view, () => r.sessionId);
  const commands = new CommandList(d, view, () => r.sessionId, () => r.workspaceRoot());
  const taskView = new TaskView(d, context.workspaceState);
  tasks = taskView;
  const background = new TaskActions(d, taskView, () => models.runParams());
  r.setHooks({
    newSessionParams: () => models.runParams(),
    sessionStarted: (id) => void models.sessionStarted(id),
    switchSession: (to) => (to.kind === 'clear' ? r.clearTo(to.sessionId) : void sessions.open(to.sessionId)),
    // `/model …` set the session's model: the picker shows it.
    commandRan: (name) => (name === 'model' ? void models.refresh() : undefined),
  });
  r.onDidChangeSession((kind, id) => void models.sessionChanged(kind, id));
  const newChat = (): void => {
    if (r.newSession()) {
      chips.take();
      view.focusPrompt();
    }
  };
  const send = (prompt: string): void => {
    if (!r.busy) {
      void r.runAgent(prompt, chips.take());
    }
  };
  const mentions = new MentionFinder(() => r.workspaceRoot());
  // The prompt box: a new run; while one goes, a message into it (Enter) or a queued prompt (Queue).
  // The files it names as `@path` go with it, after the chips.
  const sendFromBox = async (a: { prompt: string; queue?: boolean; plan?: boolean; background?: boolean }): Promise<void> => {
    const context = withMentioned(chips.take(), await mentions.attach(a.prompt));
    if (a.background) {
      await background.run(a.prompt, context);
    } else if (!r.busy) {
      await r.runAgent(a.prompt, context, { plan: a.plan });
    } else if (a.queue) {
      await r.runAgent(a.prompt, context, { queue: true, plan: a.plan });
    } else {
      await r.steer(a.prompt, context);
    }
  };
  // What a started daemon serves; before the first start the plan toggle shows (the bundled daemon has it).
  d.onDidChangeRunning((running) => {
    if (running) {
      const steering = d.supports('agent/steer');
      view.setComposer({ steering, planning: steering, tasks: d.supports('agent/tasks') });
    }
  });
  view.onRunAction((a) => {
    if (a.type === 'unqueue') {
      void r.unqueue(a.run);
    } else if (a.type === 'executePlan' && !r.busy) {
      void r.runAgent(undefined, chips.take(), { executePlan: true });
    }
  });
  view.onChatAction((a: ChatAction) => {
    switch (a.type) {
      case 'send':
        void sendFromBox(a);
        break;
      case 'mentions':
        void mentions.complete(a.query).then((paths) => view.setMentions(a.query, paths));
        break;
      case 'stop':
        void r.cancelRun();
        break;
      case 'newChat':
        newChat();
        break;
      case 'sessions':
        void sessions.pick();
        break;
      case 'openSession':
        void sessions.open(a.sessionId);
        break;
      case 'attach':
        chips.attach(a.kind);
        break;
      case 'removeChip':
        chips.remove(a.index);
        break;
      case 'setModel':
        void models.choose(a);
        break;
      case 'models':
        void models.refresh();
        break;
      case 'commands':
        void commands.refresh();
        break;
    }
  });
  // The demo's window: the chat comes to the front and runs the demo's prompt once it is ready.
  let demo = pendingDemoPrompt();
  if (demo !== undefined) {
    view.focusPrompt();
  }
  view.onReady(() => {
    if (demo !== undefined) {
      send(demo);
      demo = undefined;
    } else {
      void sessions.restore();
    }
  });
  context.subscriptions.push(
    output,
    view,
    status,
    approver,
    changes,
    since,
    taskView,
    background,
    d,
    vscode.commands.registerCommand('harness9.runAgent', (prompt?: unknown) =>
      r.runAgent(typeof prompt === 'string' ? prompt : undefined, chips.take()),
    ),
    vscode.commands.registerCommand('harness9.cancelRun', () => r.cancelRun()),
    vscode.commands.registerCommand('harness9.showLog', () => output.show(true)),
    vscode.commands.registerCommand('harness9.newSession', newChat),
    vscode.commands.registerCommand('harness9.showApproval', () => approver.showFirst()),
    vscode.commands.registerCommand('harness9.focusChat', () => view.focusPrompt()),
    vscode.commands.registerCommand('harness9.resumeSession', () => sessions.pick()),
    vscode.commands.registerCommand('harness9.askAboutSelection', () => {
      chips.attach('selection');
      view.focusPrompt();
    }),
    vscode.commands.registerCommand('harness9.attachFile', () => chips.attach('file')),
    vscode.commands.registerCommand('harness9.attachProblems', () => chips.attach('problems')),
    vscode.commands.registerCommand('harness9.storeApiKey', storeApiKey),
    vscode.commands.registerCommand('harness9.tryDemo', startDemo),
    vscode.commands.registerCommand('harness9.restartDaemon', () => d.restart()),
    vscode.commands.registerCommand('harness9.selectModel', () => models.pick()),
    vscode.commands.registerCommand('harness9.runInBackground', (prompt?: unknown) =>
      background.run(typeof prompt === 'string' ? prompt : undefined, chips.take()),
    ),
    vscode.commands.registerCommand('harness9.tasks.refresh', () => taskView.refresh()),
    vscode.commands.registerCommand('harness9.tasks.review', (n?: TaskNode) => background.review(n)),
    vscode.commands.registerCommand('harness9.tasks.apply', (n?: TaskNode) => background.apply(n)),
    vscode.commands.registerCommand('harness9.tasks.discard', (n?: TaskNode) => background.discard(n)),
    vscode.commands.registerCommand('harness9.tasks.stop', (n?: TaskNode) => background.stop(n)),
    vscode.commands.registerCommand('harness9.tasks.openFile', (n?: TaskNode) => background.openFile(n)),
  );
}

export async function deactivate(): Promise<void> {
  await daemon?.stop();
  daemon = undefined;
}
