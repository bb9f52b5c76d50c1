/**
 * Answers the daemon's `agent/requestApproval`: each question becomes a card in the chat view
 * (brought forward when it is not on screen) and shows in the status bar item, and gets exactly one answer:
 * the user's, or a cancellation when the daemon withdraws it (the run was cancelled) or stops.
 * A file call's proposed text can be edited first: it opens in a diff editor beside the file's
 * text now, and saving it allows the call with the user's text (`content`).
 */
import * as vscode from 'vscode';
import { type CancellationToken, LSPErrorCodes, ResponseError } from 'vscode-languageclient/node';
import {
  answerFor,
  type ApprovalAnswer,
  type ApprovalCard,
  approvalCardFrom,
  applyUnifiedDiff,
  type Decision,
} from './approvals';
import { ProposedFiles } from './proposedFiles';
import type { ApprovalAction, RunView } from './runView';
import type { StatusItem } from './status';
import { VirtualTexts } from './virtualTexts';

const SCHEME = 'harness9-approval';

type Reply = ApprovalAnswer | ResponseError<void>;

interface Pending {
  readonly card: ApprovalCard;
  readonly finish: (reply: Reply) => void;
}

let counter = 0;

export class Approver implements vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  private readonly documents = new VirtualTexts(SCHEME);
  private readonly disposables: vscode.Disposable[] = [];
  private readonly proposed = new ProposedFiles();

  /** `workspaceRoot`: the folder the asking run works on (file tools' paths are relative to it). */
  constructor(
    private readonly view: RunView,
    private readonly workspaceRoot: () => vscode.Uri | undefined,
    private readonly status: StatusItem,
    /** Whether the daemon writes the user's own text of an allowed file call. */
    private readonly takesContent: () => boolean = () => false,
  ) {
    view.onApprovalAction((a) => this.acted(a));
    this.disposables.push(
      this.documents,
      this.proposed,
      vscode.workspace.onDidSaveTextDocument((doc) => this.savedProposal(doc)),
    );
  }

  /** The `agent/requestApproval` handler: resolves once, with the user's answer or a cancel. */
  handle(params: unknown, token: CancellationToken): Promise<Reply> {
    const id = `q${++counter}`;
    const card = { ...approvalCardFrom(id, params), editable: this.takesContent() };
    return new Promise<Reply>((resolve) => {
      let done = false;
      let cancelSub: vscode.Disposable | undefined;
      const finish = (reply: Reply): void => {
        if (done) {
          return;
        }
        done = true;
        cancelSub?.dispose();
        this.pending.delete(id);
        this.refresh();
        this.closeDiffs(id);
        resolve(reply);
      };
      this.pending.set(id, { card, finish });
      // The daemon withdraws the question ($/cancelRequest) when the run is cancelled.
      cancelSub = token.onCancellationRequested(() =>
        finish(new ResponseError(LSPErrorCodes.RequestCancelled, 'the question was withdrawn')),
      );
      this.refresh();
      if (!this.view.visible) {
        this.view.show();
      }
    });
  }

  /** "harness9: Show Approval Request": the view in front with the keyboard on the question. */
  showFirst(): void {
    if (this.pending.size === 0) {
      void vscode.window.showInformationMessage('harness9: no approval request is waiting.');
      return;
    }
    this.view.show(true);
  }

  /** The daemon stopped: nobody is left to answer, so every card goes. */
  clear(): void {
    for (const p of [...this.pending.values()]) {
      p.finish(new ResponseError(LSPErrorCodes.RequestCancelled, 'the daemon stopped'));
    }
  }

  private refresh(): void {
    const cards = [...this.pending.values()].map((p) => p.card);
    this.view.setApprovals(cards);
    this.status.update({ questions: cards.map((c) => ({ title: c.title, agent: c.agent })) });
  }

  private acted(action: ApprovalAction): void {
    const p = this.pending.get(action.id);
    if (!p) {
      return; // already answered or withdrawn
    }
    if (action.type === 'openDiff') {
      void this.openDiff(p.card);
      return;
    }
    if (action.type === 'editFirst') {
      void this.editFirst(p.card);
      return;
    }
    const option = p.card.options.find((o) => o.id === action.decision);
    if (option) {
      p.finish(answerFor(option.id as Decision, action.message));
    }
  }

  /** VS Code's diff editor: the file as it is now beside the file as the call would leave it. */
  private async openDiff(card: ApprovalCard): Promise<void> {
    if (card.diff === undefined || card.path === undefined) {
      return;
    }
    const texts = await this.texts(card);
    if (texts === undefined) {
      // The file changed since the daemon asked: show the change as the daemon sent it.
      const doc = await vscode.workspace.openTextDocument({ content: card.diff, language: 'diff' });
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.One });
      return;
    }
    const left = this.virtual(card, 'before', texts.before);
    const right = this.virtual(card, 'after', texts.after);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${card.path}: proposed change (harness9)`, {
      preview: true,
      viewColumn: this.besideView(),
    });
  }

  /**
   * "Edit before allowing": the proposed text, editable, beside the file's text now; saving it
   * (`savedProposal`) allows the call with the saved text.
   */
  private async editFirst(card: ApprovalCard): Promise<void> {
    const texts = card.path !== undefined ? await this.texts(card) : undefined;
    if (card.path === undefined || texts === undefined) {
      void vscode.window.showWarningMessage(`harness9: ${card.path ?? 'the file'} changed since the question was asked; answer it with its buttons`);
      return;
    }
    const left = this.virtual(card, 'before', texts.before);
    const right = this.proposed.create(card.path, card.id, texts.after);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${card.path}: edit, then save to allow (harness9)`, {
      preview: false,
      viewColumn: this.besideView(),
    });
  }

  /** A proposed text saved: its question is allowed, once, with the text as the user left it. */
  private savedProposal(doc: vscode.TextDocument): void {
    const key = ProposedFiles.keyOf(doc.uri);
    const p = key !== undefined ? this.pending.get(key) : undefined;
    p?.finish({ decision: 'allow_once', content: doc.getText() });
  }

  /** The file's text now and as the call would leave it; undefined when the diff no longer fits. */
  private async texts(card: ApprovalCard): Promise<{ before: string; after: string } | undefined> {
    if (card.diff === undefined || card.path === undefined) {
      return undefined;
    }
    const before = card.diff.startsWith('--- /dev/null') ? '' : await this.currentText(card.path);
    const content = (card.arguments as Record<string, unknown> | undefined)?.content;
    const after =
      card.tool === 'write_file' && typeof content === 'string'
        ? content
        : before !== undefined
          ? applyUnifiedDiff(before, card.diff)
          : undefined;
    return before === undefined || after === undefined ? undefined : { before, after };
  }

  /** Beside the run view, never over it: the question stays in sight while the diff is read. */
  private besideView(): vscode.ViewColumn {
    return this.view.column === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
  }

  /** An answered question's diff editor shows a change that is no longer proposed: close it. */
  private closeDiffs(id: string): void {
    const ours = (uri: vscode.Uri): boolean =>
      (uri.scheme === SCHEME && uri.query.startsWith(`${id}-`)) || ProposedFiles.keyOf(uri) === id;
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && ours(t.input.modified));
    if (tabs.length > 0) {
      void vscode.window.tabGroups.close(tabs, true).then(() => this.proposed.forget(id));
    } else {
      this.proposed.forget(id);
    }
    this.documents.forget(ours);
  }

  private virtual(card: ApprovalCard, side: string, text: string): vscode.Uri {
    return this.documents.put(this.documents.uri(`/${card.path}`, `${card.id}-${side}`), text);
  }

  /** The file's text as the daemon reads it: the open document, else the disk; undefined if unreadable. */
  private async currentText(relative: string): Promise<string | undefined> {
    const root = this.workspaceRoot();
    if (!root) {
      return undefined;
    }
    try {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(root, relative));
      return doc.getText();
    } catch {
      return undefined;
    }
  }

  dispose(): void {
    this.clear();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
