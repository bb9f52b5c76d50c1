/**
 * `@` mentions in the prompt box, the pure part: the `@path` being typed, what completing it
 * does to the box, which workspace entries match, and the paths a prompt names (each attached
 * as a `file` context item, as the terminal client does). No `vscode` import.
 */
import type { ContextItem } from './chips';

/** Folders never offered: version control, dependencies, build output. */
export const SKIPPED = new Set([
  '.git', '.hg', '.svn', 'node_modules', '.venv', 'venv', '__pycache__', '.mypy_cache',
  '.pytest_cache', '.ruff_cache', '.tox', 'dist', 'build', 'target', '.next', '.cache',
]);
/** Entries of one folder offered at most. */
export const MAX_LISTED = 200;

/** The `@path` being typed just before the caret (`''` right after the `@`), else undefined. */
export function mentionQuery(text: string, caret: number): string | undefined {
  return /(?:^|\s)@(\S*)$/.exec(text.slice(0, caret))?.[1];
}

/** The box after completing the `@path` before the caret to `path` (a file gets a space after it). */
export function acceptMention(text: string, caret: number, path: string): { text: string; caret: number } {
  const typed = mentionQuery(text, caret) ?? '';
  const start = caret - typed.length;
  const put = path.endsWith('/') ? path : `${path} `;
  const after = text.slice(caret);
  const rest = put.endsWith(' ') && after.startsWith(' ') ? after.slice(1) : after;
  return { text: text.slice(0, start) + put + rest, caret: start + put.length };
}

/** An entry of a workspace folder: its name, and whether it is a folder. */
export interface FolderEntry {
  readonly name: string;
  readonly folder: boolean;
}

/**
 * Where to look for `typed`: the folder part (`src/lib` of `src/lib/ma`, `''` at the top) and
 * the start of the name; undefined when it leaves the workspace (`..`, an absolute path).
 */
export function mentionPlace(typed: string): { folder: string; start: string } | undefined {
  const cut = typed.lastIndexOf('/');
  const folder = cut < 0 ? '' : typed.slice(0, cut);
  if (typed.startsWith('/') || typed.split('/').includes('..')) {
    return undefined;
  }
  return { folder, start: typed.slice(cut + 1) };
}

/**
 * The workspace paths (relative, `/` after a folder) of `entries`, the listing of `folder`, that
 * start with `start`: folders first, then by name; skipped folders left out.
 */
export function mentionMatches(entries: readonly FolderEntry[], folder: string, start: string): string[] {
  const prefix = folder === '' ? '' : `${folder}/`;
  return entries
    .filter((e) => e.name.startsWith(start) && !(e.folder && SKIPPED.has(e.name)))
    .sort((a, b) => Number(b.folder) - Number(a.folder) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, MAX_LISTED)
    .map((e) => prefix + e.name + (e.folder ? '/' : ''));
}

/** The paths a prompt names as `@path` (trailing punctuation left out), each once, in order. */
export function mentionedPaths(prompt: string): string[] {
  const found = [...prompt.matchAll(/(?:^|(?<=\s))@(\S+)/g)].map((m) => m[1].replace(/[.,;:!?)]+$/, ''));
  return [...new Set(found.filter((p) => p !== '' && mentionPlace(p) !== undefined))];
}

/** The context of a prompt: the chips, then the files it mentions that no chip attached already. */
export function withMentioned(context: readonly ContextItem[], mentioned: readonly ContextItem[]): ContextItem[] {
  const has = new Set(context.filter((c) => c.kind === 'file').map((c) => c.uri));
  return [...context, ...mentioned.filter((m) => !has.has(m.uri))];
}
