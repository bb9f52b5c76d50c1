/**
 * The state of one agent run, rebuilt from `agent/progress` notifications by a pure reducer.
 *
 * No `vscode` import: the reducer is unit-tested on recorded notification sequences and also
 * bundled into the run view's webview. It is idempotent on duplicate `seq` numbers and ignores
 * kinds and fields it does not know, because the protocol only grows. Each kind is read as its
 * protocol type (src/protocol.generated.ts), so a field the protocol renames does not compile.
 */
import type * as P from './protocol.generated';
import { type Open, type Progress, type ProgressKind, type ProgressNotification, type Received, received, receivedList } from './wire';

export type { ProgressNotification } from './wire';

/** `queued`: waiting in the session's queue behind the run in progress (`queued` progress). */
export type RunStatus = 'queued' | 'starting' | 'running' | 'completed' | 'max_turns' | 'cancelled' | 'error';
/** `waiting`: asked the user, not started; `refused`: denied by the settings or rejected by the user. */
export type ToolStatus = 'waiting' | 'running' | 'ok' | 'failed' | 'refused';

/** What the approval step did with a call (absent: the mode simply allowed it). */
export interface ApprovalView {
  /** The question shown to the user (`approval_requested`), e.g. `bash: npm test`. */
  readonly title?: string;
  /** From `approval_resolved`: `allow_once`, `allow_session`, `reject` (user), `allow`, `deny`. */
  readonly decision?: string;
  /** From `approval_resolved`: `user`, `rule`, `session`, `mode`. */
  readonly by?: string;
  readonly rule?: string;
  /** Why it was asked (`approval_requested` `reason`), e.g. `was stopped by the OS sandbox (…)`. */
  readonly reason?: string;
  /** The call asks to run outside the OS sandbox (bash's `escalate` argument). */
  readonly escalate?: boolean;
  /**
   * Asked after the call had started: the sandbox stopped its command, and the question is
   * whether to run it again outside. It ran once, whatever the answer.
   */
  readonly afterStart?: boolean;
}

/** Where a command ran (`sandbox` of bash's `tool_started` / `tool_completed`). */
export type SandboxName = 'bwrap' | 'landlock' | 'none';

/** One file a bash call changed (`changedFiles` of its `tool_completed`); a newer daemon's status passes. */
export type ChangedFile = Readonly<Open<P.ChangedFile, 'status'>>;

/** A workspace snapshot taken around a turn's tool batch (progress kind `checkpoint`). */
export interface CheckpointView {
  readonly checkpointId: string;
  readonly turn: number;
  /** The paths that changed since the previous checkpoint (empty for a run's first). */
  readonly files: readonly string[];
  /** True when taken before any tool of its turn started (the snapshot before the batch). */
  readonly beforeTools: boolean;
  /** True once a restore to an earlier checkpoint dropped it (the daemon no longer has it). */
  readonly dropped?: boolean;
}

/** What the last "Restore to here" of this run did, or why it failed. */
export interface RestoreView {
  readonly checkpointId: string;
  readonly restored?: readonly string[];
  readonly error?: string;
}

export interface ToolItem {
  readonly id: string;
  readonly name: string;
  /** What the tool does, as it declares (`toolKind`): `read`, `edit`, `execute` or `other`. */
  readonly kind?: string;
  readonly turn: number;
  readonly status: ToolStatus;
  readonly arguments: unknown;
  readonly output?: string;
  readonly bytes?: number;
  readonly truncated?: boolean;
  readonly durationMs?: number;
  readonly reason?: string;
  /**
   * Why a refused call was refused, on one line (`tool_failed` `message`): the reason the user
   * gave a rejection, the rule or mode of a denial; absent when there is none.
   */
  readonly message?: string;
  /** A command (bash) that ran to its end: its exit code, or the signal that killed it. */
  readonly exitCode?: number;
  readonly signal?: string;
  readonly approval?: ApprovalView;
  /** Bash only: the files the call changed. */
  readonly changedFiles?: readonly ChangedFile[];
  /** Calls that ran at the same time, whose changes `changedFiles` may include. */
  readonly changedFilesSharedWith?: readonly string[];
  /** When the view learnt the call started (ms since the epoch), for its elapsed time. */
  readonly startedAt?: number;
  /** The newest output of a running call (`tool_output`), its tail only. */
  readonly liveOutput?: string;
  /** True once the daemon stopped sending live output for the call (its cap was reached). */
  readonly liveTruncated?: boolean;
  /** Bash only: the OS sandbox it ran in, `none` when unsandboxed (the last run's, for a rerun). */
  readonly sandbox?: SandboxName;
  /** True when it ended while still waiting for the user: it never ran. */
  readonly neverRan?: boolean;
  /** write_file and edit_file: the change made (`tool_completed`, editor-true files). */
  readonly change?: FileChange;
  /**
   * write_file and edit_file: the problems the editor reported that the change brought
   * (`tool_completed` `diagnostics`); empty: none new; absent: not asked.
   */
  readonly problems?: readonly ProblemView[];
  /** A `task` call: the child agent that ran it (`tool_completed` / `tool_failed` `agent`). */
  readonly agent?: string;
  /** A `task` call: the tokens its child used, and what they cost where the price is known. */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  readonly costUsd?: number;
}

