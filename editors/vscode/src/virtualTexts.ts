/**
 * Read-only documents of one of the extension's schemes: a text kept per URI (a file as it was
 * before a run, at a checkpoint, as a question proposes it, the empty side of a new or removed
 * file), served to the diff and multi-diff editors.
 */
import * as vscode from 'vscode';

export class VirtualTexts implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly registration: vscode.Disposable;

  constructor(readonly scheme: string) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, {
      provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? '',
    });
  }

  /** The URI of `path` with `query` in this scheme (the path's name gives the language). */
  uri(path: string, query: string): vscode.Uri {
    return vscode.Uri.from({ scheme: this.scheme, path, query });
  }

  /** Keep `text` as the document at `uri`; returns `uri`. */
  put(uri: vscode.Uri, text: string): vscode.Uri {
    this.texts.set(uri.toString(), text);
    return uri;
  }

  /** The text kept at `uri`, if any. */
  get(uri: vscode.Uri): string | undefined {
    return this.texts.get(uri.toString());
  }

  /** Forget the documents `drop` picks. */
  forget(drop: (uri: vscode.Uri) => boolean): void {
    for (const key of [...this.texts.keys()]) {
      if (drop(vscode.Uri.parse(key))) {
        this.texts.delete(key);
      }
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
