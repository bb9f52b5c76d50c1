"""Asking the user through the editor: `agent/requestApproval`, else `window/showMessageRequest`.

Clients that announce `experimental.harness9.approvalRequests` get the full request (title,
arguments, path, diff, the three options) and may send a reason with a rejection, or with an
allowed file call the file's whole text as the user changed it (`content`). Every other
LSP client gets a standard `window/showMessageRequest` with three actions, which Neovim shows
with `vim.ui.select`, eglot in the minibuffer and VS Code as a notification with buttons. No
answer, an error, or a dismissed question is a rejection: nothing runs that the user did not
allow. When the run is cancelled while a question is open, the question is cancelled too. An
error answer is a rejection too, or, given `on_error`, the answer it makes of the error.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol

from harness9.lsp.client_requests import ask_client, field_of
from harness9.schema import ToolKind
from harness9.tools.approvals.step import Answer, ApprovalAnswer, ApprovalRequest
from harness9.visible_text import CUT, visible

_log = logging.getLogger("harness9.lsp")

OPTIONS = [
    {"id": Answer.ALLOW_ONCE.value, "label": "Allow once"},
    {"id": Answer.ALLOW_SESSION.value, "label": "Allow for this session"},
    {"id": Answer.REJECT.value, "label": "Reject"},
]
_BY_LABEL = {option["label"]: Answer(option["id"]) for option in OPTIONS}


def announces_approval_requests(capabilities: Any) -> bool:
    """Whether the client's `experimental.harness9.approvalRequests` is true."""
    experimental = getattr(capabilities, "experimental", None)
    if not isinstance(experimental, dict):
        return False
    ours = experimental.get("harness9")
    return isinstance(ours, dict) and ours.get("approvalRequests") is True


class EditorApprover:
    """The `Approver` of one run in the daemon."""

    def __init__(
        self,
        protocol: LanguageServerProtocol,
        ids: dict[str, str],
        turn_of: Callable[[str], int | None],
        rich: bool,
    ) -> None:
        self._protocol = protocol
        self._ids = ids
        self._turn_of = turn_of
        self._rich = rich
        # What a question the client answered with an error comes to (None: a rejection).
        self.on_error: Callable[[ApprovalRequest, Exception], ApprovalAnswer] | None = None

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Ask through the editor; anything but a clear yes is a rejection."""
        params: Any
        if self._rich:
            method, params = "agent/requestApproval", self._params(request)
        else:
            method, params = types.WINDOW_SHOW_MESSAGE_REQUEST, _message_request(request)
        try:
            answer = await self._request(method, params)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if self.on_error is not None:
                return self.on_error(request, exc)
            _log.warning("approval request %s failed: %s; taken as a rejection", method, exc)
            return ApprovalAnswer(Answer.REJECT, "the editor could not ask the user")
        return _read_answer(answer) if self._rich else _read_action(answer)

    def _params(self, request: ApprovalRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            **self._ids,
            "turn": self._turn_of(request.call.unique_id),
            "toolCallId": request.call.unique_id,
            "tool": request.call.name,
            "toolKind": request.kind.value,
            "arguments": request.arguments,
            "title": request.title,
            "options": OPTIONS,
        }
        if request.path is not None:
            params["path"] = request.path
        if request.diff is not None:
            params["diff"] = request.diff
        if request.reason is not None:
            params["reason"] = request.reason
        if request.files:
            params["files"] = list(request.files)
        if request.parent_call_id is not None:
            params["parentToolCallId"] = request.parent_call_id
            params["agent"] = request.agent
        return params

    async def _request(self, method: str, params: Any) -> Any:
        # Cancelling the run withdraws the question from the editor.
        return await ask_client(self._protocol, method, params, "harness9-approval")


def _message_request(request: ApprovalRequest) -> types.ShowMessageRequestParams:
    """The question as one message: the title, why it is asked, the size of the change, and
    the whole command when the title had to cut it."""
    who = f"harness9's {request.agent} agent" if request.agent else "harness9"  # a child's
    summary = f"{who} asks to run {request.title}"
    if request.reason:
        summary += f": it {request.reason}"
    if len(request.files) > 1:  # a change of several files: the user sees every one
        summary += f"; it writes {len(request.files)} files: " + ", ".join(
            visible(path) for path in request.files)
    command = request.arguments.get("command")
    if request.kind is ToolKind.EXECUTE and isinstance(command, str) and \
            request.title.endswith(CUT):
        summary += f"; the whole command: {visible(command)}"
    if request.diff:
        changed = sum(
            1 for line in request.diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
        )
        summary += f" ({changed} changed line{'s' if changed != 1 else ''})"
    return types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=summary,
        actions=[types.MessageActionItem(title=option["label"]) for option in OPTIONS],
    )


def _read_answer(result: Any) -> ApprovalAnswer:
    """The decision, the reason of a rejection and the user's own text of an allowed file call
    (`content`, ignored unless a string)."""
    decision = field_of(result, "decision")
    message = field_of(result, "message")
    content = field_of(result, "content")
    try:
        answer = Answer(decision)
    except ValueError:
        _log.warning("approval answer %r is not one of the options; taken as a rejection", result)
        return ApprovalAnswer(Answer.REJECT, None)
    return ApprovalAnswer(
        answer,
        message if isinstance(message, str) else None,
        content if isinstance(content, str) and answer is not Answer.REJECT else None,
    )


def _read_action(result: Any) -> ApprovalAnswer:
    """The chosen action; anything but one of our titles (dismissed, malformed) rejects."""
    title = field_of(result, "title")
    return ApprovalAnswer(_BY_LABEL.get(title, Answer.REJECT) if isinstance(title, str)
                          else Answer.REJECT)
