/**
 * What the chat view's webview sends, as the extension reads it: the user's answers to
 * questions, actions on runs, and the prompt box's and buttons' actions. A message that is not
 * one of them (or lacks a field) is dropped.
 */
import { type Effort, effortOf } from './models';

/** What the webview sends when the user acts on a question. */
export type ApprovalAction =
  | { readonly type: 'decide'; readonly id: string; readonly decision: string; readonly message?: string }
  | { readonly type: 'openDiff'; readonly id: string }
  | { readonly type: 'editFirst'; readonly id: string };

/**
 * What the webview sends when the user acts on a run: open a file or a change, review the run's
 * changes, restore a checkpoint.
 */
export type RunAction =
  | { readonly type: 'openFile'; readonly run: number; readonly path: string; readonly line?: number; readonly column?: number }
  | { readonly type: 'openChange'; readonly run: number; readonly toolCallId: string }
  | { readonly type: 'review'; readonly run: number }
  | { readonly type: 'restore'; readonly run: number; readonly checkpointId: string }
  /** The files the session changed since a checkpoint, in the diff editor. */
  | { readonly type: 'reviewSince'; readonly run: number; readonly checkpointId: string }
  | { readonly type: 'unqueue'; readonly run: number }
  | { readonly type: 'executePlan'; readonly run: number };

/** What the webview sends from the prompt box and the view's buttons. */
export type ChatAction =
  /**
   * The prompt box: `queue` puts it in the session's queue; otherwise it starts a run (`plan`:
   * plan only), or, while one runs, goes into it (a steer); `background`: a task of its own in
   * a git worktree, whatever the chat is doing.
   */
  | { readonly type: 'send'; readonly prompt: string; readonly queue?: boolean; readonly plan?: boolean; readonly background?: boolean }
  | { readonly type: 'stop' }
  | { readonly type: 'newChat' }
  | { readonly type: 'sessions' }
  /** A chat of the empty view's list, to continue. */
  | { readonly type: 'openSession'; readonly sessionId: string }
  | { readonly type: 'attach'; readonly kind: string }
  | { readonly type: 'removeChip'; readonly index: number }
  /** The footer's model picker: a model (and effort) chosen, or the list wanted again. */
  | { readonly type: 'setModel'; readonly provider: string; readonly model: string; readonly reasoningEffort: Effort }
  | { readonly type: 'models' }
  /** The prompt box started a slash command: the list wanted again. */
  | { readonly type: 'commands' }
  /** The prompt box is typing `@query`: the workspace paths completing it wanted. */
  | { readonly type: 'mentions'; readonly query: string };

/** The chat action a message is, if any. */
export function chatActionFrom(m: Record<string, unknown>): ChatAction | undefined {
  switch (m.type) {
    case 'send':
      return typeof m.prompt === 'string'
        ? { type: 'send', prompt: m.prompt, queue: m.queue === true, plan: m.plan === true, ...(m.background === true ? { background: true } : {}) }
        : undefined;
    case 'stop':
    case 'newChat':
    case 'sessions':
    case 'models':
    case 'commands':
      return { type: m.type };
    case 'setModel':
      return typeof m.provider === 'string' && typeof m.model === 'string'
        ? { type: 'setModel', provider: m.provider, model: m.model, reasoningEffort: effortOf(m.reasoningEffort) }
        : undefined;
    case 'attach':
      return typeof m.kind === 'string' ? { type: 'attach', kind: m.kind } : undefined;
    case 'mentions':
      return typeof m.query === 'string' ? { type: 'mentions', query: m.query } : undefined;
    case 'openSession':
      return typeof m.sessionId === 'string' ? { type: 'openSession', sessionId: m.sessionId } : undefined;
    case 'removeChip':
      return typeof m.index === 'number' ? { type: 'removeChip', index: m.index } : undefined;
    default:
      return undefined;
  }
}

/** The run action a message is, if any. */
export function runActionFrom(m: Record<string, unknown>): RunAction | undefined {
  const run = typeof m.run === 'number' ? m.run : undefined;
  if (run === undefined) {
    return undefined;
  }
  if (m.type === 'openFile' && typeof m.path === 'string') {
    const at = typeof m.line === 'number' && m.line > 0
      ? { line: m.line, column: typeof m.column === 'number' && m.column > 0 ? m.column : 1 }
      : {};
    return { type: 'openFile', run, path: m.path, ...at };
  }
  if (m.type === 'openChange' && typeof m.toolCallId === 'string') {
    return { type: 'openChange', run, toolCallId: m.toolCallId };
  }
  if ((m.type === 'restore' || m.type === 'reviewSince') && typeof m.checkpointId === 'string') {
    return { type: m.type, run, checkpointId: m.checkpointId };
  }
  if (m.type === 'unqueue' || m.type === 'executePlan' || m.type === 'review') {
    return { type: m.type, run };
  }
  return undefined;
}
