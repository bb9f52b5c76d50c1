"""Shapes several messages share: usage, tool kinds, what a tool call changed, problems, models.

Keys are the wire's names (camelCase), so the records read as the messages do.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

ToolKindName = Literal["read", "edit", "execute", "other", "think"]
FailureReason = Literal["error", "timeout", "unknown_tool", "bad_arguments", "cancelled",
                        "denied", "rejected"]
RunStatus = Literal["completed", "max_turns", "cancelled", "error"]
Decision = Literal["allow_once", "allow_session", "reject", "allow", "deny"]
DecidedBy = Literal["user", "rule", "session", "mode"]
ProviderName = Literal["openai", "anthropic", "replay"]


class Usage(TypedDict):
    """Tokens of one call or of a run (`cachedInputTokens`: of the input, those read from the
    service's prompt cache; `cacheWriteInputTokens`: those written to it)."""

    inputTokens: int
    outputTokens: int
    cachedInputTokens: NotRequired[int]
    cacheWriteInputTokens: NotRequired[int]


class ChangedFile(TypedDict):
    """A file a call changed."""

    path: str
    status: Literal["added", "modified", "deleted"]


class Problem(TypedDict):
    """A problem the editor's language servers reported (1-based line and column)."""

    path: str
    line: int
    column: int
    severity: str
    message: str
    source: NotRequired[str]
    code: NotRequired[str]


class ResultFields(TypedDict):
    """What a finished call carries besides its output: sizes and time, why it failed, what it
    changed (a file tool's diff, a command's changed files), how its command ended, its sandbox,
    and the problems new since an edit."""

    bytes: int
    truncated: bool
    durationMs: float
    reason: NotRequired[FailureReason]
    message: NotRequired[str]
    changedFiles: NotRequired[list[ChangedFile]]
    changedFilesSharedWith: NotRequired[list[str]]
    path: NotRequired[str]
    diff: NotRequired[str]
    added: NotRequired[int]
    removed: NotRequired[int]
    via: NotRequired[Literal["editor", "disk"]]
    diffTruncated: NotRequired[Literal[True]]
    exitCode: NotRequired[int]
    signal: NotRequired[str]
    sandbox: NotRequired[str]
    diagnostics: NotRequired[list[Problem]]
    diagnosticsSource: NotRequired[Literal["editor", "harness9"]]
    parentToolCallId: NotRequired[str]  # a child agent's call (task): the task call
    agent: NotRequired[str]  # a task's child agent, or a child's call's
    usage: NotRequired[Usage]  # a task's: its child's tokens (in the parent's totals)
    costUsd: NotRequired[float]  # a task's: what its child cost, when prices are known


class ModelChoice(TypedDict):
    """A session's model: its provider, the model's id and, where it applies, the effort."""

    provider: ProviderName
    model: str
    reasoningEffort: NotRequired[str]


class PlanItem(TypedDict):
    """One step of the model's plan."""

    text: str
    status: Literal["pending", "in_progress", "done"]


class Plan(TypedDict):
    """The model's plan as it last wrote it."""

    items: list[PlanItem]
    note: NotRequired[str]


class RunError(TypedDict):
    """Why a run ended with `error`: the same `kind` as the -32803 error's `data.kind`."""

    kind: str
    message: str
    status: NotRequired[int]
    model: NotRequired[str]


class WireToolCall(TypedDict):
    """A tool call as the model made it: the parsed arguments (or the raw text when not JSON)."""

    id: str
    name: str
    arguments: Any
    kind: ToolKindName
