"""The `agent/progress` notifications: one record per `kind`.

Each record holds what its kind carries; every notification also carries the envelope
(`ProgressEnvelope`: `runId`, `sessionId`, `seq`). `PROGRESS` lists the kinds in the order the
protocol document introduces them.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, get_args, get_type_hints

from harness9.protocol.shapes import (
    DecidedBy,
    Decision,
    Plan,
    ResultFields,
    RunError,
    RunStatus,
    ToolKindName,
    Usage,
    WireToolCall,
)
from harness9.protocol.task_requests import TaskWorktree


class ProgressEnvelope(TypedDict):
    """What every `agent/progress` notification carries: its run and session, and `seq`
    (1, 2, … without gaps within a run)."""

    runId: str
    sessionId: str
    seq: int


class RunStarted(TypedDict):
    """Before the first model call."""

    kind: Literal["run_started"]
    workspaceRoot: str
    provider: str
    model: str
    maxTurns: int
    toolTimeoutMs: int
    thinking: bool
    stream: bool
    reasoningEffort: NotRequired[str]
    worktree: NotRequired[TaskWorktree]  # a task's run: where it works


class TurnStarted(TypedDict):
    """Before a turn's model call(s); `messages` is the context's size in messages."""

    kind: Literal["turn_started"]
    turn: int
    messages: int


class Thinking(TypedDict):
    """The thinking phase answered (thinking mode only)."""

    kind: Literal["thinking"]
    turn: int
    text: str
    parentToolCallId: NotRequired[str]  # a child agent's (task): the task call
    agent: NotRequired[str]  # and its agent


class TextDelta(TypedDict):
    """A streamed piece of the answer's text (merged while the client lags)."""

    kind: Literal["text_delta"]
    turn: int
    text: str


class AssistantMessage(TypedDict):
    """A turn's assistant message is complete (also when it calls no tool)."""

    kind: Literal["assistant_message"]
    turn: int
    text: str
    toolCalls: list[WireToolCall]
    parentToolCallId: NotRequired[str]  # a child agent's (task): the task call
    agent: NotRequired[str]  # and its agent


class ApprovalRequested(TypedDict):
    """The user is being asked about a call."""

    kind: Literal["approval_requested"]
    turn: int
    toolCallId: str
    tool: str
    toolKind: ToolKindName
    title: str
    arguments: Any
    reason: NotRequired[str]
    parentToolCallId: NotRequired[str]  # a child agent's (task): the task call
    agent: NotRequired[str]  # and its agent


class ApprovalResolved(TypedDict):
    """A call's fate, unless the mode simply allowed it."""

    kind: Literal["approval_resolved"]
    turn: int
    toolCallId: str
    tool: str
    decision: Decision
    by: DecidedBy
    rule: NotRequired[str]
    parentToolCallId: NotRequired[str]  # a child agent's (task): the task call
    agent: NotRequired[str]  # and its agent


class ToolStarted(TypedDict):
    """A tool call begins (after its approval); `sandbox` names the OS sandbox of a command."""

    kind: Literal["tool_started"]
    turn: int
    toolCallId: str
    tool: str
    toolKind: ToolKindName
    arguments: Any
    sandbox: NotRequired[str]
    parentToolCallId: NotRequired[str]  # a child agent's (task): the task call
    agent: NotRequired[str]  # and its agent


class ToolOutput(TypedDict):
    """The newest output of a running command (at most 10 a second, 64 KiB a call)."""

    kind: Literal["tool_output"]
    turn: int
    toolCallId: str
    text: str
    truncated: NotRequired[Literal[True]]
    parentToolCallId: NotRequired[str]  # a child agent's (task): the task call
    agent: NotRequired[str]  # and its agent


class ToolCompleted(ResultFields):
    """A tool call returned; `output` is what the model reads."""

    kind: Literal["tool_completed"]
    turn: int
    toolCallId: str
    tool: str
    toolKind: ToolKindName
    output: str


class ToolFailed(ResultFields):
    """A tool call failed (`reason` says how); `output` is what the model reads."""

    kind: Literal["tool_failed"]
    turn: int
    toolCallId: str
    tool: str
    toolKind: ToolKindName
    output: str


class Checkpoint(TypedDict):
    """The workspace was snapshotted before a batch of tool calls."""

    kind: Literal["checkpoint"]
    turn: int
    checkpointId: str
    files: list[str]


class CheckpointsOff(TypedDict):
    """Checkpoints cannot be taken here (said once per run)."""

    kind: Literal["checkpoints_off"]
    message: str


class Observation(TypedDict):
    """The turn's tool results were added to the context."""

    kind: Literal["observation"]
    turn: int
    toolCallIds: list[str]
    messages: int


class UsageProgress(Usage):
    """After each model call that reported usage: the call's tokens and the run's totals."""

    kind: Literal["usage"]
    turn: int
    totalInputTokens: int
    totalOutputTokens: int
    totalCachedInputTokens: int
    contextTokens: NotRequired[int]
    contextWindow: NotRequired[int]
    costUsd: NotRequired[float]


class ContextCompacted(TypedDict):
    """The conversation was compacted before a call (token counts are estimates)."""

    kind: Literal["context_compacted"]
    turn: int
    beforeTokens: int
    afterTokens: int
    method: Literal["prune", "summary"]


class Steered(TypedDict):
    """A steering message reached the run before its next model call."""

    kind: Literal["steered"]
    turn: int
    text: str


class PlanProgress(Plan):
    """The model wrote its plan."""

    kind: Literal["plan"]
    turn: int


class Command(TypedDict):
    """A slash command that acts without the model ran (its answer follows as text)."""

    kind: Literal["command"]
    name: str
    arguments: str


class Queued(TypedDict):
    """The run waits behind the session's running run (`position` 1 runs next)."""

    kind: Literal["queued"]
    queueId: str
    position: int


class Dequeued(TypedDict):
    """The run left the session's queue."""

    kind: Literal["dequeued"]
    queueId: str
    reason: Literal["started", "removed", "cancelled"]


class RunFinished(TypedDict):
    """The last notification of every run, whatever its end."""

    kind: Literal["run_finished"]
    status: RunStatus
    turns: int
    toolCalls: int
    usage: Usage
    text: str
    error: NotRequired[RunError]


ProgressFields = (
    RunStarted | TurnStarted | Thinking | TextDelta | AssistantMessage | ToolStarted
    | ApprovalRequested | ApprovalResolved | ToolCompleted | ToolFailed | Observation
    | UsageProgress | RunFinished | Checkpoint | CheckpointsOff | ContextCompacted | ToolOutput
    | Steered | Queued | Dequeued | PlanProgress | Command
)

# Every kind's record, in the order of the protocol document (and of `progressKinds`).
PROGRESS: tuple[type, ...] = (
    RunStarted, TurnStarted, Thinking, TextDelta, AssistantMessage, ToolStarted,
    ApprovalRequested, ApprovalResolved, ToolCompleted, ToolFailed, Observation, UsageProgress,
    RunFinished, Checkpoint, CheckpointsOff, ContextCompacted, ToolOutput, Steered, Queued,
    Dequeued, PlanProgress, Command,
)


def kind_of(record: type) -> str:
    """The `kind` a progress record stands for."""
    return str(get_args(get_type_hints(record)["kind"])[0])
