"""The tool contract (the seed's `BaseTool`) and the exceptions tools raise.

A tool returns text (or a `ToolOutput` when it cut its output and wants the registry to report
the full size) and raises `ToolError` for failures the model should read. The registry is the one
place where any exception becomes an `is_error` result.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from harness9.schema import (
    ChildRun,
    FileChanges,
    FileEdit,
    Plan,
    Problem,
    ProcessExit,
    ToolDefinition,
    ToolError,
    ToolFailure,
    ToolKind,
)

# The monotonic time by which the current tool call must finish, set by the registry from the
# engine's per-tool timeout. Tools with their own cap (bash) stop themselves before it, so they can
# still return the output they collected instead of being cancelled empty-handed.
DEADLINE: ContextVar[float | None] = ContextVar("harness9_tool_deadline", default=None)

OutputSink = Callable[[bytes], None]

# Where the current tool call may report its output while it runs (bash does, as it reads it),
# set by whoever runs the call. Tools never depend on it: what they return is the result.
OUTPUT_SINK: ContextVar[OutputSink | None] = ContextVar("harness9_tool_output", default=None)

# Called for the current tool call once it may run, set by whoever runs the call: the engine
# reports the call as started then. The approval step calls it as soon as it lets the call go
# (so calls nobody is asked about start in call order), and the registry again right before the
# tool runs (for registries without that step): only the first call counts. A call refused
# before it runs (unknown tool, bad arguments, denied, rejected) never calls it.
# The hook hears the OS sandbox the call will run in (`Confined.sandbox_label`), or None for a
# tool that runs no command.
CALL_STARTING: ContextVar[Callable[[str | None], None] | None] = ContextVar(
    "harness9_tool_starting", default=None
)

# The wire id of the tool call being run, set by whoever runs the call (the engine): a task
# names its child's rows and questions after it.
CALL_ID: ContextVar[str | None] = ContextVar("harness9_call_id", default=None)

# Set (by the approval step) when the current call was allowed to run outside the OS sandbox:
# the model asked to leave it (`escalate`) or the sandbox stopped it, and the user (or yolo)
# allowed it. A tool never reads its own arguments for that.
SANDBOX_WAIVED: ContextVar[bool] = ContextVar("harness9_sandbox_waived", default=False)


class Confined(Protocol):
    """A tool whose commands run in the OS sandbox (bash)."""

    def sandbox_label(self) -> str:
        """The sandbox the current call runs in: `bwrap`, `landlock` or `none` (off, not
        available, or waived for this call)."""
        ...


def sandbox_of(tool: object) -> str | None:
    """The sandbox label of a call of `tool` now (None for a tool that runs no command)."""
    # Not isinstance with a runtime-checkable protocol: that costs microseconds on every call.
    label = getattr(tool, "sandbox_label", None)
    return label() if callable(label) else None


def call_starting(sandbox: str | None = None) -> None:
    """Say that the current tool call may run now, in `sandbox` (see `CALL_STARTING`)."""
    hook = CALL_STARTING.get()
    if hook is not None:
        hook(sandbox)


def seconds_left(cap: float) -> float:
    """The time a tool may still run: its own `cap`, shortened by the registry's deadline."""
    deadline = DEADLINE.get()
    if deadline is None:
        return cap
    return max(0.0, min(cap, deadline - time.monotonic()))


class ToolTimeoutError(ToolError):
    """The tool hit its own time cap (reported with reason `timeout`)."""


