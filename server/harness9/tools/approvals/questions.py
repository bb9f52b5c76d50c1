"""What the approval step asks the user, and what answers: the question, the answer, the
`Approver` that puts one to the user, and the observer that hears both."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from harness9.schema import ToolCall, ToolKind
from harness9.tools.approvals.policy import DecidedBy
from harness9.tools.contract import Preview


class Answer(StrEnum):
    """The user's choices, as the wire names them."""

    ALLOW_ONCE = "allow_once"
    ALLOW_SESSION = "allow_session"
    REJECT = "reject"


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What the user is asked about: the call, its tool's kind, a one-line title (`call_title`),
    for file tools the workspace-relative path, the diff the call would make and (`before`,
    None for a new file, and `after`, when small text files) the file's whole text before and
    after it, `reason` when the question is asked whatever the rules say (a write to
    `.git/config`), and `files`, every file a change of several files writes (a rename's), in
    the order it writes them."""

    call: ToolCall
    kind: ToolKind
    arguments: dict[str, Any]
    title: str
    path: str | None = None
    diff: str | None = None
    before: str | None = None
    after: str | None = None
    reason: str | None = None
    files: tuple[str, ...] = ()
    parent_call_id: str | None = None  # a child agent's call: the task call that runs it
    agent: str | None = None  # and the child's agent


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    """The user's decision; with a rejection, their reason for the model; with an allowed
    write_file or edit_file, the file's whole text as the user changed it (`content`)."""

    decision: Answer
    message: str | None = None
    content: str | None = None


class Approver(Protocol):
    """Asks the user; a failure to ask (no client, an error) should answer `reject`."""

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Put `request` to the user and return their answer."""
        ...


class ApprovalObserver(Protocol):
    """Hears what the approval step does (progress events, the block log)."""

    def requested(self, request: ApprovalRequest) -> None:
        """The user is being asked about `request`."""
        ...

    def resolved(self, call: ToolCall, decision: str, by: DecidedBy, rule: str | None) -> None:
        """A call's fate was decided by a rule, the session's memory, the mode or the user."""
        ...


@runtime_checkable
class Previewable(Protocol):
    """A tool that can show the change a call would make before it is made."""

    async def preview(self, arguments: dict[str, Any], shown: str) -> Preview:
        """The change of the call, its diff labelled `shown`; raises as the call itself would
        fail."""
        ...
