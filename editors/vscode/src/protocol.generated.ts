/**
 * Generated from docs/protocol.schema.json by scripts/protocol-types.mjs: do not edit.
 * After a change of the protocol (server/harness9/protocol), regenerate both:
 *   PYTHONPATH=server python -m harness9 schema > docs/protocol.schema.json
 *   cd editors/vscode && npm run protocol
 */

/**
 * The params of an agent/progress notification: one of the kinds.
 */
export type AgentProgress =
  | RunStarted
  | TurnStarted
  | Thinking
  | TextDelta
  | AssistantMessage
  | ToolStarted
  | ApprovalRequested
  | ApprovalResolved
  | ToolCompleted
  | ToolFailed
  | Observation
  | UsageProgress
  | RunFinished
  | Checkpoint
  | CheckpointsOff
  | ContextCompacted
  | ToolOutput
  | Steered
  | Queued
  | Dequeued
  | PlanProgress
  | Command;

/**
 * Each method of protocol 1.3: who sends it, its params and its result.
 */
export interface ProtocolMethods {
  'agent/run': {
    direction: 'client_to_server';
    params: RunParams;
    result: RunResult;
  };
  'agent/cancel': {
    direction: 'client_to_server';
    params: CancelParams;
    result: CancelResult;
  };
  'agent/tools': {
    direction: 'client_to_server';
    params: NoParams;
    result: ToolsResult;
  };
  'agent/checkpoints': {
    direction: 'client_to_server';
    params: SessionParams;
    result: CheckpointsResult;
  };
  'agent/restore': {
    direction: 'client_to_server';
    params: RestoreParams;
    result: RestoreResult;
  };
  'agent/sessions': {
    direction: 'client_to_server';
    params: SessionsParams;
    result: SessionsResult;
  };
  'agent/session': {
    direction: 'client_to_server';
    params: SessionParams;
    result: SessionResult;
  };
  'agent/deleteSession': {
    direction: 'client_to_server';
    params: SessionParams;
    result: DeleteSessionResult;
  };
  'agent/compact': {
    direction: 'client_to_server';
    params: SessionParams;
    result: CompactResult;
  };
  'agent/steer': {
    direction: 'client_to_server';
    params: SteerParams;
    result: SteerResult;
  };
  'agent/queue': {
    direction: 'client_to_server';
    params: SessionParams;
    result: QueueResult;
  };
  'agent/unqueue': {
    direction: 'client_to_server';
    params: UnqueueParams;
    result: UnqueueResult;
  };
  'agent/models': {
    direction: 'client_to_server';
    params: ModelsParams;
    result: ModelsResult;
  };
  'agent/setModel': {
    direction: 'client_to_server';
    params: SetModelParams;
    result: ModelChoice;
  };
  'agent/commands': {
    direction: 'client_to_server';
    params: CommandsParams;
    result: CommandsResult;
  };
  'agent/changedSince': {
    direction: 'client_to_server';
    params: ChangedSinceParams;
    result: ChangedSinceResult;
  };
  'agent/agents': {
    direction: 'client_to_server';
    params: CommandsParams;
    result: AgentsResult;
  };
  'agent/tasks': {
    direction: 'client_to_server';
    params: NoParams;
    result: TasksResult;
  };
  'agent/applyTask': {
    direction: 'client_to_server';
    params: SessionParams;
    result: ApplyTaskResult;
  };
  'agent/discardTask': {
    direction: 'client_to_server';
    params: SessionParams;
    result: DiscardTaskResult;
  };
  'agent/requestApproval': {
    direction: 'server_to_client';
    params: RequestApprovalParams;
    result: RequestApprovalResult;
  };
  'harness9/diagnostics': {
    direction: 'server_to_client';
    params: DiagnosticsParams;
    result: DiagnosticsResult;
  };
  'harness9/languageQuery': {
    direction: 'server_to_client';
    params: LanguageQueryParams;
    result: LanguageQueryResult;
  };
  'agent/progress': {
    direction: 'server_to_client';
    params: AgentProgress;
  };
}
/**
 * `agent/run`: a prompt, and where and how to run it. Any run setting (README, "Settings": `approvals`, `checkpoints`, `maxParallelTools`, …) may be given for this run too.
 */
