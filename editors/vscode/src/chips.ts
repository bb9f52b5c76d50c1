/**
 * Context chips, the pure part: what the user attached to the next prompt (a selection, a file,
 * a file's problems), as the composer shows it and as `agent/run` sends it (`context` items).
 * No `vscode` import: unit-tested, and the webview renders the chips.
 */

import type * as P from './protocol.generated';

/** An LSP range: 0-based lines and characters. */
export type LspRange = Readonly<P.Range>;

/**
 * One `context` item of `agent/run` (PROTOCOL.md, Attached editor context), as the chips attach
 * them: always a file's `uri` and a `kind` (images are not attached from the editor).
 */
export type ContextItem = Readonly<Pick<P.ContextItem, 'range' | 'text'> & Required<Pick<P.ContextItem, 'uri'>>> & {
  readonly kind: Exclude<P.ContextItem['kind'], 'image' | undefined>;
};

/** A chip as the composer shows it. */
export interface ChipView {
  readonly kind: ContextItem['kind'];
  readonly label: string;
  readonly title: string;
}

/** One problem of a file, as `vscode.languages.getDiagnostics` gives it (0-based position). */
export interface Problem {
  readonly line: number;
  readonly character: number;
  readonly severity: 'error' | 'warning' | 'info' | 'hint';
  readonly message: string;
  readonly source?: string;
}

/** The problems as text for the model: `12:5 error: name 'x' is not defined (pyright)`, 1-based. */
export function problemsText(problems: readonly Problem[]): string {
  return problems
    .map((p) => `${p.line + 1}:${p.character + 1} ${p.severity}: ${p.message.replace(/\s+/g, ' ').trim()}${p.source ? ` (${p.source})` : ''}`)
    .join('\n');
}

/** Lines `a-b` (1-based) of a range, `a` when it is one line; a range ending at column 0 stops the line before. */
export function lineSpan(range: LspRange): string {
  const first = range.start.line + 1;
  const last = range.end.character === 0 && range.end.line > range.start.line ? range.end.line : range.end.line + 1;
  return first === last ? `${first}` : `${first}-${last}`;
}

/** The chip of an item; `name` is the file's workspace-relative path. */
export function chipOf(item: ContextItem, name: string, count?: number): ChipView {
  switch (item.kind) {
    case 'selection': {
      const span = item.range ? `:${lineSpan(item.range)}` : '';
      return { kind: item.kind, label: `${base(name)}${span}`, title: `the selected lines of ${name}${span}` };
    }
    case 'diagnostics':
      return {
        kind: item.kind,
        label: `problems: ${base(name)} (${count ?? 0})`,
        title: `the problems VS Code reports for ${name}`,
      };
    default:
      return { kind: item.kind, label: base(name), title: name };
  }
}

function base(path: string): string {
  return path.split('/').pop() ?? path;
}
