/**
 * Settings of the extension turned into what the daemon needs: its command line and the
 * `harness9` settings sent as `initializationOptions` and on `workspace/didChangeConfiguration`.
 * No `vscode` import: the extension passes a getter over its configuration section.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const DEFAULT_SERVER_COMMAND: readonly string[] = ['harness9', 'serve'];

/** Reads one setting of the `harness9` section. */
export type SettingGetter = (key: string) => unknown;

/**
 * The settings the daemon understands (mirrors the `agent/run` params of the protocol). The
 * daemon merges what it receives key by key, so a setting that means "the daemon's default" is
 * sent as null: that returns it to the default after an earlier value.
 */
export interface DaemonSettings {
  provider: string | null;
  model: string | null;
  maxTurns: number | null;
  toolTimeoutMs: number | null;
  thinking: boolean | null;
  stream: boolean | null;
  replayFile: string | null;
  editsThroughEditor: boolean | null;
  diagnosticsAfterEdit: boolean | null;
  diagnosticsWaitMs: number | null;
  approvals: ApprovalsSetting | null;
  /** Model-name prefix → US dollars per million tokens, over the daemon's table of list prices. */
  prices: Record<string, unknown> | null;
  /** The editor's folders and the daemon's, when the daemon runs elsewhere (ssh, a container). */
  pathMap: PathMapping[] | null;
}

/** One `harness9.pathMap` entry: a path or URI prefix here (`local`) and the daemon's (`remote`). */
export interface PathMapping {
  local: string;
  remote: string;
}

/** The daemon's `approvals` setting; a part left out takes the daemon's default. */
export interface ApprovalsSetting {
  mode?: string;
  allow?: string[];
  deny?: string[];
}

/** The approval modes the daemon knows; `default` in the settings means "the daemon's". */
export const APPROVAL_MODES: readonly string[] = ['auto', 'ask', 'auto-edit', 'yolo', 'read-only', 'plan'];

/** Splits a command line on whitespace; single or double quotes group words. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|([^\s'"]+)/g;
  let current = '';
  let inWord = false;
  let last = 0;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    const adjacent = inWord && m.index === last;
    if (!adjacent && inWord) {
      words.push(current);
      current = '';
    }
    current += m[1] ?? m[2] ?? m[3];
    inWord = true;
    last = re.lastIndex;
  }
  if (inWord) {
    words.push(current);
  }
  return words;
}

/** The daemon's argv from the `serverCommand` setting (array or string); default when unset. */
export function serverCommandFrom(value: unknown): string[] {
  if (Array.isArray(value)) {
    const argv = value.filter((v): v is string => typeof v === 'string' && v !== '');
    return argv.length > 0 ? argv : [...DEFAULT_SERVER_COMMAND];
  }
  if (typeof value === 'string' && value.trim() !== '') {
    return splitCommand(value);
  }
  return [...DEFAULT_SERVER_COMMAND];
}

const PROVIDERS = ['openai', 'anthropic', 'replay'];

function positiveInteger(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : null;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function boolean(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** Every setting to send; null for those that mean "the daemon's default" (or are invalid). */
export function daemonSettingsFrom(get: SettingGetter): DaemonSettings {
  const provider = get('provider');
  return {
    provider: typeof provider === 'string' && PROVIDERS.includes(provider) ? provider : null,
    model: nonEmpty(get('model')),
    maxTurns: positiveInteger(get('maxTurns')),
    toolTimeoutMs: positiveInteger(get('toolTimeoutMs')),
    thinking: boolean(get('thinking')),
    stream: boolean(get('stream')),
    replayFile: nonEmpty(get('replayFile')),
    editsThroughEditor: boolean(get('editsThroughEditor')),
    diagnosticsAfterEdit: boolean(get('diagnosticsAfterEdit')),
    diagnosticsWaitMs: positiveInteger(get('diagnosticsWaitMs')),
    approvals: approvalsFrom(get),
    prices: pricesFrom(get('prices')),
    pathMap: pathMapFrom(get('pathMap')),
  };
}

/**
 * `daemonSettingsFrom` with the values the extension itself chooses (`overlay`: the offline
 * demo's scripted model) over the settings. `get` reads VS Code's configuration, which takes a
 * machine-scoped setting (what chooses what runs) from the user's settings, never a workspace's.
 */
export function daemonSettingsOver(overlay: Record<string, unknown>, get: SettingGetter): DaemonSettings {
  return daemonSettingsFrom((k) => (Object.hasOwn(overlay, k) ? overlay[k] : get(k)));
}

/** `harness9.prices` as set (the daemon checks each entry and says what it ignores); null when
 * empty, so the daemon's own table applies. */
export function pricesFrom(value: unknown): Record<string, unknown> | null {
  const plain = typeof value === 'object' && value !== null && !Array.isArray(value);
  return plain && Object.keys(value).length > 0 ? { ...(value as Record<string, unknown>) } : null;
}

/** `harness9.pathMap`'s complete entries; null when there are none (the daemon maps nothing). */
export function pathMapFrom(value: unknown): PathMapping[] | null {
  const entries = Array.isArray(value)
    ? value.filter((e): e is PathMapping => typeof e === 'object' && e !== null
      && nonEmpty((e as PathMapping).local) !== null && nonEmpty((e as PathMapping).remote) !== null)
      .map((e) => ({ local: e.local.trim(), remote: e.remote.trim() }))
    : [];
  return entries.length > 0 ? entries : null;
}

function rules(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((r): r is string => typeof r === 'string' && r.trim() !== '').map((r) => r.trim())
    : [];
}

/**
 * `harness9.approvals.mode` / `.allow` / `.deny` as the daemon's `approvals` object; null when
 * all three are at their defaults, so the daemon's own default (ask) applies.
 */
export function approvalsFrom(get: SettingGetter): ApprovalsSetting | null {
  const mode = get('approvals.mode');
  const out: ApprovalsSetting = {};
  if (typeof mode === 'string' && APPROVAL_MODES.includes(mode)) {
    out.mode = mode;
  }
  const allow = rules(get('approvals.allow'));
  const deny = rules(get('approvals.deny'));
  if (allow.length > 0) {
    out.allow = allow;
  }
  if (deny.length > 0) {
    out.deny = deny;
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** Resolves a command the way a shell would (PATH lookup unless it has a slash); undefined if absent. */
export function findExecutable(
  command: string,
  envPath: string | undefined,
  cwd: string = process.cwd(),
): string | undefined {
  const candidates = command.includes('/')
    ? [path.resolve(cwd, command)]
    : (envPath ?? '').split(path.delimiter).filter((d) => d !== '').map((d) => path.join(d, command));
  return candidates.find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/** A text document filter as the language client takes it (`scheme` and a glob over the path). */
export interface DocumentFilter {
  scheme: string;
  pattern?: string;
}

/**
 * The documents whose buffers are synced to the daemon (open, incremental change, close, save):
 * the files under the workspace folders, so the agent reads what the user sees and edits land in
 * the editor. A folder whose path holds glob characters cannot be spelled as a pattern; then
 * every file is synced and the daemon keeps to its workspace.
 */
export function syncedDocuments(folders: readonly string[]): DocumentFilter[] {
  if (folders.length === 0) {
    return [];
  }
  if (folders.some((f) => /[*?[\]{}!]/.test(f))) {
    return [{ scheme: 'file' }];
  }
  return folders.map((f) => ({ scheme: 'file', pattern: `${f.replace(/\/+$/, '')}/**` }));
}