export interface RunParams {
  prompt?: string;
  sessionId?: string;
  workspaceFolder?: string;
  provider?: 'openai' | 'anthropic' | 'replay';
  model?: string;
  reasoningEffort?: string;
  maxTurns?: number;
  toolTimeoutMs?: number;
  thinking?: boolean;
  stream?: boolean;
  context?: ContextItem[] | null;
  instructions?: boolean;
  queue?: boolean;
  plan?: boolean;
  executePlan?: boolean;
  isolation?: 'worktree';
  replayFile?: string;
  workDoneToken?: string | number;
  [k: string]: unknown;
}
/**
 * Editor context given with a prompt: a file, a selection, diagnostics, a note or an image (`kind: "image"` with `mimeType` and base64 `data`).
 */
export interface ContextItem {
  uri?: string;
  range?: Range;
  text?: string;
  kind?: 'file' | 'selection' | 'diagnostics' | 'note' | 'image';
  mimeType?: string;
  data?: string;
}
/**
 * An LSP range.
 */
export interface Range {
  start: Position;
  end: Position;
}
/**
 * An LSP position (0-based line and character).
 */
export interface Position {
  line: number;
  character: number;
}
/**
 * `agent/run`'s answer once the loop ended. A slash command's run adds `command` (its name) and what the command did (`compacted`, `restored`, `models`, `current`, `model`, `mode`).
 */
export interface RunResult {
  runId: string;
  sessionId: string;
  status: 'completed' | 'max_turns' | 'cancelled' | 'error';
  text: string;
  turns: number;
  toolCalls: number;
  usage: Usage;
  command?: string;
  [k: string]: unknown;
}
/**
 * Tokens of one call or of a run (`cachedInputTokens`: of the input, those read from the service's prompt cache; `cacheWriteInputTokens`: those written to it).
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  cacheWriteInputTokens?: number;
}
/**
 * `agent/cancel`: the run, or the session whose run to cancel.
 */
export interface CancelParams {
  runId?: string;
  sessionId?: string;
}
/**
 * Whether a run was cancelled.
 */
export interface CancelResult {
  cancelled: boolean;
}
/**
 * No params (an empty object or none).
 */
export interface NoParams {}
/**
 * `agent/tools`: exactly what the model is offered.
 */
export interface ToolsResult {
  tools: ToolListed[];
}
/**
 * A tool the model is offered; `server` names an MCP tool's server.
 */
export interface ToolListed {
  name: string;
  description: string;
  inputSchema: ToolSchema;
  kind: 'read' | 'edit' | 'execute' | 'other' | 'think';
  server?: string;
}
/**
 * A JSON Schema of a tool's input (as the model receives it).
 */
export interface ToolSchema {
  [k: string]: unknown;
}
/**
 * A session, by id.
 */
export interface SessionParams {
  sessionId: string;
}
/**
 * A session's checkpoints, oldest first.
 */
export interface CheckpointsResult {
  checkpoints: CheckpointListed[];
}
/**
 * A checkpoint of a session; `undoes` names the checkpoint a restore undid.
 */
export interface CheckpointListed {
  checkpointId: string;
  runId: string;
  turn: number;
  createdAt: string;
  files: string[];
  undoes?: string;
}
/**
 * `agent/restore`: put the workspace back to a checkpoint (`files`: only these; `dryRun`: only say which files it would restore).
 */
export interface RestoreParams {
  sessionId: string;
  checkpointId: string;
  dryRun?: boolean;
  files?: string[];
}
/**
 * The files restored (or, with `dryRun`, that would be).
 */
export interface RestoreResult {
  restored: string[];
  dryRun?: true;
}
/**
 * `agent/sessions`: a workspace folder (default: the first).
 */
export interface SessionsParams {
  workspaceFolder?: string;
}
/**
 * A workspace's stored sessions, newest first.
 */
