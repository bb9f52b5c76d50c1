"""Runs a plain LSP client starts with `workspace/executeCommand` (`harness9.run`, `harness9.fix`):
no `agent/progress` reader and maybe no way to ask, so the run reports through what every
client has: `$/progress`, `window/showMessage`, a live transcript opened with
`window/showDocument`, questions through `window/showMessageRequest`, edits through
`workspace/applyEdit`. A plain client's runs continue one session per workspace folder.

A client asked nothing yet is asked even when it does not announce `window.showMessage`:
eglot before 1.19 shows the questions without saying so. One that answers with an error cannot
show them: that question and every later one of the connection are declined, saying why.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from harness9.engine.events import Subscriber
from harness9.lsp.approval_requests import EditorApprover
from harness9.lsp.documents import EditorWorkspace, applies_edits
from harness9.lsp.instruction_comments import Instruction, without_instruction
from harness9.lsp.run_transcript import Transcript, transcript_path
from harness9.tools.approvals.step import Answer, ApprovalAnswer, ApprovalRequest

if TYPE_CHECKING:
    from harness9.lsp.server import Harness9Server

_log = logging.getLogger("harness9.lsp")
CANNOT_ASK = ("not asked: this editor cannot show questions (it has no "
              "window/showMessageRequest), so calls that need the user's yes are declined; "
              "allow them with approval rules or another approval mode (README, \"Approvals\")")


def can_ask(capabilities: Any) -> bool:
    """Whether the client says it shows `window/showMessageRequest` questions (with
    `window.showMessage`; eglot shows them without saying so, released Helix answers with an
    error)."""
    window = getattr(capabilities, "window", None)
    return getattr(window, "show_message", None) is not None


def can_show_documents(capabilities: Any) -> bool:
    """Whether the client opens documents on `window/showDocument`."""
    shown = getattr(getattr(capabilities, "window", None), "show_document", None)
    return bool(getattr(shown, "support", False))


class Declining:
    """The approver of a client that cannot be asked: every question is declined, saying why
    (the model reads it; the transcript notes it)."""

    def __init__(self, transcript: Transcript | None,
                 on_declined: Callable[[], None] | None = None) -> None:
        self._transcript = transcript
        self._on_declined = on_declined

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Decline without asking."""
        return self.declined(request)

    def declined(self, request: ApprovalRequest) -> ApprovalAnswer:
        """The answer to a question not asked, noted in the transcript."""
        if self._transcript is not None:
            self._transcript.note(f"{request.title}: {CANNOT_ASK}")
        if self._on_declined is not None:
            self._on_declined()
        return ApprovalAnswer(Answer.REJECT, CANNOT_ASK)


class AskingFirst:
    """The approver of a client that does not say it can ask: it is asked, and once it answers
    a question with an error, that question and every later one of the connection are
    declined, saying why."""

    def __init__(self, asking: EditorApprover, declining: Declining,
                 sessions: PlainSessions) -> None:
        self._asking = asking
        self._declining = declining
        self._sessions = sessions
        asking.on_error = self._failed

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Ask the client, unless it answered a question with an error before."""
        if self._sessions.cannot_ask:
            return self._declining.declined(request)
        return await self._asking.ask(request)

    def _failed(self, request: ApprovalRequest, error: Exception) -> ApprovalAnswer:
        _log.info("window/showMessageRequest failed (%s): questions are declined", error)
        self._sessions.cannot_ask = True
        return self._declining.declined(request)


@dataclass
class PlainRun:
    """What a plain run adds to a run's wiring; `started` resolves with its ids."""

    ls: Harness9Server
    root: str
    prompt: str
    instruction: tuple[str, Instruction] | None = None  # (path, comment) to remove on success
    # The connection's runs, which know whether its client answered a question with an error.
    sessions: PlainSessions = field(default_factory=lambda: PlainSessions())
    started: asyncio.Future[dict[str, str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())
    transcript: Transcript | None = None
    declined: bool = False  # a call of the run was declined unasked (the client cannot ask)
    _showing: asyncio.Future[None] | None = None  # the transcript being opened

    def wired(self, ids: dict[str, str]) -> list[Subscriber]:
        """The run has its ids: the transcript starts, the client is shown it."""
        self.transcript = Transcript(ids["sessionId"], ids["runId"], self.root, self.prompt)
        if not self.started.done():
            self.started.set_result(ids)
        if can_show_documents(self.ls.client_capabilities):
            params = types.ShowDocumentParams(uri=self.transcript.path.as_uri(),
                                              take_focus=False)
            self._showing = asyncio.ensure_future(_show(self.ls, params))
        return [self.transcript]

    def approver(self, asking: EditorApprover) -> EditorApprover | AskingFirst:
        """`asking`, the run's approver that asks the client, when the client says it can
        ask; else one that asks until the client answers a question with an error."""
        if can_ask(self.ls.client_capabilities):
            return asking
        return AskingFirst(asking, Declining(self.transcript, self._note_declined),
                           self.sessions)

    def _note_declined(self) -> None:
        self.declined = True

    async def finished(self, result: dict[str, Any] | None, error: str | None) -> None:
        """Say how the run ended; remove the instruction comment of a run that succeeded (not
        of one that had a call declined unasked: what it was asked may be undone)."""
        if result is not None and result.get("status") == "completed" and self.instruction:
            if not self.declined:
                await self._remove_instruction(*self.instruction)
            elif self.transcript is not None:
                self.transcript.note("kept the instruction comment: a call it needed was "
                                     "declined, as this editor cannot ask")
        first = (result or {}).get("text", "").strip().splitlines()
        status = error or (result or {}).get("status", "error")
        message = f"harness9 ({status}): {first[0] if first else 'no answer'}"
        if self.transcript is not None:
            message += f" — the whole run: {self.transcript.path}"
        kind = types.MessageType.Info if error is None else types.MessageType.Error
        self.ls.window_show_message(types.ShowMessageParams(type=kind, message=message))

    async def _remove_instruction(self, path: str, instruction: Instruction) -> None:
        through = applies_edits(self.ls.client_capabilities)
        workspace = EditorWorkspace(self.root, self.ls, through_editor=through)
        try:
            current = await workspace.read_text(path)
            text = without_instruction(current.text, instruction) if current else None
            if current is not None and text is not None:
                await workspace.write_text(path, text, tool="harness9", base=current)
                if self.transcript is not None:
                    self.transcript.note(f"removed the instruction comment from {path}")
        except Exception as exc:  # the run's own work stands; only the comment stays
            _log.warning("could not remove the instruction comment of %s: %s", path, exc)


async def _show(ls: Harness9Server, params: types.ShowDocumentParams) -> None:
    try:
        await ls.window_show_document_async(params)
    except Exception as exc:  # the transcript is still on disk; the message names it
        _log.info("window/showDocument failed: %s", exc)


class PlainSessions:
    """The session a plain client's runs continue, per workspace folder, and the runs going."""

    def __init__(self) -> None:
        self.sessions: dict[str, str] = {}
        self.tasks: dict[str, asyncio.Task[Any]] = {}
        self.cannot_ask = False  # the client answered a question with an error

    def transcript_of(self, root: str) -> str | None:
        """The transcript's path of the folder's session, if it has one."""
        session = self.sessions.get(root)
        return None if session is None else str(transcript_path(session))
