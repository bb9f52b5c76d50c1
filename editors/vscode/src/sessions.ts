/**
 * Stored sessions, the pure part: a session listed by `agent/sessions` as a quick-pick row, and a
 * session read back with `agent/session` as the runs the chat view shows. No `vscode` import.
 */
import type * as P from './protocol.generated';
import {
  applyEvent, type CheckpointView, initialRunState, planOf, type ProgressNotification, type RunState, type RunStatus, type ToolItem, type TurnView,
} from './runState';
import { plural } from './summary';
import { type Progress, type Received, received, receivedList } from './wire';

/** One row of `agent/sessions` (`updatedAt`: else when it was created). */
export type SessionSummary = Readonly<Pick<P.SessionListed, 'sessionId' | 'title'> & Partial<Pick<P.SessionListed, 'updatedAt' | 'turns' | 'runs'>>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The sessions of an `agent/sessions` answer, newest first as the daemon sends them. */
export function sessionsFrom(result: unknown): SessionSummary[] {
  return receivedList<P.SessionListed>(received<P.SessionsResult>(result).sessions)
    .filter((s) => str(s.sessionId) !== undefined)
    .map((s) => ({
      sessionId: str(s.sessionId) as string,
      title: str(s.title)?.trim() || '(untitled)',
      updatedAt: str(s.updatedAt) ?? str(s.createdAt),
      turns: num(s.turns),
      runs: num(s.runs),
    }));
}

/** `3 min ago`, `yesterday`, or the date; `now` in ms since the epoch. */
export function ago(iso: string | undefined, now: number): string {
  const t = iso === undefined ? NaN : Date.parse(iso);
  if (Number.isNaN(t)) {
    return '';
  }
  const minutes = Math.round((now - t) / 60_000);
  if (minutes < 1) {
    return 'just now';
  }
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.round(minutes / 60);
  if (hours < 24) {
    return `${plural(hours, 'hour')} ago`;
  }
  return hours < 48 ? 'yesterday' : new Date(t).toISOString().slice(0, 10);
}

/** The quick-pick row of a session: its title, then when and how long. */
export function sessionRow(s: SessionSummary, now: number): { label: string; description: string } {
  const facts = [ago(s.updatedAt, now), s.turns !== undefined ? plural(s.turns, 'turn') : ''].filter((x) => x !== '');
  return { label: s.title, description: facts.join(' · ') };
}

