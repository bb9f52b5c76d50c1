"""`workspace/executeCommand` for plain LSP clients: each command's argument and answer."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from harness9.protocol.agent_requests import Range


class RunCommandArguments(TypedDict):
    """`harness9.run`: a prompt (about a file, or a range of it), or the instruction comment on
    `instructionLine` of `uri` (0-based) as the prompt; `newSession` leaves the workspace's
    session for a new one."""

    prompt: NotRequired[str]
    uri: NotRequired[str]
    range: NotRequired[Range]
    instructionLine: NotRequired[int]
    newSession: NotRequired[bool]
    workspaceFolder: NotRequired[str]


class FixCommandArguments(TypedDict):
    """`harness9.fix`: the LSP diagnostics of `uri` to fix (what a quick fix carries)."""

    uri: str
    diagnostics: list[dict[str, Any]]
    newSession: NotRequired[bool]
    workspaceFolder: NotRequired[str]


class CancelCommandArguments(TypedDict):
    """`harness9.cancel`: the run (none: every run a command started)."""

    runId: NotRequired[str]


class CommandRunStarted(TypedDict):
    """A command's run has started: the ids its progress and transcript go by."""

    runId: str
    sessionId: str


class CommandCancelled(TypedDict):
    """Whether a run was cancelled."""

    cancelled: bool


class TranscriptShown(TypedDict):
    """The workspace session's transcript, as a URI and a path."""

    uri: str
    path: str


# Each command: its argument and its answer (`harness9.transcript` takes none).
COMMANDS: dict[str, tuple[type | None, type]] = {
    "harness9.run": (RunCommandArguments, CommandRunStarted),
    "harness9.fix": (FixCommandArguments, CommandRunStarted),
    "harness9.cancel": (CancelCommandArguments, CommandCancelled),
    "harness9.transcript": (None, TranscriptShown),
}
