"""Core data types shared by tools, providers, the engine and the daemon.

This module is a leaf: it imports nothing from harness9, so every layer can depend on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Role(StrEnum):
    """Who wrote a message. Tool observations are `USER` messages carrying `tool_call_id`."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool invocation requested by the model.

    `arguments` is the raw JSON text exactly as the model produced it; only the tool parses it,
    so a broken string reaches the registry (and becomes a readable failure) instead of crashing
    a provider or the engine.
    """

    id: str
    name: str
    arguments: str = "{}"
    # The id clients see when the model's `id` is not unique within the session (models behind
    # some local servers repeat theirs); the model's own history keeps `id`.
    wire_id: str | None = None

    @property
    def unique_id(self) -> str:
        """The call's id unique within its session: what front-ends and clients see."""
        return self.wire_id or self.id


class ToolFailure(StrEnum):
    """Why a tool call failed; the values are the wire protocol's `tool_failed.reason`."""

    ERROR = "error"
    TIMEOUT = "timeout"
    UNKNOWN_TOOL = "unknown_tool"
    BAD_ARGUMENTS = "bad_arguments"
    CANCELLED = "cancelled"
    DENIED = "denied"  # by an approval rule or the mode
    REJECTED = "rejected"  # by the user


class ToolError(Exception):
    """A failure the model should read and can act on; its message is the tool's output.

    Raised by tools and by what they stand on (the workspace port, confined paths); the tool
    registry is the one place it becomes an `is_error` result."""


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A workspace path whose content changed, and how: `added`, `modified` or `deleted`."""

    path: str
    status: str


@dataclass(frozen=True, slots=True)
class FileChanges:
    """What a tool call changed in the workspace. When other calls ran at the same time
    (`shared_with`, their ids), their changes cannot be told apart and may be included."""

    files: tuple[ChangedFile, ...] = ()
    shared_with: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FileEdit:
    """What a file tool changed in one file: its workspace-relative path, a unified diff (cut
    at a number of lines, then `diff_truncated`), the lines added and removed, and whether the
    change went through the user's editor or straight to the disk (`via`)."""

    path: str
    diff: str
    added: int
    removed: int
    via: str
    diff_truncated: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """A problem the editor's language servers report in a file: its workspace-relative path,
    1-based line and column, severity (`error`, `warning`, `information`, `hint`), message, and
    the reporting `source` (`pyright`, `ruff`, `ts`) and `code` when given."""

    path: str
    line: int
    column: int
    severity: str
    message: str
    source: str | None = None
    code: str | None = None

    def key(self) -> tuple[str, str | None, str | None, str]:
        """What stays the same when an edit moves the problem to another line."""
        return self.severity, self.source, self.code, self.message

    def shown(self) -> str:
        """`path:line:column: severity: message (source code)`, as the model reads it."""
        origin = " ".join(part for part in (self.source, self.code) if part)
        tail = f" ({origin})" if origin else ""
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message}{tail}"


@dataclass(frozen=True, slots=True)
class ProcessExit:
    """How a command a tool ran (bash) ended: its exit `code`, or the `signal` that killed it
    (the signal's name, e.g. `SIGKILL`, or its number as text when it has none)."""

    code: int | None = None
    signal: str | None = None

    @property
    def failed(self) -> bool:
        """Whether the command failed (a non-zero exit, or a signal): what a user is shown as a
        failure, though the model gets it as a normal result."""
        return self.signal is not None or self.code not in (None, 0)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one tool call: the text the model will read, and whether it is an error.

    `bytes` is the size of everything the tool produced before it was cut to its limit, and
    `truncated` says whether it was cut; `failure` names the reason when `is_error` is true.
    """

    tool_call_id: str
    output: str
    is_error: bool = False
    failure: ToolFailure | None = None
    bytes: int = 0
    truncated: bool = False
    duration_ms: float = 0.0
    changes: FileChanges | None = None  # what the call changed in the workspace, when measured
    edit: FileEdit | None = None  # what a file tool changed in its file
    exit: ProcessExit | None = None  # how the command of a call that ran one ended
    sandbox: str | None = None  # the OS sandbox that command ran in: bwrap, landlock, none
    plan: Plan | None = None  # the plan a plan tool recorded
    problems: tuple[Problem, ...] | None = None  # new since an edit (None: not asked)
    problems_source: str | None = None  # whose servers were asked: `editor` or `harness9`


class ToolKind(StrEnum):
    """What a tool does, declared once by the tool; approvals, checkpoints and clients go by it.
    The values are the wire's `kind` of a tool (and ACP's tool call kinds)."""

    READ = "read"  # reads the workspace file at its `path`; changes nothing
    EDIT = "edit"  # changes the workspace file at its `path`
    EXECUTE = "execute"  # runs its `command`, which may do anything
    OTHER = "other"  # anything else: MCP tools, unknown tools
    THINK = "think"  # records the model's own reasoning (its plan); changes nothing


class PlanStatus(StrEnum):
    """Where one step of a plan stands."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One step of the model's plan."""

    text: str
    status: PlanStatus = PlanStatus.PENDING