export interface SessionsResult {
  sessions: SessionListed[];
}
/**
 * A stored session.
 */
export interface SessionListed {
  sessionId: string;
  title: string;
  workspaceRoot: string;
  createdAt: string;
  updatedAt: string;
  runs: number;
  turns: number;
  usage: Usage;
  contextTokens: number;
}
/**
 * `agent/session`: what a chat view needs to show a session again.
 */
export interface SessionResult {
  sessionId: string;
  title: string;
  messages: StoredMessage[];
  runs: StoredRun[];
  plan?: Plan;
  model?: ModelChoice;
  skippedLines?: number;
}
/**
 * A message of a session's history, as stored.
 */
export interface StoredMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  toolCalls?: StoredToolCall[];
  toolCallId?: string;
  isError?: true;
  reasoning?: {
    [k: string]: unknown;
  }[];
  images?: StoredImage[];
}
/**
 * A tool call as a session shows it (`arguments` as the model wrote them).
 */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
  kind: 'read' | 'edit' | 'execute' | 'other' | 'think';
  wireId?: string;
  outcome?: CallOutcome;
}
/**
 * What the session kept of a finished call: `status` (`completed` or why it failed), the fields its `tool_completed`/`tool_failed` carried, the `approval` that decided it, `started: false` for a call that never ran, `asked: true` for a question never answered.
 */
export interface CallOutcome {
  bytes: number;
  truncated: boolean;
  durationMs: number;
  reason?: 'error' | 'timeout' | 'unknown_tool' | 'bad_arguments' | 'cancelled' | 'denied' | 'rejected';
  message?: string;
  changedFiles?: ChangedFile[];
  changedFilesSharedWith?: string[];
  path?: string;
  diff?: string;
  added?: number;
  removed?: number;
  via?: 'editor' | 'disk';
  diffTruncated?: true;
  exitCode?: number;
  signal?: string;
  sandbox?: string;
  diagnostics?: Problem[];
  diagnosticsSource?: 'editor' | 'harness9';
  parentToolCallId?: string;
  agent?: string;
  usage?: Usage;
  costUsd?: number;
  status: string;
  turn: number;
  approval?: OutcomeApproval;
  started?: false;
  asked?: true;
  transcript?: StoredMessage[];
}
/**
 * A file a call changed.
 */
export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
}
/**
 * A problem the editor's language servers reported (1-based line and column).
 */
export interface Problem {
  path: string;
  line: number;
  column: number;
  severity: string;
  message: string;
  source?: string;
  code?: string;
}
/**
 * What decided a call, when it was not simply the mode's allow.
 */
export interface OutcomeApproval {
  decision: 'allow_once' | 'allow_session' | 'reject' | 'allow' | 'deny';
  by: 'user' | 'rule' | 'session' | 'mode';
  rule?: string;
}
/**
 * An image given with a prompt.
 */
export interface StoredImage {
  mediaType: string;
  data: string;
}
/**
 * A run of a session.
 */
export interface StoredRun {
  runId: string | null;
  prompt: string | null;
  status: string | null;
  turns: number;
  toolCalls: number;
  startedAt: string;
  costUsd?: number;
}
/**
 * The model's plan as it last wrote it.
 */
export interface Plan {
  items: PlanItem[];
  note?: string;
}
/**
 * One step of the model's plan.
 */
export interface PlanItem {
  text: string;
  status: 'pending' | 'in_progress' | 'done';
}
/**
 * A session's model: its provider, the model's id and, where it applies, the effort.
 */
export interface ModelChoice {
  provider: 'openai' | 'anthropic' | 'replay';
  model: string;
  reasoningEffort?: string;
}
/**
 * Whether a stored session was removed.
 */
export interface DeleteSessionResult {
  deleted: boolean;
}
/**
 * A compaction's effect (token counts are estimates).
 */
export interface CompactResult {
  beforeTokens: number;
  afterTokens: number;
  method: 'prune' | 'summary';
}
/**
 * `agent/steer`: a message for a running run, before its next model call.
 */
