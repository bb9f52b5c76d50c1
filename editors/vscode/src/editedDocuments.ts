/**
 * After an agent edit through the editor: the daemon applied it to the open document
 * (`workspace/applyEdit`, so it is one step of the editor's undo) and then wrote the same text to
 * disk. VS Code still takes the buffer for modified and the file for changed behind its back; the
 * document is saved when (and only when) its text is the file's, so it shows as unmodified and a
 * later save of the user's meets no "the content of the file is newer" conflict.
 */
import * as vscode from 'vscode';
import { isKind, type ProgressNotification } from './wire';

/** The open document of `uri`, if VS Code holds one. */
function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

/** The file's text as UTF-8 (a BOM dropped, as the editor does); undefined when unreadable. */
async function diskText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/** Saves `document` when it is modified with the text its file on disk has; true when it did. */
async function settle(document: vscode.TextDocument): Promise<boolean> {
  if (!document.isDirty) {
    return false;
  }
  const disk = await diskText(document.uri);
  if (disk === undefined || disk !== document.getText()) {
    return false;
  }
  return document.save();
}

/**
 * Saves the document of `path` (workspace-relative) under `root` when the agent's edit left it
 * modified with the text the file on disk has; true when it did. A document the user changed
 * since, or one in another encoding, is left alone.
 */
export async function settleEditedDocument(root: vscode.Uri, path: string): Promise<boolean> {
  const document = openDocument(vscode.Uri.joinPath(root, ...path.split('/')));
  return document !== undefined ? settle(document) : false;
}

/**
 * Follows `agent/progress`: each `tool_completed` with `via: "editor"` settles its document; a
 * rename (`rename_symbol`, which names no one file) settles every document of the workspace it
 * left modified as its file.
 */
export function onEditedThroughEditor(params: unknown, root: vscode.Uri | undefined): void {
  if (root === undefined || params === null || typeof params !== 'object') {
    return;
  }
  const n = params as ProgressNotification;
  if (!isKind(n, 'tool_completed')) {
    return;
  }
  if (n.via === 'editor' && typeof n.path === 'string') {
    void settleEditedDocument(root, n.path).catch(() => false);
  } else if (n.tool === 'rename_symbol') {
    const top = `${root.path.replace(/\/+$/, '')}/`;
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === root.scheme && document.uri.path.startsWith(top)) {
        void settle(document).catch(() => false);
      }
    }
  }
}
