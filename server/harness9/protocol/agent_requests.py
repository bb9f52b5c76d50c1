"""Client → server requests: each method's params and result.

Params records say what a client may send (the daemon checks them field by field and names a bad
one in its -32602 error); result records say what the daemon answers.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from harness9.protocol.json_schema import open_record
from harness9.protocol.shapes import ModelChoice, Plan, RunStatus, ToolKindName, Usage


class Position(TypedDict):
    """An LSP position (0-based line and character)."""

    line: int
    character: int


class Range(TypedDict):
    """An LSP range."""

    start: Position
    end: Position


class ContextItem(TypedDict):
    """Editor context given with a prompt: a file, a selection, diagnostics, a note or an image
    (`kind: "image"` with `mimeType` and base64 `data`)."""

    uri: NotRequired[str]
    range: NotRequired[Range]
    text: NotRequired[str]
    kind: NotRequired[Literal["file", "selection", "diagnostics", "note", "image"]]
    mimeType: NotRequired[str]
    data: NotRequired[str]


@open_record
class RunParams(TypedDict):
    """`agent/run`: a prompt, and where and how to run it. Any run setting (README, "Settings":
    `approvals`, `checkpoints`, `maxParallelTools`, …) may be given for this run too."""

    prompt: NotRequired[str]
    sessionId: NotRequired[str]
    workspaceFolder: NotRequired[str]
    provider: NotRequired[Literal["openai", "anthropic", "replay"]]
    model: NotRequired[str]
    reasoningEffort: NotRequired[str]
    maxTurns: NotRequired[int]
    toolTimeoutMs: NotRequired[int]
    thinking: NotRequired[bool]
    stream: NotRequired[bool]
    context: NotRequired[list[ContextItem] | None]
    instructions: NotRequired[bool]
    queue: NotRequired[bool]
    plan: NotRequired[bool]
    executePlan: NotRequired[bool]
    replayFile: NotRequired[str]
    workDoneToken: NotRequired[str | int]


@open_record
class RunResult(TypedDict):
    """`agent/run`'s answer once the loop ended. A slash command's run adds `command` (its name)
    and what the command did (`compacted`, `restored`, `models`, `current`, `model`, `mode`)."""

    runId: str
    sessionId: str
    status: RunStatus
    text: str
    turns: int
    toolCalls: int
    usage: Usage
    command: NotRequired[str]


class CancelParams(TypedDict):
    """`agent/cancel`: the run, or the session whose run to cancel."""

    runId: NotRequired[str]
    sessionId: NotRequired[str]


class CancelResult(TypedDict):
    """Whether a run was cancelled."""

    cancelled: bool


class SteerParams(TypedDict):
    """`agent/steer`: a message for a running run, before its next model call."""

    runId: str
    prompt: str
    context: NotRequired[list[ContextItem] | None]


class SteerResult(TypedDict):
    """Where the message went: into the run, or the session's next run."""

    delivered: Literal["run", "next"]
    runId: str


class SessionParams(TypedDict):
    """A session, by id."""

    sessionId: str


class QueuedPrompt(TypedDict):
    """A prompt waiting behind the session's running run."""

    queueId: str
    runId: str
    prompt: str
    position: int


class QueueResult(TypedDict):
    """The prompts queued on a session, next first."""

    queued: list[QueuedPrompt]


class UnqueueParams(TypedDict):
    """`agent/unqueue`: the queued prompt to remove."""

    sessionId: str
    queueId: str


class UnqueueResult(TypedDict):
    """Whether it was still queued."""

    removed: bool


@open_record
class ToolSchema(TypedDict):
    """A JSON Schema of a tool's input (as the model receives it)."""


class ToolListed(TypedDict):
    """A tool the model is offered; `server` names an MCP tool's server."""

    name: str
    description: str
    inputSchema: ToolSchema
    kind: ToolKindName
    server: NotRequired[str]


class ToolsResult(TypedDict):
    """`agent/tools`: exactly what the model is offered."""

    tools: list[ToolListed]


class CheckpointListed(TypedDict):
    """A checkpoint of a session; `undoes` names the checkpoint a restore undid."""

    checkpointId: str
    runId: str
    turn: int
    createdAt: str
    files: list[str]
    undoes: NotRequired[str]


class CheckpointsResult(TypedDict):
    """A session's checkpoints, oldest first."""

    checkpoints: list[CheckpointListed]


class RestoreParams(TypedDict):
    """`agent/restore`: put the workspace back to a checkpoint (`files`: only these; `dryRun`:
    only say which files it would restore)."""

    sessionId: str
    checkpointId: str
    dryRun: NotRequired[bool]
    files: NotRequired[list[str]]


