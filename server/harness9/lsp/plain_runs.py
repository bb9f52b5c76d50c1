"""Runs a plain LSP client starts with `workspace/executeCommand` (`harness9.run`, `harness9.fix`):
no `agent/progress` reader and maybe no way to ask, so the run reports through what every
client has: `$/progress`, `window/showMessage`, a live transcript opened with
`window/showDocument`, questions through `window/showMessageRequest`, edits through
`workspace/applyEdit`. A plain client's runs continue one session per workspace folder.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from harness9.engine.events import Subscriber
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
    """Whether the client shows `window/showMessageRequest` questions (it says so with
    `window.showMessage`; a client without it, like released Helix, answers with an error)."""
    window = getattr(capabilities, "window", None)
    return getattr(window, "show_message", None) is not None


def can_show_documents(capabilities: Any) -> bool:
    """Whether the client opens documents on `window/showDocument`."""
    shown = getattr(getattr(capabilities, "window", None), "show_document", None)
    return bool(getattr(shown, "support", False))


class Declining:
    """The approver of a client that cannot be asked: every question is declined, saying why
    (the model reads it; the transcript notes it)."""

    def __init__(self, transcript: Transcript | None) -> None:
        self._transcript = transcript

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Decline without asking."""
        if self._transcript is not None:
            self._transcript.note(f"{request.title}: {CANNOT_ASK}")
        return ApprovalAnswer(Answer.REJECT, CANNOT_ASK)


@dataclass
class PlainRun:
    """What a plain run adds to a run's wiring; `started` resolves with its ids."""

    ls: Harness9Server
    root: str
    prompt: str
    instruction: tuple[str, Instruction] | None = None  # (path, comment) to remove on success
    started: asyncio.Future[dict[str, str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())
    transcript: Transcript | None = None
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

    def approver(self) -> Declining | None:
        """A declining approver when the client cannot be asked (None: ask it as usual)."""
        return None if can_ask(self.ls.client_capabilities) else Declining(self.transcript)

    async def finished(self, result: dict[str, Any] | None, error: str | None) -> None:
        """Say how the run ended; remove the instruction comment of a run that succeeded."""
        if result is not None and result.get("status") == "completed" and self.instruction:
            await self._remove_instruction(*self.instruction)
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

    def transcript_of(self, root: str) -> str | None:
        """The transcript's path of the folder's session, if it has one."""
        session = self.sessions.get(root)
        return None if session is None else str(transcript_path(session))
