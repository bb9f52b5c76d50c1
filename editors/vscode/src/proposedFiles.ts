/**
 * "Edit before allowing": the text a file call proposes, as an editable in-memory file. VS Code
 * opens it like any file (undo, language features, Ctrl+S); whoever listens for its save
 * (`onDidSaveTextDocument`) answers the question with its text. Nothing is written anywhere else.
 */
import * as vscode from 'vscode';

export const PROPOSED_SCHEME = 'harness9-proposed';

export class ProposedFiles implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  private readonly registration: vscode.Disposable;
  readonly onDidChangeFile = this.changed.event;

  constructor() {
    this.registration = vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, this, { isCaseSensitive: true });
  }

  /** A new proposed file named after `path` (workspace-relative), for the question `key`. */
  create(path: string, key: string, text: string): vscode.Uri {
    // The question in the query: the editor's tab and breadcrumbs show the file's own path.
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${path}`, query: key });
    this.files.set(uri.toString(), { data: new TextEncoder().encode(text), mtime: Date.now() });
    return uri;
  }

  /** Forgets the proposed files of the question `key`. */
  forget(key: string): void {
    for (const name of [...this.files.keys()]) {
      if (vscode.Uri.parse(name).query === key) {
        this.files.delete(name);
      }
    }
  }

  /** The question a proposed file belongs to, or undefined for any other file. */
  static keyOf(uri: vscode.Uri): string | undefined {
    return uri.scheme === PROPOSED_SCHEME ? uri.query : undefined;
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const file = this.get(uri);
    return { type: vscode.FileType.File, ctime: file.mtime, mtime: file.mtime, size: file.data.byteLength };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return this.get(uri).data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    this.get(uri); // only the files it made: no new ones
    this.files.set(uri.toString(), { data: content, mtime: Date.now() });
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }

  private get(uri: vscode.Uri): { data: Uint8Array; mtime: number } {
    const file = this.files.get(uri.toString());
    if (!file) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return file;
  }
}