/**
 * What a child agent (a `task` call) did, from its events (`parentToolCallId`): its own turns,
 * whose calls are in the run's `tools` (a child's call ids, `<task id>/<id>`, are unique).
 */
export interface ChildView {
  readonly agent?: string;
  readonly turns: readonly TurnView[];
}

/** A problem an edit brought, as the editor's language server reported it (1-based). */
export type ProblemView = Readonly<P.Problem>;

/** What write_file or edit_file changed, from its `tool_completed`. */
export interface FileChange {
  readonly path: string;
  /** Unified diff of the change; absent when the daemon sent none. */
  readonly diff?: string;
  readonly diffTruncated?: boolean;
  readonly added?: number;
  readonly removed?: number;
  /** `editor` (through the open document) or `disk`. */
  readonly via?: string;
}

/** What compaction did to the context before a turn (`context_compacted`). */
export interface CompactionView {
  readonly beforeTokens?: number;
  readonly afterTokens?: number;
  readonly method?: string;
}

export interface TurnView {
  readonly turn: number;
  readonly thinking?: string;
  readonly text: string;
  /** True once `assistant_message` replaced the streamed deltas with the whole text. */
  readonly complete: boolean;
  readonly toolCallIds: readonly string[];
  /** The arguments of each call of the turn, from `assistant_message`. */
  readonly callArguments?: Readonly<Record<string, unknown>>;
  /** Context size (in messages) after this turn's tool results were added. */
  readonly observationMessages?: number;
  /** Set when the daemon compacted the conversation before this turn. */
  readonly compacted?: CompactionView;
}

export interface UsageView {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens of the latest call: how full the context is. */
  readonly contextTokens?: number;
  /** Tokens the model accepts. */
  readonly contextWindow?: number;
  /** What the run has cost so far, in US dollars (only where the model's price is known). */
  readonly costUsd?: number;
}

/** One item of the agent's plan (`update_plan`); a newer daemon's status passes. */
export type PlanItem = Readonly<Open<P.PlanItem, 'status'>>;

/** The agent's latest plan in this run (progress kind `plan`, or a stored session's `plan`). */
export interface PlanView {
  readonly items: readonly PlanItem[];
  readonly note?: string;
  readonly turn?: number;
}

/** A message the user sent into the run while it went (`agent/steer`). */
export interface SteerView {
  readonly text: string;
  /** The turn whose model call saw it first (`steered`); absent while it waits for a safe point. */
  readonly turn?: number;
}

export interface RunState {
  readonly prompt: string;
  readonly runId?: string;
  readonly sessionId?: string;
  readonly status: RunStatus;
  readonly lastSeq: number;
  /** Every `seq` already applied, as object keys (kept JSON-serialisable for the webview). */
  readonly seen: Readonly<Record<string, true>>;
  readonly workspaceRoot?: string;
  readonly provider?: string;
  readonly model?: string;
  readonly turns: readonly TurnView[];
  readonly tools: Readonly<Record<string, ToolItem>>;
  readonly usage: UsageView;
  readonly turnCount?: number;
  readonly toolCallCount?: number;
  readonly finalText?: string;
  readonly error?: string;
  /** The run's checkpoints, oldest first. */
  readonly checkpoints?: readonly CheckpointView[];
  /** Why the run has no checkpoints (progress kind `checkpoints_off`). */
  readonly checkpointsOff?: string;
  readonly restore?: RestoreView;
  /** The plan, as the agent last updated it. */
  readonly plan?: PlanView;
  /** Messages sent into the run: delivered ones with their turn, then those still on their way. */
  readonly steers?: readonly SteerView[];
  /** While queued: the queue entry (`queued`) and its place in line (1: next to run). */
  readonly queueId?: string;
  readonly queuePosition?: number;
  /** True once the user removed it from the queue (or cancelled it there): it never ran. */
  readonly unqueued?: boolean;
  /** Asked with `plan: true`: the agent investigates and plans, changing nothing. */
  readonly planMode?: boolean;
  /** Asked with `executePlan: true`: the agent carries out the session's plan. */
  readonly executePlan?: boolean;
  /** A slash command that acted without the model (`command` progress, or the answer's `command`). */
  readonly command?: CommandView;
  /** The child agents of the run's `task` calls, by the task's call id. */
  readonly children?: Readonly<Record<string, ChildView>>;
}

