"""What a tool is and what its call came to: its definition and kind, its result, its failure,
the files it changed, the problems and exit it reported."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from harness9.schema.plans import Plan

if TYPE_CHECKING:  # messages know tool results: these names are for the types only
    from harness9.schema.messages import Message, Usage


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
class ChildRun:
    """What a child agent's run came to, for the call that delegated to it: the `agent`, its
    `usage` and cost (`cost_usd`, None: prices unknown), and its whole conversation
    (`messages`, kept with the session; the parent's model reads only the call's output)."""

    agent: str
    usage: Usage
    cost_usd: float | None
    messages: tuple[Message, ...] = ()
    kinds: dict[str, str] | None = None  # the kind of each of its calls' tools, by wire id


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
    message: str | None = None  # a refusal's one line for the user (the reason given, the rule)
    child: ChildRun | None = None  # the run of a child agent the call delegated to (task)


class ToolKind(StrEnum):
    """What a tool does, declared once by the tool; approvals, checkpoints and clients go by it.
    The values are the wire's `kind` of a tool (and ACP's tool call kinds)."""

    READ = "read"  # reads the workspace file at its `path`; changes nothing
    EDIT = "edit"  # changes the workspace file at its `path`
    EXECUTE = "execute"  # runs its `command`, which may do anything
    OTHER = "other"  # anything else: MCP tools, unknown tools
    THINK = "think"  # records the model's own reasoning (its plan); changes nothing


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """What the model is told about a tool: its name, purpose and JSON Schema for arguments;
    and, for everyone else, its kind (not sent to the model)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    kind: ToolKind = ToolKind.OTHER
