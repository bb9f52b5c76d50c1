/**
 * `@` mentions against the workspace: the paths that complete what is typed (one folder at a
 * time, as a shell does, plus files anywhere whose name holds it), and the files a prompt names,
 * as `file` context items of `agent/run`.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ContextItem } from './chips';
import { type FolderEntry, mentionedPaths, mentionMatches, mentionPlace, SKIPPED } from './mentions';

/** Files found anywhere by name, at most. */
const FOUND = 20;

export class MentionFinder {
  constructor(private readonly root: () => vscode.Uri | undefined) {}

  /** The workspace paths that complete `typed` (folders end with `/`). */
  async complete(typed: string): Promise<string[]> {
    const root = this.root();
    const place = mentionPlace(typed);
    if (!root || !place) {
      return [];
    }
    const folder = place.folder === '' ? root : vscode.Uri.joinPath(root, ...place.folder.split('/'));
    const listed = await vscode.workspace.fs.readDirectory(folder).then(
      (entries) => entries.map(([name, type]): FolderEntry => ({ name, folder: (type & vscode.FileType.Directory) !== 0 })),
      () => [],
    );
    const near = mentionMatches(listed, place.folder, place.start);
    return [...new Set([...near, ...(await this.byName(root, typed))])];
  }

  /** Files anywhere in the workspace whose name holds `typed` (a plain name: no `/`, no glob). */
  private async byName(root: vscode.Uri, typed: string): Promise<string[]> {
    if (typed === '' || /[/\\*?[\]{}]/.test(typed)) {
      return [];
    }
    const exclude = `**/{${[...SKIPPED].join(',')}}/**`;
    const found = await vscode.workspace.findFiles(new vscode.RelativePattern(root, `**/*${typed}*`), exclude, FOUND);
    return found.map((uri) => path.posix.relative(root.path, uri.path)).sort();
  }

  /** The files `prompt` names as `@path` that are files of the workspace, as context items. */
  async attach(prompt: string): Promise<ContextItem[]> {
    const root = this.root();
    if (!root) {
      return [];
    }
    const items: ContextItem[] = [];
    for (const mentioned of mentionedPaths(prompt)) {
      const uri = vscode.Uri.joinPath(root, ...mentioned.split('/'));
      const stat = await vscode.workspace.fs.stat(uri).then((s) => s, () => undefined);
      if (stat !== undefined && (stat.type & vscode.FileType.File) !== 0 && (await inside(root, uri))) {
        items.push({ uri: uri.toString(), kind: 'file' });
      }
    }
    return items;
  }
}

/** Whether `uri` is in `root` also once links are followed (the daemon refuses one that leads out). */
async function inside(root: vscode.Uri, uri: vscode.Uri): Promise<boolean> {
  if (root.scheme !== 'file') {
    return true;
  }
  try {
    const [top, real] = await Promise.all([fs.realpath(root.fsPath), fs.realpath(uri.fsPath)]);
    return real.startsWith(top.endsWith(path.sep) ? top : top + path.sep);
  } catch {
    return false;
  }
}
