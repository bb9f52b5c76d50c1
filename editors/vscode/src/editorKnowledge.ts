/**
 * What the editor knows, told to the daemon: the problems VS Code's language servers report for
 * a document (`harness9/diagnostics`, asked before and after each edit of the agent) and their
 * definition, references, workspace symbols, hover and rename (`harness9/languageQuery`, behind
 * the agent's find_definition, find_references, workspace_symbols, hover and rename_symbol).
 * Both are announced in `capabilities.experimental.harness9`.
 */
import * as vscode from 'vscode';
import {
  type CancellationToken,
  type ClientCapabilities,
  type Code2ProtocolConverter,
  ErrorCodes,
  LSPErrorCodes,
  ResponseError,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { hoverText, type HoverPart } from './hoverText';
import type * as P from './protocol.generated';
import { type Received, received } from './wire';

/** The kinds of `harness9/languageQuery` this client answers. */
export const LANGUAGE_FEATURES: readonly string[] = ['definition', 'references', 'symbols', 'hover', 'rename'] satisfies P.LanguageQueryParams['kind'][];

/**
 * After the first change of a document's problems past the edit: how long they must stay the
 * same to count as settled (a server may report its syntax check, then its type check).
 */
const SETTLE_MS = 400;
/** With no change of its problems since the edit: how long to wait for one before answering. */
const NO_NEWS_MS = 1000;
/**
 * The same for a file few language servers check: one the editor does not have open, or plain
 * text no server has reported problems of.
 */
const NO_NEWS_UNCHECKED_MS = 250;

/** Announces `diagnostics: true` and `languageFeatures` in `capabilities.experimental.harness9`. */
export class EditorKnowledgeFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    const ours = (experimental.harness9 ?? {}) as P.ClientCapabilities;
    capabilities.experimental = {
      ...experimental,
      harness9: { ...ours, diagnostics: true, languageFeatures: [...LANGUAGE_FEATURES] } satisfies P.ClientCapabilities,
    };
  }

  initialize(): void {}

  getState(): { kind: 'static' } {
    return { kind: 'static' };
  }

  clear(): void {}
}

function invalid(message: string): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, message);
}

function failed(message: string): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestFailed, message);
}

function uriOf(params: Received<P.DiagnosticsParams | P.LanguageQueryParams>): vscode.Uri {
  if (typeof params.uri !== 'string' || params.uri === '') {
    throw invalid('uri is required');
  }
  try {
    return vscode.Uri.parse(params.uri, true);
  } catch {
    throw invalid(`not a URI: ${params.uri}`);
  }
}

function positionOf(params: Received<P.LanguageQueryParams>): vscode.Position {
  const p = received<P.Position>(params.position);
  if (!Number.isInteger(p.line) || !Number.isInteger(p.character) || (p.line as number) < 0 || (p.character as number) < 0) {
    throw invalid('position {line, character} is required');
  }
  return new vscode.Position(p.line as number, p.character as number);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The workspace folder whose URI this is, if it is one. */
function folderOf(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
  const key = uri.toString().replace(/\/+$/, '');
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.toString().replace(/\/+$/, '') === key);
}

