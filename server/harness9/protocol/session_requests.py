"""Requests about stored sessions and their checkpoints: each one's params and result."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from harness9.protocol.shapes import (
    DecidedBy,
    Decision,
    ModelChoice,
    Plan,
    ResultFields,
    ToolKindName,
    Usage,
)


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


class OutcomeApproval(TypedDict):
    """What decided a call, when it was not simply the mode's allow."""

    decision: Decision
    by: DecidedBy
    rule: NotRequired[str]


class CallOutcome(ResultFields):
    """What the session kept of a finished call: `status` (`completed` or why it failed), the
    fields its `tool_completed`/`tool_failed` carried, the `approval` that decided it,
    `started: false` for a call that never ran, `asked: true` for a question never answered."""

    status: str
    turn: int
    approval: NotRequired[OutcomeApproval]
    started: NotRequired[Literal[False]]
    asked: NotRequired[Literal[True]]
    transcript: NotRequired[list[StoredMessage]]  # a task's: its child's conversation


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