/** A slash command the daemon ran itself: its name (no slash) and what followed it. */
export interface CommandView {
  readonly name: string;
  readonly arguments?: string;
}

/** The state of a run that was just asked for and has no notification yet. */
export function initialRunState(prompt: string, sessionId?: string, queued = false): RunState {
  return {
    prompt,
    sessionId,
    status: queued ? 'queued' : 'starting',
    lastSeq: 0,
    seen: {},
    turns: [],
    tools: {},
    usage: { inputTokens: 0, outputTokens: 0 },
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

const SANDBOXES: readonly string[] = ['bwrap', 'landlock', 'none'];

/** The `sandbox` field of a notification, when it names one the view knows. */
function sandboxOf(n: Received<P.ToolStarted>): SandboxName | undefined {
  const v = str(n.sandbox);
  return v !== undefined && SANDBOXES.includes(v) ? (v as SandboxName) : undefined;
}

/** The fields every `agent/progress` notification has. */
type Envelope = Received<Pick<P.AgentProgress, 'runId' | 'sessionId' | 'seq' | 'kind'>>;

/** True when a notification belongs to another run than the one this state follows. */
export function isForeign(state: RunState, n: Envelope): boolean {
  const runId = str(n.runId);
  if (state.runId !== undefined) {
    return runId !== undefined && runId !== state.runId;
  }
  const sessionId = str(n.sessionId);
  return state.sessionId !== undefined && sessionId !== undefined && sessionId !== state.sessionId;
}

/**
 * Applies one notification; returns the same object when it changes nothing. `now` (ms since
 * the epoch, when it arrived) times running tools; pure callers leave it out.
 */
export function reduce(state: RunState, notification: ProgressNotification, now?: number): RunState {
  const n: Envelope = notification;
  const seq = num(n.seq);
  if (seq === undefined || state.seen[String(seq)] || isForeign(state, n)) {
    return state;
  }
  const base: RunState = {
    ...state,
    runId: state.runId ?? str(n.runId),
    sessionId: state.sessionId ?? str(n.sessionId),
    lastSeq: Math.max(state.lastSeq, seq),
    seen: { ...state.seen, [String(seq)]: true },
    status: state.status === 'starting' || (state.status === 'queued' && !QUEUE_KINDS.includes(str(n.kind) ?? ''))
      ? 'running'
      : state.status,
  };
  return handle(base, notification, now);
}

/**
 * Applies one event as `reduce` does, but outside any run's sequence (no `seq`): what a stored
 * session tells of a call is replayed through the same handlers, so a restored row is built the
 * way a live one is.
 */
export function applyEvent(state: RunState, n: ProgressNotification): RunState {
  return handle(state, n);
}

/** Every call of the run in order, a task's child's calls right after the task. */
export function allCallIds(s: RunState): string[] {
  const childIds = (id: string): string[] =>
    (s.children?.[id]?.turns ?? []).flatMap((t) => t.toolCallIds).flatMap((c) => [c, ...childIds(c)]);
  return s.turns.flatMap((t) => t.toolCallIds).flatMap((id) => [id, ...childIds(id)]);
}

/** Applies a whole recorded sequence. */
export function reduceAll(state: RunState, ns: readonly ProgressNotification[]): RunState {
  return ns.reduce((s, n) => reduce(s, n), state);
}

/** Applies `n` with the handler of its kind; a kind this build does not know changes nothing. */
function handle(s: RunState, n: ProgressNotification, now?: number): RunState {
  const kind = n.kind;
  const parent = str(n.parentToolCallId);
  if (parent !== undefined) {
    return onChildEvent(s, parent, n, now);
  }
  return typeof kind === 'string' && Object.hasOwn(HANDLERS, kind) ? handleKind(s, kind as ProgressKind, n, now) : s;
}

/** Applies `n`, of kind `kind`, read as that kind's protocol type. */
function handleKind<K extends ProgressKind>(s: RunState, kind: K, n: ProgressNotification, now?: number): RunState {
  const handler: Handler<K> | undefined = HANDLERS[kind];
  return handler ? handler(s, n as Progress<K>, now) : s;
}

/** The kinds a child agent's events come as (its deltas, usage and run events are not sent). */
const CHILD_KINDS: readonly string[] = [
  'assistant_message', 'thinking', 'tool_started', 'tool_output', 'tool_completed', 'tool_failed',
  'approval_requested', 'approval_resolved',
] satisfies ProgressKind[];

/**
 * A child agent's event: folded by the same handlers into the child's own turns (never the
 * run's: its text is not the parent's answer); its calls join the run's `tools`.
 */
function onChildEvent(s: RunState, parent: string, n: ProgressNotification, now?: number): RunState {
  const kind = str(n.kind);
  if (kind === undefined || !CHILD_KINDS.includes(kind)) {
    return s;
  }
  const child = s.children?.[parent] ?? { turns: [] };
  const { parentToolCallId: _parent, ...event } = n;
  const inner = handle({ ...s, turns: child.turns }, event, now);
  const agent = str(n.agent) ?? child.agent;
  return { ...s, tools: inner.tools, children: { ...s.children, [parent]: { agent, turns: inner.turns } } };
}

type Handler<K extends ProgressKind> = (s: RunState, n: Progress<K>, now?: number) => RunState;

/** Kinds a run gets while it waits in the session's queue (it is not running yet). */
const QUEUE_KINDS: readonly string[] = ['queued', 'dequeued'] satisfies ProgressKind[];

/** How the view follows each kind; the protocol's other kinds (if any) change nothing. */
const HANDLERS: { readonly [K in ProgressKind]?: Handler<K> } = {
  run_started: (s, n) => ({
    ...s,
    workspaceRoot: str(n.workspaceRoot) ?? s.workspaceRoot,
    provider: str(n.provider) ?? s.provider,
    model: str(n.model) ?? s.model,
  }),
  turn_started: (s, n) => withTurn(s, num(n.turn) ?? 1, (t) => t),
  thinking: (s, n) => withTurn(s, num(n.turn) ?? 1, (t) => ({ ...t, thinking: str(n.text) ?? '' })),
  text_delta: (s, n) =>
    withTurn(s, num(n.turn) ?? 1, (t) => (t.complete ? t : { ...t, text: t.text + (str(n.text) ?? '') })),
  assistant_message: onAssistantMessage,
  approval_requested: onApprovalRequested,
  approval_resolved: onApprovalResolved,
  tool_started: (s, n, now) => onToolStarted(s, n, 'running', now),
  tool_output: onToolOutput,
  tool_completed: (s, n) => onToolEnded(s, n, 'ok'),
  tool_failed: (s, n) => onToolEnded(s, n, REFUSALS.includes(str(n.reason) ?? '') ? 'refused' : 'failed'),
  observation: (s, n) =>
    withTurn(s, num(n.turn) ?? 1, (t) => ({ ...t, observationMessages: num(n.messages) })),
  usage: onUsage,
  context_compacted: (s, n) =>
    withTurn(s, num(n.turn) ?? 1, (t) => ({
      ...t,
      compacted: { beforeTokens: num(n.beforeTokens), afterTokens: num(n.afterTokens), method: str(n.method) },
    })),
  checkpoint: onCheckpoint,
  checkpoints_off: (s, n) => ({ ...s, checkpointsOff: str(n.message) ?? 'checkpoints are off' }),
  run_finished: onRunFinished,
  queued: (s, n) => ({
    ...s,
    status: s.status === 'starting' || s.status === 'queued' ? 'queued' : s.status,
    queueId: str(n.queueId) ?? s.queueId,
    queuePosition: num(n.position) ?? s.queuePosition,
  }),
  dequeued: (s, n) => {
    const started = str(n.reason) === 'started';
    return {
      ...s,
      status: started ? (s.status === 'queued' ? 'starting' : s.status) : s.status,
      queuePosition: undefined,
      unqueued: started ? s.unqueued : true,
    };
  },
  steered: onSteered,
  command: (s, n) => {
    const name = str(n.name);
    const args = str(n.arguments)?.trim();
    return name === undefined ? s : { ...s, command: { name, ...(args ? { arguments: args } : {}) } };
  },
  plan: (s, n) => {
    const plan = planOf(n, num(n.turn));
    return plan ? { ...s, plan } : s;
  },
};

/** A plan from a `plan` notification or a stored session's `plan` ({items, note?}). */
export function planOf(v: unknown, turn?: number): PlanView | undefined {
  const o = received<P.Plan>(v);
  if (!Array.isArray(o.items)) {
    return undefined;
  }
  const items = receivedList<P.PlanItem>(o.items)
    .filter((i) => typeof i.text === 'string')
    .map((i) => ({ text: i.text as string, status: str(i.status) ?? 'pending' }));
  const note = str(o.note);
  return { items, ...(note !== undefined && note !== '' ? { note } : {}), ...(turn !== undefined ? { turn } : {}) };
}

/** A steer delivered at `turn`: the first of the same text still on its way becomes it. */
function onSteered(s: RunState, n: Progress<'steered'>): RunState {
  const text = str(n.text) ?? '';
  const turn = num(n.turn);
  return addDeliveredSteer(s, text, turn);
}

function addDeliveredSteer(s: RunState, text: string, turn: number | undefined): RunState {
  const steers = [...(s.steers ?? [])];
  const waiting = steers.findIndex((x) => x.turn === undefined && x.text === text);
  if (waiting >= 0) {
    steers.splice(waiting, 1);
  }
  const delivered: SteerView = { text, turn: turn ?? 0 };
  // Delivered ones in order of their turn (as they arrived within one), then those on their way.
  const done = steers.filter((x) => x.turn !== undefined);
  const pending = steers.filter((x) => x.turn === undefined);
  const withTurn = turn !== undefined ? withTurnIfMissing(s, turn) : s;
  return { ...withTurn, steers: [...done, delivered, ...pending] };
}

function withTurnIfMissing(s: RunState, turn: number): RunState {
  return s.turns.some((t) => t.turn === turn) ? s : withTurn(s, turn, (t) => t);
}

/** A steer just sent: shown under the run until it is delivered or becomes the next prompt. */
export function addPendingSteer(s: RunState, text: string): RunState {
  return { ...s, steers: [...(s.steers ?? []), { text }] };
}

/**
 * The `agent/steer` answer: `run` (delivered; its `steered` normally came first) or `next`
 * (the run ended first: the steer left this run, it is the session's next prompt).
 */
export function applySteerAnswer(s: RunState, text: string, delivered: string): RunState {
  const steers = s.steers ?? [];
  const waiting = steers.findIndex((x) => x.turn === undefined && x.text === text);
  if (waiting < 0) {
    return s;
  }
  if (delivered === 'run') {
    return addDeliveredSteer(s, text, undefined);
  }
  return { ...s, steers: steers.filter((_, i) => i !== waiting) };
}

function onUsage(s: RunState, n: Progress<'usage'>): RunState {
  const usage: UsageView = {
    ...s.usage,
    inputTokens: num(n.totalInputTokens) ?? s.usage.inputTokens + (num(n.inputTokens) ?? 0),
    outputTokens: num(n.totalOutputTokens) ?? s.usage.outputTokens + (num(n.outputTokens) ?? 0),
  };
  // Only daemons that know the context window send these two (protocol 1.1).
  const contextTokens = num(n.contextTokens);
  const contextWindow = num(n.contextWindow);
  const costUsd = num(n.costUsd);
  return {
    ...s,
    usage: {
      ...usage,
      ...(contextTokens !== undefined ? { contextTokens } : {}),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
    },
  };
}

function withTurn(s: RunState, turn: number, f: (t: TurnView) => TurnView): RunState {
  const i = s.turns.findIndex((t) => t.turn === turn);
  const old: TurnView = i >= 0 ? s.turns[i] : { turn, text: '', complete: false, toolCallIds: [] };
  const next = f(old);
  const turns = i >= 0 ? s.turns.map((t, j) => (j === i ? next : t)) : [...s.turns, next];
  return { ...s, turns: [...turns].sort((a, b) => a.turn - b.turn) };
}

function onAssistantMessage(s: RunState, n: Progress<'assistant_message'>): RunState {
  const calls = receivedList<P.WireToolCall>(n.toolCalls).filter((c) => str(c.id) !== undefined);
  const ids = calls.map((c) => str(c.id) as string);
  const text = str(n.text);
  const next = withTurn(s, num(n.turn) ?? 1, (t) => ({
    ...t,
    text: text ?? t.text,
    complete: true,
    toolCallIds: mergeIds(t.toolCallIds, ids),
    callArguments: { ...t.callArguments, ...Object.fromEntries(calls.map((c) => [str(c.id), c.arguments])) },
  }));
  return calls.length === 0 && text !== undefined ? { ...next, finalText: text } : next;
}

function mergeIds(a: readonly string[], b: readonly string[]): string[] {
  return [...a, ...b.filter((id) => !a.includes(id))];
}

/** `tool_failed` reasons that are a decision, not an error. */
const REFUSALS: readonly string[] = ['denied', 'rejected'];

/**
 * Adds or updates the call's item. `status` applies to a new item or one still waiting for the
 * user; an item already further along keeps its status (notifications may repeat). The kinds
 * about a call carry some of `tool_started`'s fields: it is read as one.
 */
function onToolStarted(s: RunState, n: Received<P.ToolStarted>, status: ToolStatus, now?: number): RunState {
  const id = str(n.toolCallId);
  if (id === undefined) {
    return s;
  }
  const turn = num(n.turn) ?? 1;
  const old = s.tools[id];
  const item: ToolItem = {
    ...old,
    id,
    name: str(n.tool) ?? old?.name ?? '?',
    kind: str(n.toolKind) ?? old?.kind,
    turn,
    status: old === undefined || old.status === 'waiting' ? status : old.status,
    arguments: n.arguments ?? old?.arguments ?? argumentsFromMessage(s, turn, id),
    startedAt: old?.startedAt ?? (status === 'running' ? now : undefined),
    sandbox: sandboxOf(n) ?? old?.sandbox,
  };
  const next = withTurn(s, turn, (t) => ({ ...t, toolCallIds: mergeIds(t.toolCallIds, [id]) }));
  return { ...next, tools: { ...next.tools, [id]: item } };
}

/** The arguments of call `id` from the turn's `assistant_message`, kept for calls not yet started. */
function argumentsFromMessage(s: RunState, turn: number, id: string): unknown {
  return s.turns.find((t) => t.turn === turn)?.callArguments?.[id];
}

function onApprovalRequested(s: RunState, n: Progress<'approval_requested'>): RunState {
  const id = str(n.toolCallId);
  if (id === undefined) {
    return s;
  }
  // A call asked about is first heard of here (with its arguments): it has not started, and its
  // tool_started comes only once it is allowed. (Daemons before protocol 1.2 announced it with
  // tool_started first: it waits now all the same.)
  const afterStart = ranInSandbox(s.tools[id]);
  const next = onToolStarted(s, n, 'waiting');
  const old = next.tools[id];
  const item: ToolItem = {
    ...old,
    startedAt: undefined,
    liveOutput: undefined,
    status: old.status === 'running' ? 'waiting' : old.status,
    approval: approvalAsked(old, n, afterStart),
  };
  return { ...next, tools: { ...next.tools, [id]: item } };
}

/**
 * True for a call that is running in the OS sandbox: a question about it now is the offer to run
 * it again outside (a daemon that reports the sandbox never starts a call before asking first).
 */
function ranInSandbox(t: ToolItem | undefined): boolean {
  return t !== undefined && t.status === 'running' && t.sandbox !== undefined;
}

/** The approval view of a call just asked about: the title, why, and whether it leaves the sandbox. */
function approvalAsked(t: ToolItem, n: Progress<'approval_requested'>, afterStart: boolean): ApprovalView {
  const args = n.arguments && typeof n.arguments === 'object' ? (n.arguments as Record<string, unknown>) : {};
  return {
    title: str(n.title) ?? t.approval?.title,
    ...(str(n.reason) !== undefined ? { reason: str(n.reason) } : {}),
    ...(args.escalate === true ? { escalate: true } : {}),
    ...(afterStart || t.approval?.afterStart ? { afterStart: true } : {}),
  };
}

function onApprovalResolved(s: RunState, n: Progress<'approval_resolved'>, now?: number): RunState {
  const id = str(n.toolCallId);
  if (id === undefined) {
    return s;
  }
  const decision = str(n.decision);
  const allowed = decision?.startsWith('allow') ?? false;
  // A call that waited for the user starts its clock now, not when it asked. A call refused by
  // a rule or the mode is first heard of here and never starts: refused from the outset.
  const first = allowed ? 'running' : s.tools[id] === undefined ? 'refused' : 'waiting';
  const next = onToolStarted(s, n, first, now);
  const old = next.tools[id];
  const approval: ApprovalView = {
    ...old.approval,
    decision,
    by: str(n.by),
    rule: str(n.rule),
  };
  // Allowed: it runs now. Refused: it stays as it was until its tool_failed.
  const status = allowed && old.status === 'waiting' ? 'running' : old.status;
  return { ...next, tools: { ...next.tools, [id]: { ...old, status, approval } } };
}

/** `tool_completed` or `tool_failed` (the same fields). */
function onToolEnded(s: RunState, n: Received<P.ToolCompleted | P.ToolFailed>, status: ToolStatus): RunState {
  const id = str(n.toolCallId);
  if (id === undefined) {
    return s;
  }
  const started = s.tools[id] ? s : onToolStarted(s, n, status);
  const old = started.tools[id];
  const item: ToolItem = {
    ...old,
    // A call refused by a rule or the mode was first heard of by its approval_resolved, which
    // does not name the tool's kind.
    kind: old.kind ?? str(n.toolKind),
    status,
    output: str(n.output) ?? old.output,
    bytes: num(n.bytes) ?? old.bytes,
    truncated: bool(n.truncated) ?? old.truncated,
    durationMs: num(n.durationMs) ?? old.durationMs,
    reason: status === 'failed' || status === 'refused' ? str(n.reason) ?? 'error' : undefined,
    message: status === 'failed' || status === 'refused' ? str(n.message) : undefined,
    exitCode: num(n.exitCode) ?? old.exitCode,
    signal: str(n.signal) ?? old.signal,
    changedFiles: changedFilesOf(n.changedFiles) ?? old.changedFiles,
    changedFilesSharedWith: stringsOf(n.changedFilesSharedWith) ?? old.changedFilesSharedWith,
    change: fileChangeOf(n) ?? old.change,
    problems: problemsOf(n.diagnostics) ?? old.problems,
    sandbox: sandboxOf(n) ?? old.sandbox,
    liveOutput: undefined,
    neverRan: neverRan(old),
    ...taskFacts(n),
  };
  return { ...started, tools: { ...started.tools, [id]: item } };
}

/** What a `task` call's end tells of its child: the agent, its usage and cost. */
function taskFacts(n: Received<P.ToolCompleted | P.ToolFailed>): Partial<ToolItem> {
  const agent = str(n.agent);
  const usage = received<P.Usage>(n.usage);
  const inputTokens = num(usage.inputTokens);
  const outputTokens = num(usage.outputTokens);
  const costUsd = num(n.costUsd);
  return {
    ...(agent !== undefined ? { agent } : {}),
    ...(inputTokens !== undefined || outputTokens !== undefined
      ? { usage: { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 } }
      : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
  };
}

/** The file change a write_file or edit_file `tool_completed` reports (editor-true files). */
function fileChangeOf(n: Received<P.ToolCompleted | P.ToolFailed>): FileChange | undefined {
  const path = str(n.path);
  if (path === undefined) {
    return undefined;
  }
  return {
    path,
    diff: str(n.diff),
    diffTruncated: bool(n.diffTruncated),
    added: num(n.added),
    removed: num(n.removed),
    via: str(n.via),
  };
}

/** How much of a running call's live output the view keeps (the reader wants the tail). */
export const LIVE_TAIL_CHARS = 4000;

function onToolOutput(s: RunState, n: Progress<'tool_output'>, now?: number): RunState {
  const id = str(n.toolCallId);
  if (id === undefined) {
    return s;
  }
  const started = s.tools[id] ? s : onToolStarted(s, n, 'running', now);
  const old = started.tools[id];
  if (old.status !== 'running') {
    return started; // it ended: its output is the final one
  }
  const text = (old.liveOutput ?? '') + (str(n.text) ?? '');
  const item: ToolItem = {
    ...old,
    liveOutput: text.length > LIVE_TAIL_CHARS ? text.slice(text.length - LIVE_TAIL_CHARS) : text,
    liveTruncated: bool(n.truncated) ?? old.liveTruncated,
  };
  return { ...started, tools: { ...started.tools, [id]: item } };
}

function changedFilesOf(v: unknown): ChangedFile[] | undefined {
  if (!Array.isArray(v)) {
    return undefined;
  }
  return receivedList<P.ChangedFile>(v)
    .filter((f) => str(f.path) !== undefined)
    .map((f) => ({ path: str(f.path) as string, status: str(f.status) ?? 'modified' }));
}

/** The `diagnostics` of a `tool_completed`: the problems an edit brought (undefined: not asked). */
function problemsOf(v: unknown): ProblemView[] | undefined {
  if (!Array.isArray(v)) {
    return undefined;
  }
  return receivedList<P.Problem>(v)
    .filter((p) => str(p.path) !== undefined && str(p.message) !== undefined)
    .map((p) => ({
      path: str(p.path) as string,
      line: num(p.line) ?? 1,
      column: num(p.column) ?? 1,
      severity: str(p.severity) ?? 'error',
      message: str(p.message) as string,
      ...(str(p.source) !== undefined ? { source: str(p.source) } : {}),
      ...(str(p.code) !== undefined ? { code: str(p.code) } : {}),
    }));
}

function stringsOf(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

function onCheckpoint(s: RunState, n: Progress<'checkpoint'>): RunState {
  const checkpointId = str(n.checkpointId);
  if (checkpointId === undefined || s.checkpoints?.some((c) => c.checkpointId === checkpointId)) {
    return s;
  }
  const turn = num(n.turn) ?? 1;
  const started = s.turns.find((t) => t.turn === turn)?.toolCallIds.some((id) => s.tools[id] !== undefined) ?? false;
  const cp: CheckpointView = { checkpointId, turn, files: stringsOf(n.files) ?? [], beforeTools: !started };
  return { ...withTurn(s, turn, (t) => t), checkpoints: [...(s.checkpoints ?? []), cp] };
}

const FINAL_STATUSES: readonly RunStatus[] = ['completed', 'max_turns', 'cancelled', 'error'];

function asFinalStatus(v: unknown): RunStatus {
  const s = str(v) as RunStatus | undefined;
  return s !== undefined && FINAL_STATUSES.includes(s) ? s : 'error';
}

function onRunFinished(s: RunState, n: Progress<'run_finished'>): RunState {
  const usage = received<P.Usage>(n.usage);
  return {
    ...s,
    status: asFinalStatus(n.status),
    turnCount: num(n.turns) ?? s.turnCount,
    toolCallCount: num(n.toolCalls) ?? s.toolCallCount,
    usage: {
      ...s.usage,
      inputTokens: num(usage.inputTokens) ?? s.usage.inputTokens,
      outputTokens: num(usage.outputTokens) ?? s.usage.outputTokens,
    },
    finalText: nonEmpty(str(n.text)) ?? s.finalText,
    error: describeError(n.error) ?? s.error,
    tools: settleRunningTools(s.tools),
  };
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === '' ? undefined : text;
}

/** True (else undefined) for a call that ends while waiting for a question asked before it started. */
function neverRan(t: ToolItem): true | undefined {
  return (t.status === 'waiting' && !t.approval?.afterStart) || undefined;
}

/** Tools still running or waiting when the run ended did not finish: mark them failed. */
function settleRunningTools(tools: Readonly<Record<string, ToolItem>>): Record<string, ToolItem> {
  const out: Record<string, ToolItem> = {};
  for (const [id, t] of Object.entries(tools)) {
    const open = t.status === 'running' || t.status === 'waiting';
    out[id] = open ? { ...t, status: 'failed', reason: t.reason ?? 'cancelled', neverRan: neverRan(t) } : t;
  }
  return out;
}

function describeError(e: unknown): string | undefined {
  if (typeof e === 'string') {
    return e;
  }
  if (e && typeof e === 'object') {
    const o = received<P.RunError>(e);
    const message = str(o.message) ?? JSON.stringify(o);
    const kind = str(o.kind);
    return kind ? `${kind}: ${message}` : message;
  }
  return undefined;
}

/** The `agent/run` result, applied once the request answers. */
export function applyResult(s: RunState, result: unknown): RunState {
  const r = received<P.RunResult>(result);
  const usage = received<P.Usage>(r.usage);
  const status = str(r.status);
  const command = str(r.command);
  return {
    ...s,
    ...(command !== undefined && s.command === undefined ? { command: { name: command } } : {}),
    runId: s.runId ?? str(r.runId),
    sessionId: s.sessionId ?? str(r.sessionId),
    status: status !== undefined ? asFinalStatus(status) : s.status,
    finalText: str(r.text) ?? s.finalText,
    turnCount: num(r.turns) ?? s.turnCount,
    toolCallCount: num(r.toolCalls) ?? s.toolCallCount,
    usage: {
      ...s.usage,
      inputTokens: num(usage.inputTokens) ?? s.usage.inputTokens,
      outputTokens: num(usage.outputTokens) ?? s.usage.outputTokens,
    },
  };
}

/** A JSON-RPC error answer to `agent/run`: -32800 is a cancel, anything else an error. */
export function applyRequestError(s: RunState, code: number | undefined, message: string): RunState {
  const cancelled = code === -32800;
  const finished = FINAL_STATUSES.includes(s.status);
  return {
    ...s,
    status: finished ? s.status : cancelled ? 'cancelled' : 'error',
    error: cancelled ? s.error : s.error ?? message,
    tools: settleRunningTools(s.tools),
  };
}

/** True once the run has ended, whatever the way. */
export function isFinished(s: RunState): boolean {
  return FINAL_STATUSES.includes(s.status);
}


/** Records the outcome of a restore of one of this run's checkpoints. */
export function applyRestore(s: RunState, restore: RestoreView): RunState {
  return { ...s, restore };
}