_PLAN_MARKS = {PlanStatus.PENDING: "[ ]", PlanStatus.IN_PROGRESS: "[>]", PlanStatus.DONE: "[x]"}


@dataclass(frozen=True, slots=True)
class Plan:
    """The model's plan for the work: its steps in order, and an optional note."""

    items: tuple[PlanItem, ...]
    note: str | None = None

    def checklist(self) -> str:
        """The plan as a text checklist (`[x]` done, `[>]` in progress, `[ ]` pending)."""
        lines = [f"{_PLAN_MARKS[item.status]} {item.text}" for item in self.items]
        if self.note:
            lines.append(f"Note: {self.note}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """The plan as JSON (the wire's and the session file's form)."""
        fields: dict[str, Any] = {
            "items": [{"text": i.text, "status": i.status.value} for i in self.items]
        }
        if self.note:
            fields["note"] = self.note
        return fields

    @classmethod
    def from_dict(cls, raw: Any) -> Plan | None:
        """The plan stored as `as_dict` wrote it; None when `raw` is not one."""
        if not isinstance(raw, dict) or not isinstance(raw.get("items"), list):
            return None
        items = []
        for item in raw["items"]:
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                return None
            try:
                items.append(PlanItem(item["text"], PlanStatus(item.get("status", "pending"))))
            except ValueError:
                return None
        note = raw.get("note")
        return cls(tuple(items), note if isinstance(note, str) else None)


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """What the model is told about a tool: its name, purpose and JSON Schema for arguments;
    and, for everyone else, its kind (not sent to the model)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    kind: ToolKind = ToolKind.OTHER


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported by a provider for one call (or summed over a run)."""

    input_tokens: int = 0  # all of them, those read from the prompt cache included
    output_tokens: int = 0
    cached_input_tokens: int = 0  # of the input tokens, those the service read from its cache
    cache_write_tokens: int = 0  # of the input tokens, those the service wrote to its cache

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


@dataclass(frozen=True, slots=True)
class Price:
    """What a model's tokens cost, in US dollars per million tokens."""

    input: float
    output: float
    cached_input: float | None = None  # read from the prompt cache (None: as `input`)
    cache_write: float | None = None  # written to the prompt cache (None: as `input`)

    def cost(self, usage: Usage) -> float:
        """The US dollars `usage` costs at these prices."""
        cached = usage.cached_input_tokens
        written = usage.cache_write_tokens
        plain = max(usage.input_tokens - cached - written, 0)
        dollars = (plain * self.input + usage.output_tokens * self.output
                   + cached * (self.input if self.cached_input is None else self.cached_input)
                   + written * (self.input if self.cache_write is None else self.cache_write))
        return dollars / 1_000_000


@dataclass(frozen=True, slots=True)
class Image:
    """An image given with a prompt: its media type (`image/png`, …) and its bytes, base64."""

    media_type: str
    data: str


@dataclass(frozen=True, slots=True)
class Message:
    """One entry of the conversation history.

    An assistant message may carry `tool_calls`; an observation is a `USER` message with
    `tool_call_id` set (and `is_error` when the tool failed), as in the seed design.
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False
    # The model's reasoning as its provider must get it back, verbatim (Anthropic's signed
    # thinking blocks, which extended thinking with tools requires in the history).
    reasoning: tuple[dict[str, Any], ...] = ()
    images: tuple[Image, ...] = ()  # given with a user prompt, for a model that sees images

    @staticmethod
    def system(content: str) -> Message:
        """A system prompt."""
        return Message(role=Role.SYSTEM, content=content)

    @staticmethod
    def user(content: str, images: tuple[Image, ...] = ()) -> Message:
        """A user prompt (with the images given with it)."""
        return Message(role=Role.USER, content=content, images=images)

    @staticmethod
    def observation(result: ToolResult) -> Message:
        """The message that carries a tool result back to the model."""
        return Message(
            role=Role.USER,
            content=result.output,
            tool_call_id=result.tool_call_id,
            is_error=result.is_error,
        )


class StreamChunkType(StrEnum):
    """The kinds of chunk a streaming provider yields."""

    TEXT = "text"  # a piece of assistant text
    DONE = "done"  # the last chunk: the complete message and the call's usage


@dataclass(frozen=True, slots=True)
class StreamChunk:
    """One item of a provider's stream.

    `TEXT` chunks carry `text`; the single final `DONE` chunk carries the fully assembled
    `message` (text and tool calls) and `usage`, so consumers never re-assemble fragments.
    """

    type: StreamChunkType
    text: str = ""
    message: Message | None = None
    usage: Usage = field(default_factory=Usage)


def shared_prefix(a: Sequence[Message], b: Sequence[Message]) -> int:
    """How many leading messages `a` and `b` share. Messages are immutable, so a message that
    changed is a new object: this finds where two versions of a conversation part by identity,
    without comparing contents, except in the usual case of `a` extending `b`, which one list
    comparison confirms (it passes over identical items without looking into them; an equal
    message in place of one is the same message)."""
    if len(b) <= len(a) and a[: len(b)] == b:  # lists: otherwise unequal, and the loop decides
        return len(b)
    limit = min(len(a), len(b))
    common = 0
    while common < limit and a[common] is b[common]:
        common += 1
    return common
