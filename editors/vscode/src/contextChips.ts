/**
 * The chips of the next prompt: the active editor's selection, file or problems, attached with
 * one click (or "harness9: Ask About Selection"), removable, and sent as `context` items of
 * `agent/run`.
 */
import * as vscode from 'vscode';
import { type ChipView, chipOf, type ContextItem, type Problem, problemsText } from './chips';
import type { RunView } from './runView';

const SEVERITY: Readonly<Record<number, Problem['severity']>> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

export class ContextChips {
  private chips: { readonly item: ContextItem; readonly view: ChipView }[] = [];

  constructor(private readonly view: RunView) {}

  /** Attaches the active editor's `kind` (selection, file, problems); says why when it cannot. */
  attach(kind: string): void {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== 'file') {
      void vscode.window.showInformationMessage('harness9: open a file of the workspace in the editor first.');
      return;
    }
    const made = this.make(kind, editor);
    if (typeof made === 'string') {
      void vscode.window.showInformationMessage(`harness9: ${made}`);
      return;
    }
    // The same thing twice is once.
    const key = JSON.stringify(made.item);
    if (!this.chips.some((c) => JSON.stringify(c.item) === key)) {
      this.chips.push(made);
    }
    this.publish();
  }

  /** Removes the chip at `index` (the user clicked its ×). */
  remove(index: number): void {
    this.chips = this.chips.filter((_, i) => i !== index);
    this.publish();
  }

  /** The items to send with the next prompt; the chips go with them. */
  take(): ContextItem[] {
    const items = this.chips.map((c) => c.item);
    this.chips = [];
    this.publish();
    return items;
  }

  private make(kind: string, editor: vscode.TextEditor): { item: ContextItem; view: ChipView } | string {
    const doc = editor.document;
    const uri = doc.uri.toString();
    const name = vscode.workspace.asRelativePath(doc.uri, false);
    if (kind === 'selection') {
      const sel = editor.selection;
      if (sel.isEmpty) {
        return 'select some text first (or attach the whole file).';
      }
      const range = { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } };
      const item: ContextItem = { uri, range, text: doc.getText(sel), kind: 'selection' };
      return { item, view: chipOf(item, name) };
    }
    if (kind === 'problems') {
      const problems: Problem[] = vscode.languages.getDiagnostics(doc.uri).map((d) => ({
        line: d.range.start.line,
        character: d.range.start.character,
        severity: SEVERITY[d.severity] ?? 'info',
        message: d.message,
        source: d.source,
      }));
      if (problems.length === 0) {
        return `VS Code reports no problems in ${name}.`;
      }
      const item: ContextItem = { uri, text: problemsText(problems), kind: 'diagnostics' };
      return { item, view: chipOf(item, name, problems.length) };
    }
    const item: ContextItem = { uri, kind: 'file' };
    return { item, view: chipOf(item, name) };
  }

  private publish(): void {
    this.view.setComposer({ chips: this.chips.map((c) => c.view) });
  }
}
