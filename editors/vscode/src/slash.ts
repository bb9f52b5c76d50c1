/**
 * Slash commands, the pure part: the answer of `agent/commands`, the completion list the prompt
 * box opens on `/`, and what a command's answer asks of the chat (another session after `/clear`
 * or `/resume ID`). No `vscode` import: the webview bundles it too.
 */
import type * as P from './protocol.generated';
import { type Open, received, receivedList } from './wire';

/** One command of `agent/commands`; a newer daemon's `source` passes. */
export type SlashCommand = Readonly<Open<P.CommandListed, 'source'>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The commands of an `agent/commands` answer, in its order (sorted by name). */
export function commandsFrom(result: unknown): SlashCommand[] {
  return receivedList<P.CommandListed>(received<P.CommandsResult>(result).commands)
    .filter((c) => NAME.test(str(c.name) ?? ''))
    .map((c) => {
      const hint = str(c.argumentHint)?.trim();
      return {
        name: str(c.name) as string,
        description: str(c.description)?.trim() ?? '',
        ...(hint ? { argumentHint: hint } : {}),
        source: str(c.source) ?? 'builtin',
      };
    });
}

/** A command's name: letters, digits, `-`, `_`, `:`. */
const NAME = /^[\w:-]+$/;

/**
 * What the user is typing as a command name: the text after a `/` that starts the prompt, up to
 * the caret, while no space follows the name yet; undefined when the box is not naming one.
 */
export function slashQuery(text: string, caret: number): string | undefined {
  const name = /^\/[\w:-]*/.exec(text)?.[0];
  if (name === undefined || caret < 1 || caret > name.length) {
    return undefined;
  }
  // `/usr/bin …` names no command: only a space or a new line may end the name.
  const next = text.charAt(name.length);
  return next === '' || next === ' ' || next === '\n' ? text.slice(1, caret) : undefined;
}

/**
 * The commands whose name starts with `query` (any case), then those that only contain it;
 * each group in the list's order.
 */
export function filterCommands(commands: readonly SlashCommand[], query: string): SlashCommand[] {
  const q = query.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...starts, ...contains];
}

/** The prompt box after a command is accepted: `/name `, ready for its arguments. */
/**
 * Where the highlight goes when the list is shown again (the query changed, or the daemon's list
 * arrived): on the command it was on, if that is still listed, else on the first. A refresh must
 * not move it under a user who is choosing with the arrow keys.
 */
export function keptHighlight(highlighted: string | undefined, shown: readonly SlashCommand[]): number {
  const index = highlighted === undefined ? -1 : shown.findIndex((c) => c.name === highlighted);
  return Math.max(index, 0);
}

export function acceptCommand(text: string, name: string): string {
  const rest = text.replace(/^\/[\w:-]*/, '').replace(/^ +/, '');
  return `/${name} ${rest}`;
}

/** Where a command's answer moves the chat: a new empty session, or a stored one to show. */
export interface SessionSwitch {
  readonly kind: 'clear' | 'resume';
  readonly sessionId: string;
}

/** The switch an `agent/run` answer asks for (`command` clear or resume, and another session). */
export function sessionSwitchOf(result: unknown, previous: string | undefined): SessionSwitch | undefined {
  const r = received<P.RunResult>(result);
  const command = str(r.command);
  const sessionId = str(r.sessionId);
  if ((command !== 'clear' && command !== 'resume') || sessionId === undefined || sessionId === previous) {
    return undefined;
  }
  return { kind: command, sessionId };
}