export interface SteerParams {
  runId: string;
  prompt: string;
  context?: ContextItem[] | null;
}
/**
 * Where the message went: into the run, or the session's next run.
 */
export interface SteerResult {
  delivered: 'run' | 'next';
  runId: string;
}
/**
 * The prompts queued on a session, next first.
 */
export interface QueueResult {
  queued: QueuedPrompt[];
}
/**
 * A prompt waiting behind the session's running run.
 */
export interface QueuedPrompt {
  queueId: string;
  runId: string;
  prompt: string;
  position: number;
}
/**
 * `agent/unqueue`: the queued prompt to remove.
 */
export interface UnqueueParams {
  sessionId: string;
  queueId: string;
}
/**
 * Whether it was still queued.
 */
export interface UnqueueResult {
  removed: boolean;
}
/**
 * `agent/models`: one provider's, or every configured one's; `refresh` asks again.
 */
export interface ModelsParams {
  provider?: 'openai' | 'anthropic' | 'replay';
  sessionId?: string;
  refresh?: boolean;
}
/**
 * The models the configured services offer, and the one in use.
 */
export interface ModelsResult {
  models: ModelListed[];
  current: ModelChoice | null;
  errors: ModelsError[];
}
/**
 * A model a service offers, with what is known of its family.
 */
export interface ModelListed {
  provider: 'openai' | 'anthropic' | 'replay';
  id: string;
  name?: string;
  contextWindow?: number;
  images?: boolean;
  reasoning?: boolean;
}
/**
 * A service that could not be asked.
 */
export interface ModelsError {
  provider: string;
  kind: string;
  message: string;
}
/**
 * `agent/setModel`: the model of a session's next runs (`reasoningEffort` null or absent: the settings' effort).
 */
export interface SetModelParams {
  sessionId: string;
  model: string;
  provider?: 'openai' | 'anthropic' | 'replay';
  reasoningEffort?: string | null;
}
/**
 * `agent/commands`: the session and workspace folder they are for.
 */
export interface CommandsParams {
  sessionId?: string;
  workspaceFolder?: string;
}
/**
 * The slash commands: built in, the workspace's and the user's.
 */
export interface CommandsResult {
  commands: CommandListed[];
}
/**
 * A slash command.
 */
export interface CommandListed {
  name: string;
  description: string;
  source: 'builtin' | 'workspace' | 'user';
  argumentHint?: string;
}
/**
 * `agent/changedSince`: a session's checkpoint.
 */
export interface ChangedSinceParams {
  sessionId: string;
  checkpointId: string;
}
/**
 * Each file a restore to the checkpoint would put back, as it was then.
 */
export interface ChangedSinceResult {
  files: FileThen[];
}
/**
 * A file as it was at the checkpoint (`existed: false`: it did not exist; `skipped`: why its text is not given).
 */
export interface FileThen {
  path: string;
  existed: boolean;
  text?: string;
  skipped?: string;
}
/**
 * `agent/agents`: the agents there are, the built-in ones first.
 */
export interface AgentsResult {
  agents: AgentListed[];
}
/**
 * An agent a `task` call may run: built in, or a `.harness9/agents/*.md` file's.
 */
export interface AgentListed {
  name: string;
  description: string;
  source: 'builtin' | 'workspace' | 'user';
  tools?: string[];
  model?: string;
  reasoningEffort?: string;
}
/**
 * Every task, oldest first.
 */
export interface TasksResult {
  tasks: TaskListed[];
}
/**
 * A task: its session, its run's status (`running`, the run's end status, `applied`, or `interrupted` when its daemon ended while it ran), what it changed, and its `title` (the first line of its prompt, or a child agent's task description; "" for a task recorded before titles were kept).
 */
export interface TaskListed {
  sessionId: string;
  status: string;
  worktree: TaskWorktree;
  changedFiles: string[];
  insertions: number;
  deletions: number;
  workspace?: string;
  title?: string;
}
/**
 * Where a task works: the workspace's place in its worktree, and its branch.
 */