function inside(folder: vscode.WorkspaceFolder, uri: vscode.Uri): boolean {
  const top = folder.uri.path.replace(/\/+$/, '');
  return uri.scheme === folder.uri.scheme && uri.authority === folder.uri.authority && uri.path.startsWith(`${top}/`);
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

/**
 * Answers `harness9/diagnostics` from `vscode.languages.getDiagnostics`. With a `version` it waits
 * (at most `timeoutMs`) for the document to reach it and for its problems to settle after it:
 * once they changed, until they stay the same a moment; when they do not change, a little longer
 * (a moment only for a file that is not open, or plain text no server reported on).
 */
export class ProblemsAnswerer implements vscode.Disposable {
  /** When each document's problems last changed (ms since the epoch), by URI. */
  private readonly problemsChanged = new Map<string, number>();
  /** When each open document reached each of its latest versions, by URI. */
  private readonly versionsReached = new Map<string, Map<number, number>>();
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      this.changed,
      vscode.languages.onDidChangeDiagnostics((e) => {
        const now = Date.now();
        for (const uri of e.uris) {
          this.problemsChanged.set(uri.toString(), now);
        }
        this.changed.fire();
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        const key = e.document.uri.toString();
        const versions = this.versionsReached.get(key) ?? new Map<number, number>();
        if (!versions.has(e.document.version)) {
          versions.set(e.document.version, Date.now());
        }
        // The newest few are enough: the daemon asks about the version its edit just made.
        for (const old of [...versions.keys()].filter((v) => v < e.document.version - 20)) {
          versions.delete(old);
        }
        this.versionsReached.set(key, versions);
        this.changed.fire();
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.versionsReached.delete(d.uri.toString());
        this.changed.fire();
      }),
    ];
  }

  async answer(raw: unknown, converter: Code2ProtocolConverter, token: CancellationToken): Promise<P.DiagnosticsResult> {
    const params = received<P.DiagnosticsParams>(raw);
    const uri = uriOf(params);
    const folder = folderOf(uri);
    if (folder !== undefined) {
      const items = [];
      for (const [file, found] of vscode.languages.getDiagnostics()) {
        if (found.length > 0 && inside(folder, file)) {
          items.push({ uri: file.toString(), diagnostics: await converter.asDiagnostics(found) });
        }
      }
      return { items };
    }
    const version = Number.isInteger(params.version) ? (params.version as number) : undefined;
    const timeoutMs = typeof params.timeoutMs === 'number' && params.timeoutMs > 0 ? Math.min(params.timeoutMs, 60_000) : 0;
    if (timeoutMs > 0) {
      await this.settled(uri, version, Date.now() + timeoutMs, token);
    }
    const document = openDocument(uri);
    const diagnostics = await converter.asDiagnostics(vscode.languages.getDiagnostics(uri));
    return document !== undefined ? { diagnostics, version: document.version } : { diagnostics };
  }

  /** Resolves when the document's problems have settled after `version`, or at `deadline`. */
  private async settled(uri: vscode.Uri, version: number | undefined, deadline: number, token: CancellationToken): Promise<void> {
    const key = uri.toString();
    const asked = Date.now();
    for (;;) {
      const now = Date.now();
      if (now >= deadline || token.isCancellationRequested) {
        return;
      }
      const document = openDocument(uri);
      // Since when the problems count: the edit's version reached (or the question, when the
      // document is not open or asked without a version).
      let since: number | undefined = asked;
      if (version !== undefined && document !== undefined) {
        since = document.version >= version ? this.versionsReached.get(key)?.get(version) ?? asked : undefined;
      }
      if (since !== undefined) {
        const last = this.problemsChanged.get(key);
        const unchecked = document === undefined || (document.languageId === 'plaintext' && last === undefined);
        const quietUntil = last !== undefined && last >= since ? last + SETTLE_MS : since + (unchecked ? NO_NEWS_UNCHECKED_MS : NO_NEWS_MS);
        if (now >= quietUntil) {
          return;
        }
        await this.nextChange(Math.min(quietUntil, deadline) - now, token);
      } else {
        await this.nextChange(deadline - now, token);
      }
    }
  }

  /** Resolves on the next change of problems or documents, after `ms`, or on cancellation. */
  private nextChange(ms: number, token: CancellationToken): Promise<void> {
    return new Promise((resolve) => {
      const subscriptions: vscode.Disposable[] = [];
      const timer = setTimeout(done, Math.max(0, ms));
      function done(): void {
        clearTimeout(timer);
        subscriptions.forEach((s) => s.dispose());
        resolve();
      }
      subscriptions.push(this.changed.event(done), token.onCancellationRequested(done));
    });
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

/** A definition's place: a location link becomes the location of the name it points at. */
function placeOf(found: vscode.Location | vscode.LocationLink, converter: Code2ProtocolConverter): unknown {
  if ('targetUri' in found) {
    return { uri: converter.asUri(found.targetUri), range: converter.asRange(found.targetSelectionRange ?? found.targetRange) };
  }
  return converter.asLocation(found);
}

/**
 * Answers `harness9/languageQuery` with VS Code's language features (the `vscode.execute…Provider`
 * commands), in LSP shapes: `{locations}`, `{symbols}`, `{hover}` or `{edit: {changes}}`.
 */
export async function answerLanguageQuery(raw: unknown, converter: Code2ProtocolConverter): Promise<P.LanguageQueryResult> {
  const params = received<P.LanguageQueryParams>(raw);
  const kind = params.kind;
  if (typeof kind !== 'string' || !LANGUAGE_FEATURES.includes(kind)) {
    throw invalid(`unknown kind ${JSON.stringify(kind)}: one of ${LANGUAGE_FEATURES.join(', ')}`);
  }
  const uri = uriOf(params);
  if (kind === 'symbols') {
    const query = typeof params.query === 'string' ? params.query : '';
    const found = await ask<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', query);
    const symbols = (found ?? []).map((s) => {
      const w = converter.asWorkspaceSymbol(s);
      return { name: w.name, kind: w.kind, location: w.location };
    });
    return { symbols };
  }
  const position = positionOf(params);
  // The language servers answer about documents the editor has open (or loads now).
  try {
    await vscode.workspace.openTextDocument(uri);
  } catch (err) {
    throw failed(`cannot open ${uri.fsPath || uri.toString()}: ${errorText(err)}`);
  }
  switch (kind) {
    case 'definition': {
      const found = await ask<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', uri, position);
      return { locations: (found ?? []).map((f) => placeOf(f, converter)) };
    }
    case 'references': {
      const found = await ask<vscode.Location[]>('vscode.executeReferenceProvider', uri, position);
      return { locations: (found ?? []).map((f) => converter.asLocation(f)) };
    }
    case 'hover': {
      const found = await ask<vscode.Hover[]>('vscode.executeHoverProvider', uri, position);
      return { hover: hoverText((found ?? []).flatMap((h) => h.contents as HoverPart[])) };
    }
    default: {
      const newName = typeof params.newName === 'string' ? params.newName.trim() : '';
      if (newName === '') {
        throw invalid('newName is required');
      }
      const edit = await ask<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', uri, position, newName);
      if (edit === undefined || edit === null || edit.size === 0) {
        throw failed('the language server renames nothing at this position');
      }
      const changes: Record<string, unknown[]> = {};
      for (const [file, edits] of edit.entries()) {
        changes[converter.asUri(file)] = edits.map((e) => converter.asTextEdit(e));
      }
      return { edit: { changes } };
    }
  }
}

/** Runs one of VS Code's language feature commands; its failure is the answer's error. */
async function ask<T>(command: string, ...args: unknown[]): Promise<T | undefined> {
  try {
    return await vscode.commands.executeCommand<T>(command, ...args);
  } catch (err) {
    throw failed(`the language server failed: ${errorText(err)}`);
  }
}
