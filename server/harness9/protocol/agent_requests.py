"""Client → server requests: each method's params and result.

Params records say what a client may send (the daemon checks them field by field and names a bad
one in its -32602 error); result records say what the daemon answers.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from harness9.protocol.json_schema import open_record
from harness9.protocol.shapes import ModelChoice, ProviderName, RunStatus, ToolKindName, Usage


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
    provider: NotRequired[ProviderName]
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
    isolation: NotRequired[Literal["worktree"]]
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


class ModelsParams(TypedDict):
    """`agent/models`: one provider's, or every configured one's; `refresh` asks again."""

    provider: NotRequired[ProviderName]
    sessionId: NotRequired[str]
    refresh: NotRequired[bool]


class ModelListed(TypedDict):
    """A model a service offers, with what is known of its family."""

    provider: ProviderName
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
    """`agent/setModel`: the model of a session's next runs (`reasoningEffort` null or absent:
    the settings' effort)."""

    sessionId: str
    model: str
    provider: NotRequired[ProviderName]
    reasoningEffort: NotRequired[str | None]


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


class AgentListed(TypedDict):
    """An agent a `task` call may run: built in, or a `.harness9/agents/*.md` file's."""

    name: str
    description: str
    source: Literal["builtin", "workspace", "user"]
    tools: NotRequired[list[str]]
    model: NotRequired[str]
    reasoningEffort: NotRequired[str]


class AgentsResult(TypedDict):
    """`agent/agents`: the agents there are, the built-in ones first."""

    agents: list[AgentListed]


class NoParams(TypedDict):
    """No params (an empty object or none)."""