export interface TaskWorktree {
  path: string;
  branch: string;
}
/**
 * Whether the task's changes were applied (all of them), else the conflicting files and nothing written; `files`: the files written.
 */
export interface ApplyTaskResult {
  applied: boolean;
  conflicts: string[];
  hunks?: ConflictHunks[];
  files?: string[];
}
/**
 * A conflicting file: the merge's text with its conflict markers, or why it cannot merge.
 */
export interface ConflictHunks {
  path: string;
  text: string;
}
/**
 * The task's worktree and branch are removed.
 */
export interface DiscardTaskResult {
  discarded: boolean;
}
/**
 * `agent/requestApproval`: ask the user about a call. `path` and `diff` come with file tools (the change, computed before asking); `files` lists every file of a change of several; `reason` says why a call the mode would run is asked about.
 */
export interface RequestApprovalParams {
  runId: string;
  sessionId: string;
  turn: number;
  toolCallId: string;
  tool: string;
  toolKind: 'read' | 'edit' | 'execute' | 'other' | 'think';
  arguments: unknown;
  title: string;
  options: ApprovalOption[];
  path?: string;
  diff?: string;
  reason?: string;
  files?: string[];
  parentToolCallId?: string;
  agent?: string;
}
/**
 * An answer the user may give.
 */
export interface ApprovalOption {
  id: 'allow_once' | 'allow_session' | 'reject';
  label: string;
}
/**
 * The user's answer; `message` (their reason) goes to the model; `content` is a file's whole new text as the user changed the proposed edit before allowing it.
 */
export interface RequestApprovalResult {
  decision: 'allow_once' | 'allow_session' | 'reject';
  message?: string;
  content?: string;
}
/**
 * `harness9/diagnostics`: the problems of a document (of its `version`, when given) or, asked with the workspace folder's URI, of every file; wait up to `timeoutMs`.
 */
export interface DiagnosticsParams {
  uri: string;
  timeoutMs: number;
  version?: number;
}
/**
 * LSP diagnostics of the document, or `items` of every file the client knows.
 */
export interface DiagnosticsResult {
  diagnostics?: {
    [k: string]: unknown;
  }[];
  version?: number;
  items?: {
    [k: string]: unknown;
  }[];
  [k: string]: unknown;
}
/**
 * `harness9/languageQuery`: ask the editor's language servers (positions in the negotiated encoding).
 */
export interface LanguageQueryParams {
  kind: 'definition' | 'references' | 'symbols' | 'hover' | 'rename';
  uri: string;
  position?: Position;
  query?: string;
  newName?: string;
}
/**
 * `locations`, `symbols`, `hover` or `edit` (a WorkspaceEdit), by the query's kind.
 */
export interface LanguageQueryResult {
  [k: string]: unknown;
}
/**
 * Before the first model call.
 */
export interface RunStarted {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'run_started';
  workspaceRoot: string;
  provider: string;
  model: string;
  maxTurns: number;
  toolTimeoutMs: number;
  thinking: boolean;
  stream: boolean;
  reasoningEffort?: string;
  worktree?: TaskWorktree;
}
/**
 * Before a turn's model call(s); `messages` is the context's size in messages.
 */
export interface TurnStarted {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'turn_started';
  turn: number;
  messages: number;
}
/**
 * The thinking phase answered (thinking mode only).
 */
export interface Thinking {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'thinking';
  turn: number;
  text: string;
  parentToolCallId?: string;
  agent?: string;
}
/**
 * A streamed piece of the answer's text (merged while the client lags).
 */
export interface TextDelta {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'text_delta';
  turn: number;
  text: string;
}
/**
 * A turn's assistant message is complete (also when it calls no tool).
 */
export interface AssistantMessage {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'assistant_message';
  turn: number;
  text: string;
  toolCalls: WireToolCall[];
  parentToolCallId?: string;
  agent?: string;
}
/**
 * A tool call as the model made it: the parsed arguments (or the raw text when not JSON).
 */