class RestoreResult(TypedDict):
    """The files restored (or, with `dryRun`, that would be)."""

    restored: list[str]
    dryRun: NotRequired[Literal[True]]


class ChangedSinceParams(TypedDict):
    """`agent/changedSince`: a session's checkpoint."""

    sessionId: str
    checkpointId: str


class FileThen(TypedDict):
    """A file as it was at the checkpoint (`existed: false`: it did not exist; `skipped`: why
    its text is not given)."""

    path: str
    existed: bool
    text: NotRequired[str]
    skipped: NotRequired[str]


class ChangedSinceResult(TypedDict):
    """Each file a restore to the checkpoint would put back, as it was then."""

    files: list[FileThen]


class SessionsParams(TypedDict):
    """`agent/sessions`: a workspace folder (default: the first)."""

    workspaceFolder: NotRequired[str]


class SessionListed(TypedDict):
    """A stored session."""

    sessionId: str
    title: str
    workspaceRoot: str
    createdAt: str
    updatedAt: str
    runs: int
    turns: int
    usage: Usage
    contextTokens: int


class SessionsResult(TypedDict):
    """A workspace's stored sessions, newest first."""

    sessions: list[SessionListed]


@open_record
class CallOutcome(TypedDict):
    """What the session kept of a finished call: `status` (`completed` or why it failed) and the
    fields its `tool_completed`/`tool_failed` carried."""

    status: str
    turn: int


class StoredToolCall(TypedDict):
    """A tool call as a session shows it (`arguments` as the model wrote them)."""

    id: str
    name: str
    arguments: str
    kind: ToolKindName
    wireId: NotRequired[str]
    outcome: NotRequired[CallOutcome]


class StoredImage(TypedDict):
    """An image given with a prompt."""

    mediaType: str
    data: str


class StoredMessage(TypedDict):
    """A message of a session's history, as stored."""

    role: Literal["system", "user", "assistant"]
    content: str
    toolCalls: NotRequired[list[StoredToolCall]]
    toolCallId: NotRequired[str]
    isError: NotRequired[Literal[True]]
    reasoning: NotRequired[list[dict[str, Any]]]
    images: NotRequired[list[StoredImage]]


class StoredRun(TypedDict):
    """A run of a session."""

    runId: str | None
    prompt: str | None
    status: str | None
    turns: int
    toolCalls: int
    startedAt: str
    costUsd: NotRequired[float]


class SessionResult(TypedDict):
    """`agent/session`: what a chat view needs to show a session again."""

    sessionId: str
    title: str
    messages: list[StoredMessage]
    runs: list[StoredRun]
    plan: NotRequired[Plan]
    model: NotRequired[ModelChoice]
    skippedLines: NotRequired[int]


class DeleteSessionResult(TypedDict):
    """Whether a stored session was removed."""

    deleted: bool


class CompactResult(TypedDict):
    """A compaction's effect (token counts are estimates)."""

    beforeTokens: int
    afterTokens: int
    method: Literal["prune", "summary"]


class ModelsParams(TypedDict):
    """`agent/models`: one provider's, or every configured one's; `refresh` asks again."""

    provider: NotRequired[Literal["openai", "anthropic", "replay"]]
    sessionId: NotRequired[str]
    refresh: NotRequired[bool]


class ModelListed(TypedDict):
    """A model a service offers, with what is known of its family."""

    provider: str
    id: str
    name: NotRequired[str]
    contextWindow: NotRequired[int]
    images: NotRequired[bool]
    reasoning: NotRequired[bool]


class ModelsError(TypedDict):
    """A service that could not be asked."""

    provider: str
    kind: str
    message: str


class ModelsResult(TypedDict):
    """The models the configured services offer, and the one in use."""

    models: list[ModelListed]
    current: ModelChoice | None
    errors: list[ModelsError]


class SetModelParams(TypedDict):
    """`agent/setModel`: the model of a session's next runs."""

    sessionId: str
    model: str
    provider: NotRequired[Literal["openai", "anthropic", "replay"]]
    reasoningEffort: NotRequired[str]


class CommandsParams(TypedDict):
    """`agent/commands`: the session and workspace folder they are for."""

    sessionId: NotRequired[str]
    workspaceFolder: NotRequired[str]


class CommandListed(TypedDict):
    """A slash command."""

    name: str
    description: str
    source: Literal["builtin", "workspace", "user"]
    argumentHint: NotRequired[str]


class CommandsResult(TypedDict):
    """The slash commands: built in, the workspace's and the user's."""

    commands: list[CommandListed]


class NoParams(TypedDict):
    """No params (an empty object or none)."""