function parseArguments(v: unknown): unknown {
  if (typeof v !== 'string') {
    return v;
  }
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

const STATUSES: readonly RunStatus[] = ['completed', 'max_turns', 'cancelled', 'error'];

/**
 * A run being rebuilt: its state, its last turn number, whether the last message was that turn's,
 * and the calls whose row came from their stored `outcome`.
 */
interface Building {
  state: RunState;
  turn: number;
  afterAssistant: boolean;
  told: Set<string>;
}

/** `tool_failed` reasons by which the call never started: someone said no. */
const REFUSED: readonly string[] = ['rejected', 'denied'];

/**
 * The live events a stored call's `outcome` stands for: the question to the user and its answer
 * (or a rule's), the start unless it never ran (refused, or cancelled while it waited), and the
 * end with what it told. The output is
 * the tool result's, added when that message comes.
 */
function outcomeEvents(c: Received<P.StoredToolCall>, turn: number): ProgressNotification[] {
  const { status, approval, turn: _turn, started, asked: unanswered, ...told } = received<P.CallOutcome>(c.outcome);
  const call = { toolCallId: str(c.id), tool: str(c.name), toolKind: str(c.kind), turn, arguments: parseArguments(c.arguments) };
  const events: ProgressNotification[] = [];
  const asked = approval === undefined ? undefined : received<P.ApprovalResolved>(approval);
  // `asked`: the user was asked and the run ended before an answer.
  if (asked?.by === 'user' || unanswered === true) {
    events.push({ ...call, kind: 'approval_requested' } satisfies Progress<'approval_requested'>);
  }
  if (asked !== undefined) {
    events.push({ ...call, kind: 'approval_resolved', decision: asked.decision, by: asked.by, rule: asked.rule } satisfies Progress<'approval_resolved'>);
  }
  const reason = str(status) ?? 'completed';
  if (!REFUSED.includes(reason) && started !== false) {
    events.push({ ...call, kind: 'tool_started', sandbox: told.sandbox } satisfies Progress<'tool_started'>);
  }
  const end = reason === 'completed' ? ({ kind: 'tool_completed' } as const) : ({ kind: 'tool_failed', reason } as const);
  events.push({ ...call, ...told, ...end } satisfies Progress<'tool_completed' | 'tool_failed'>);
  return events;
}

/**
 * An assistant message is a turn; two in a row are one turn's thinking (with the tools withheld)
 * and then its action message.
 */
function addAssistant(b: Building, m: Received<P.StoredMessage>): void {
  const last = b.state.turns[b.state.turns.length - 1];
  const thinking = b.afterAssistant && last !== undefined && last.toolCallIds.length === 0 ? last.text : undefined;
  if (thinking === undefined) {
    b.turn += 1;
  }
  b.afterAssistant = true;
  const calls = receivedList<P.StoredToolCall>(m.toolCalls).filter((c) => str(c.id) !== undefined);
  // Calls stored before sessions kept their outcome: known only from their result (see addToolResult).
  const tools: Record<string, ToolItem> = { ...b.state.tools };
  for (const c of calls.filter((x) => x.outcome === undefined)) {
    const id = str(c.id) as string;
    tools[id] = { id, name: str(c.name) ?? '?', kind: str(c.kind), turn: b.turn, status: 'ok', arguments: parseArguments(c.arguments) };
  }
  const text = str(m.content) ?? '';
  const turn: TurnView = {
    turn: b.turn,
    text,
    complete: true,
    toolCallIds: calls.map((c) => str(c.id) as string),
    ...(thinking !== undefined ? { thinking } : {}),
  };
  const earlier = thinking !== undefined ? b.state.turns.slice(0, -1) : b.state.turns;
  b.state = {
    ...b.state,
    turns: [...earlier, turn],
    tools,
    finalText: calls.length === 0 && text !== '' ? text : b.state.finalText,
  };
  for (const c of calls.filter((x) => x.outcome !== undefined)) {
    b.state = outcomeEvents(c, b.turn).reduce(applyEvent, b.state);
    b.told.add(str(c.id) as string);
    b.state = withChild(b.state, str(c.id) as string, received<P.CallOutcome>(c.outcome));
  }
}

/**
 * A task call's child, from its stored `transcript`: its turns and calls rebuilt as a run's are,
 * the call ids made the run's own (`<task id>/<id>`, as the live events name them).
 */
function withChild(s: RunState, taskId: string, outcome: Received<P.CallOutcome>): RunState {
  if (!Array.isArray(outcome.transcript)) {
    return s;
  }
  const own = (id: unknown): unknown => (typeof id === 'string' ? `${taskId}/${id}` : id);
  const child: Building = { state: initialRunState(''), turn: 0, afterAssistant: false, told: new Set() };
  for (const m of receivedList<P.StoredMessage>(outcome.transcript)) {
    if (str(m.toolCallId) !== undefined) {
      addToolResult(child, { ...m, toolCallId: own(m.toolCallId) });
    } else if (str(m.role) === 'assistant') {
      const toolCalls = receivedList<P.StoredToolCall>(m.toolCalls).map((c) => ({ ...c, id: own(c.id) }));
      addAssistant(child, { ...m, toolCalls });
    }
  }
  return {
    ...s,
    tools: { ...s.tools, ...child.state.tools },
    children: { ...s.children, [taskId]: { agent: str(outcome.agent), turns: child.state.turns } },
  };
}

/**
 * A tool result: the call's output. A call without a stored outcome is guessed from it: the
 * daemon's tool errors start with `Error:`.
 */
function addToolResult(b: Building, m: Received<P.StoredMessage>): void {
  b.afterAssistant = false;
  const id = str(m.toolCallId);
  const tool = id === undefined ? undefined : b.state.tools[id];
  if (id !== undefined && tool && b.told.has(id)) {
    b.state = { ...b.state, tools: { ...b.state.tools, [id]: { ...tool, output: str(m.content) ?? '' } } };
  } else if (id !== undefined && tool) {
    const output = str(m.content) ?? '';
    const status = output.startsWith('Error:') ? 'failed' : 'ok';
    b.state = { ...b.state, tools: { ...b.state.tools, [id]: { ...tool, output, status, ...(status === 'failed' ? { reason: 'error' } : {}) } } };
  }
}

/**
 * The runs of an `agent/session` answer: each user message without `toolCallId` starts a run (the
 * runs list gives its id and status, in order), each assistant message is a turn (see
 * `addAssistant`), each message with a `toolCallId` a call's output.
 */
/** What the user typed: a stored prompt without the editor context the daemon attached to it. */
function promptOf(content: string | undefined): string | undefined {
  return content?.split('\n\nAttached from the editor (')[0];
}

export function runsFromSession(result: unknown): RunState[] {
  const r = received<P.SessionResult>(result);
  const sessionId = str(r.sessionId);
  const meta = receivedList<P.StoredRun>(r.runs);
  const out: Building[] = [];
  let next = 0; // the first run record not yet matched to a prompt
  for (const m of receivedList<P.StoredMessage>(r.messages)) {
    const role = str(m.role);
    if (str(m.toolCallId) !== undefined) {
      if (out.length > 0) {
        addToolResult(out[out.length - 1], m);
      }
    } else if (role === 'user') {
      const prompt = promptOf(str(m.content));
      // A run's record goes with the prompt that started it. Matched by the prompt, not by
      // position: a restore or a compaction removed prompts whose runs are still on record.
      const found = meta.findIndex((run, i) => i >= next && str(run.prompt) === prompt);
      // A user message no run record names, within a run, is a message sent into it (a steer):
      // the model read it before its next turn.
      const building = out[out.length - 1];
      if (found < 0 && building !== undefined && meta.length > 0 && prompt !== undefined) {
        building.state = { ...building.state, steers: [...(building.state.steers ?? []), { text: prompt, turn: building.turn + 1 }] };
        building.afterAssistant = false;
        continue;
      }
      const info: Received<P.StoredRun> = found >= 0 ? meta[found] : {};
      next = found >= 0 ? found + 1 : next;
      const status = str(info.status) as RunStatus | undefined;
      const state: RunState = {
        ...initialRunState(prompt ?? str(info.prompt) ?? '', sessionId),
        runId: str(info.runId),
        status: status !== undefined && STATUSES.includes(status) ? status : 'completed',
        turnCount: num(info.turns),
        toolCallCount: num(info.toolCalls),
      };
      out.push({ state, turn: 0, afterAssistant: false, told: new Set() });
    } else if (role === 'assistant' && out.length > 0) {
      addAssistant(out[out.length - 1], m);
    }
  }
  return withPlan(out.map((b) => b.state), planOf(r.plan));
}

/**
 * The session's plan (`agent/session`'s `plan`, the latest) on the run that last updated it (a
 * call of kind `think`), else on the last run.
 */
function withPlan(runs: RunState[], plan: ReturnType<typeof planOf>): RunState[] {
  if (plan === undefined || runs.length === 0) {
    return runs;
  }
  const planned = (r: RunState): boolean => Object.values(r.tools).some((t) => t.name !== 'task' && (t.kind === 'think' || t.name === 'update_plan'));
  let at = runs.length - 1;
  for (let i = runs.length - 1; i >= 0; i -= 1) {
    if (planned(runs[i])) {
      at = i;
      break;
    }
  }
  return runs.map((r, i) => (i === at ? { ...r, plan } : r));
}

/**
 * The checkpoints of an `agent/checkpoints` answer put on the runs they belong to: a run's first
 * is the one before its first tool batch, the others were taken after a batch.
 */
export function withCheckpoints(runs: readonly RunState[], result: unknown): RunState[] {
  const all = receivedList<P.CheckpointListed>(received<P.CheckpointsResult>(result).checkpoints)
    .filter((c) => str(c.checkpointId) !== undefined && str(c.runId) !== undefined);
  return runs.map((r) => {
    const mine = all.filter((c) => c.runId === r.runId);
    if (mine.length === 0) {
      return r;
    }
    const checkpoints: CheckpointView[] = mine.map((c, i) => ({
      checkpointId: str(c.checkpointId) as string,
      turn: num(c.turn) ?? 1,
      files: Array.isArray(c.files) ? c.files.filter((f): f is string => typeof f === 'string') : [],
      beforeTools: i === 0,
    }));
    return { ...r, checkpoints };
  });
}