export interface WireToolCall {
  id: string;
  name: string;
  arguments: unknown;
  kind: 'read' | 'edit' | 'execute' | 'other' | 'think';
}
/**
 * A tool call begins (after its approval); `sandbox` names the OS sandbox of a command.
 */
export interface ToolStarted {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'tool_started';
  turn: number;
  toolCallId: string;
  tool: string;
  toolKind: 'read' | 'edit' | 'execute' | 'other' | 'think';
  arguments: unknown;
  sandbox?: string;
  parentToolCallId?: string;
  agent?: string;
}
/**
 * The user is being asked about a call.
 */
export interface ApprovalRequested {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'approval_requested';
  turn: number;
  toolCallId: string;
  tool: string;
  toolKind: 'read' | 'edit' | 'execute' | 'other' | 'think';
  title: string;
  arguments: unknown;
  reason?: string;
  parentToolCallId?: string;
  agent?: string;
}
/**
 * A call's fate, unless the mode simply allowed it.
 */
export interface ApprovalResolved {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'approval_resolved';
  turn: number;
  toolCallId: string;
  tool: string;
  decision: 'allow_once' | 'allow_session' | 'reject' | 'allow' | 'deny';
  by: 'user' | 'rule' | 'session' | 'mode';
  rule?: string;
  parentToolCallId?: string;
  agent?: string;
}
/**
 * A tool call returned; `output` is what the model reads.
 */
export interface ToolCompleted {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'tool_completed';
  bytes: number;
  truncated: boolean;
  durationMs: number;
  reason?: 'error' | 'timeout' | 'unknown_tool' | 'bad_arguments' | 'cancelled' | 'denied' | 'rejected';
  message?: string;
  changedFiles?: ChangedFile[];
  changedFilesSharedWith?: string[];
  path?: string;
  diff?: string;
  added?: number;
  removed?: number;
  via?: 'editor' | 'disk';
  diffTruncated?: true;
  exitCode?: number;
  signal?: string;
  sandbox?: string;
  diagnostics?: Problem[];
  diagnosticsSource?: 'editor' | 'harness9';
  parentToolCallId?: string;
  agent?: string;
  usage?: Usage;
  costUsd?: number;
  turn: number;
  toolCallId: string;
  tool: string;
  toolKind: 'read' | 'edit' | 'execute' | 'other' | 'think';
  output: string;
}
/**
 * A tool call failed (`reason` says how); `output` is what the model reads.
 */
export interface ToolFailed {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'tool_failed';
  bytes: number;
  truncated: boolean;
  durationMs: number;
  reason?: 'error' | 'timeout' | 'unknown_tool' | 'bad_arguments' | 'cancelled' | 'denied' | 'rejected';
  message?: string;
  changedFiles?: ChangedFile[];
  changedFilesSharedWith?: string[];
  path?: string;
  diff?: string;
  added?: number;
  removed?: number;
  via?: 'editor' | 'disk';
  diffTruncated?: true;
  exitCode?: number;
  signal?: string;
  sandbox?: string;
  diagnostics?: Problem[];
  diagnosticsSource?: 'editor' | 'harness9';
  parentToolCallId?: string;
  agent?: string;
  usage?: Usage;
  costUsd?: number;
  turn: number;
  toolCallId: string;
  tool: string;
  toolKind: 'read' | 'edit' | 'execute' | 'other' | 'think';
  output: string;
}
/**
 * The turn's tool results were added to the context.
 */
export interface Observation {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'observation';
  turn: number;
  toolCallIds: string[];
  messages: number;
}
/**
 * After each model call that reported usage: the call's tokens and the run's totals.
 */
export interface UsageProgress {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'usage';
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  cacheWriteInputTokens?: number;
  turn: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCachedInputTokens: number;
  contextTokens?: number;
  contextWindow?: number;
  costUsd?: number;
}
/**
 * The last notification of every run, whatever its end.
 */