class ToolRefused(ToolError):
    """A call refused before its tool ran (unknown tool, bad arguments, denied, rejected).
    `text` is for the model; `message`, when given, is one line for the user: why (the user's
    own reason for a rejection, the rule or mode for a denial)."""

    def __init__(self, reason: ToolFailure, text: str, message: str | None = None) -> None:
        super().__init__(text)
        self.reason = reason
        self.message = message


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """Tool output with its accounting: the full size before truncation and whether it was cut,
    (added by a middleware that measured it) what the call changed in the workspace, (from a
    file tool) the change it made to its file, and (from bash) how its command ended."""

    text: str
    bytes: int
    truncated: bool = False
    changes: FileChanges | None = None
    edit: FileEdit | None = None
    exit: ProcessExit | None = None
    sandbox: str | None = None  # the OS sandbox its command ran in (bash)
    # Why the sandbox seems to have stopped the command (a write or a connection refused), or
    # None: the approval step offers to run it again outside.
    sandbox_denied: str | None = None
    plan: Plan | None = None  # the plan the call recorded (update_plan)
    problems: tuple[Problem, ...] | None = None  # new since the edit, as the editor reports
    # Whose language servers were asked for problems: `editor` or `harness9` (its own).
    problems_source: str | None = None
    child: ChildRun | None = None  # the child agent's run the call delegated to (task)
    failed: bool = False  # the call failed, with this output (a child run that ended badly)


# A file larger than this is shown as a diff only, never as its whole text before and after.
PREVIEW_TEXT_LIMIT = 1 << 20


@dataclass(frozen=True, slots=True)
class Preview:
    """The change a file call would make, before it is made: its unified `diff` and, when both
    are text no larger than `PREVIEW_TEXT_LIMIT`, the file's whole text `before` (None: a new
    file) and `after` (`after` None: only the diff is shown)."""

    diff: str
    before: str | None = None
    after: str | None = None


@dataclass(frozen=True, slots=True)
class ChangePlan:
    """The change of a call that writes several files known only once asked for (a rename's
    edit), worked out before the call is decided: the tool's name, the files it writes
    (workspace-relative), the diff of them all, and the tool's own record of the change, which
    the call then writes as it was decided (`PLANNED`)."""

    tool: str
    files: tuple[str, ...]
    diff: str
    change: tuple[object, ...]


# The plan the current call was decided on, set by the approval step while the call runs.
PLANNED: ContextVar[ChangePlan | None] = ContextVar("harness9_planned", default=None)


@runtime_checkable
class PlansChanges(Protocol):
    """A tool whose call writes files it learns only by asking (a rename): it works out its
    change first, so that every file is decided on (and listed when the user is asked)."""

    async def plan(self, arguments: dict[str, Any]) -> ChangePlan:
        """The change this call would make, without making it; raises as the call would."""
        ...


def preview_of(diff: str, before: str | None, after: str) -> Preview:
    """A `Preview` with the texts when they are small enough to show whole."""
    if max(len(before or ""), len(after)) > PREVIEW_TEXT_LIMIT:
        return Preview(diff)
    return Preview(diff, before, after)


def as_output(output: str | ToolOutput) -> ToolOutput:
    """A tool's return value as a `ToolOutput` (plain text: its size, not cut)."""
    if isinstance(output, ToolOutput):
        return output
    return ToolOutput(output, len(output.encode("utf-8", "replace")))


@runtime_checkable
class BaseTool(Protocol):
    """What every tool provides. `execute` receives the model's raw JSON argument text."""

    @property
    def name(self) -> str:
        """The unique name the model calls the tool by."""
        ...

    def definition(self) -> ToolDefinition:
        """Name, description and JSON Schema, as offered to the model."""
        ...

    async def execute(self, arguments: str) -> str | ToolOutput:
        """Run the tool; raise `ToolError` for failures the model should see."""
        ...


PATH_PROPERTY: dict[str, Any] = {
    "type": "string",
    "description": "File path relative to the workspace root",
}


def string_property(description: str) -> dict[str, Any]:
    """A JSON Schema string property."""
    return {"type": "string", "description": description}


def tool_definition(
    name: str,
    description: str,
    properties: dict[str, Any],
    required: list[str],
    *,
    kind: ToolKind,
) -> ToolDefinition:
    """A tool definition of this kind whose arguments are one JSON object with these
    properties."""
    schema = {"type": "object", "properties": properties, "required": required}
    return ToolDefinition(name=name, description=description, input_schema=schema, kind=kind)


def parse_arguments(arguments: str) -> dict[str, Any]:
    """Parse a tool's raw JSON arguments into an object (the registry has validated them)."""
    value = json.loads(arguments or "{}")
    if not isinstance(value, dict):
        raise ToolError("Error: arguments must be a JSON object")
    return value