export interface RunFinished {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'run_finished';
  status: 'completed' | 'max_turns' | 'cancelled' | 'error';
  turns: number;
  toolCalls: number;
  usage: Usage;
  text: string;
  error?: RunError;
}
/**
 * Why a run ended with `error`: the same `kind` as the -32803 error's `data.kind`.
 */
export interface RunError {
  kind: string;
  message: string;
  status?: number;
  model?: string;
}
/**
 * The workspace was snapshotted before a batch of tool calls.
 */
export interface Checkpoint {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'checkpoint';
  turn: number;
  checkpointId: string;
  files: string[];
}
/**
 * Checkpoints cannot be taken here (said once per run).
 */
export interface CheckpointsOff {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'checkpoints_off';
  message: string;
}
/**
 * The conversation was compacted before a call (token counts are estimates).
 */
export interface ContextCompacted {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'context_compacted';
  turn: number;
  beforeTokens: number;
  afterTokens: number;
  method: 'prune' | 'summary';
}
/**
 * The newest output of a running command (at most 10 a second, 64 KiB a call).
 */
export interface ToolOutput {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'tool_output';
  turn: number;
  toolCallId: string;
  text: string;
  truncated?: true;
  parentToolCallId?: string;
  agent?: string;
}
/**
 * A steering message reached the run before its next model call.
 */
export interface Steered {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'steered';
  turn: number;
  text: string;
}
/**
 * The run waits behind the session's running run (`position` 1 runs next).
 */
export interface Queued {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'queued';
  queueId: string;
  position: number;
}
/**
 * The run left the session's queue.
 */
export interface Dequeued {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'dequeued';
  queueId: string;
  reason: 'started' | 'removed' | 'cancelled';
}
/**
 * The model wrote its plan.
 */
export interface PlanProgress {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'plan';
  items: PlanItem[];
  note?: string;
  turn: number;
}
/**
 * A slash command that acts without the model ran (its answer follows as text).
 */
export interface Command {
  runId: string;
  sessionId: string;
  seq: number;
  kind: 'command';
  name: string;
  arguments: string;
}
/**
 * `harness9.cancel`: the run (none: every run a command started).
 */
export interface CancelCommandArguments {
  runId?: string;
}
/**
 * `InitializeParams.capabilities.experimental.harness9`: what the client can answer.
 */
export interface ClientCapabilities {
  approvalRequests?: boolean;
  diagnostics?: boolean;
  languageFeatures?: string[];
}
/**
 * Whether a run was cancelled.
 */
export interface CommandCancelled {
  cancelled: boolean;
}
/**
 * A command's run has started: the ids its progress and transcript go by.
 */
export interface CommandRunStarted {
  runId: string;
  sessionId: string;
}
/**
 * `harness9.fix`: the LSP diagnostics of `uri` to fix (what a quick fix carries).
 */
export interface FixCommandArguments {
  uri: string;
  diagnostics: {
    [k: string]: unknown;
  }[];
  newSession?: boolean;
  workspaceFolder?: string;
}
/**
 * One entry of the `pathMap` client setting: the editor's path or URI prefix (`local`) and the daemon's (`remote`) for the same folder.
 */
export interface PathMapping {
  local: string;
  remote: string;
}
/**
 * `harness9.run`: a prompt (about a file, or a range of it), or the instruction comment on `instructionLine` of `uri` (0-based) as the prompt; `newSession` leaves the workspace's session for a new one.
 */
export interface RunCommandArguments {
  prompt?: string;
  uri?: string;
  range?: Range;
  instructionLine?: number;
  newSession?: boolean;
  workspaceFolder?: string;
}
/**
 * `InitializeResult.capabilities.experimental.harness9`.
 */
export interface ServerCapabilities {
  protocolVersion: string;
  methods: string[];
  progressKinds: string[];
  approvalContent?: boolean;
  restorePreview?: boolean;
  pathMap?: boolean;
}
/**
 * The workspace session's transcript, as a URI and a path.
 */
export interface TranscriptShown {
  uri: string;
  path: string;
}
export const PROTOCOL_VERSION = '1.3';
