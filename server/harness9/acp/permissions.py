"""Asking the user through the ACP client: `session/request_permission`.

The options are ours: `allow_once` (kind allow_once), `allow_session` (kind allow_always: the
same call is allowed for the rest of the session) and `reject` (kind reject_once). A cancelled
outcome, an unknown option, or a failed request is a rejection: nothing runs that the user did
not allow. The call asked about was announced `pending` before the request (it goes
`in_progress` only once allowed, `failed` when refused); for a file call the request carries
`diff` content (the file's text before and after) so the client can show the change first.
When the run is cancelled while the question is open, the request is abandoned (the client
answers it `cancelled` on its side, as ACP asks of clients on `session/cancel`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from acp import text_block, tool_content, tool_diff_content
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from harness9.acp.calls import acp_kind, locations_of, raw_input, target_path
from harness9.acp.update_stream import UpdateStream
from harness9.acp.updates import ToolContent
from harness9.tools.approvals.step import Answer, ApprovalAnswer, ApprovalRequest

_log = logging.getLogger("harness9.acp")

OPTIONS = [
    PermissionOption(option_id=Answer.ALLOW_ONCE.value, name="Allow once", kind="allow_once"),
    PermissionOption(
        option_id=Answer.ALLOW_SESSION.value, name="Allow for this session", kind="allow_always"
    ),
    PermissionOption(option_id=Answer.REJECT.value, name="Reject", kind="reject_once"),
]


class PermissionAsker(Protocol):
    """The part of the SDK's client connection the approver uses."""

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption],
        **kwargs: Any,
    ) -> Any:
        """Send `session/request_permission` and return the client's answer."""
        ...


class ClientApprover:
    """The `Approver` of one prompt turn."""

    def __init__(
        self, client: PermissionAsker, session_id: str, root: str, updates: UpdateStream
    ) -> None:
        self._client = client
        self._session_id = session_id
        self._root = root
        self._updates = updates

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Ask the client; anything but a selected allow option is a rejection."""
        await self._updates.drain()  # the client knows the call before it is asked about it
        try:
            response = await self._client.request_permission(
                session_id=self._session_id, tool_call=self._tool_call(request), options=OPTIONS
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            _log.warning("session/request_permission failed: %s; taken as a rejection", exc)
            return ApprovalAnswer(Answer.REJECT, "the client could not ask the user")
        outcome = getattr(response, "outcome", None)
        if not isinstance(outcome, AllowedOutcome):
            return ApprovalAnswer(Answer.REJECT, None)  # cancelled: the user did not allow it
        try:
            return ApprovalAnswer(Answer(outcome.option_id))
        except ValueError:
            _log.warning("permission option %r is not ours; taken as a rejection", outcome)
            return ApprovalAnswer(Answer.REJECT, None)

    def _tool_call(self, request: ApprovalRequest) -> ToolCallUpdate:
        call = request.call
        content: list[ToolContent] = []
        if request.parent_call_id is not None:
            return self._child_call(request, request.parent_call_id)
        if request.reason:  # asked whatever the rules say: the client shows why
            content.append(tool_content(text_block(f"Asked because it {request.reason}.")))
        path = target_path(call, request.kind, self._root)
        if request.after is not None and path is not None:
            # the file's text before and after, so the client shows its diff view before asking
            content.append(tool_diff_content(path, request.after, request.before))
        elif request.diff:  # too large to show whole: the unified diff, as the LSP side shows it
            content.append(tool_content(text_block(f"```diff\n{request.diff}\n```")))
        return ToolCallUpdate(
            tool_call_id=call.unique_id,
            title=request.title,
            kind=acp_kind(request.kind),
            raw_input=raw_input(call),
            locations=locations_of(call, request.kind, self._root),
            content=content or None,
        )

    def _child_call(self, request: ApprovalRequest, task_id: str) -> ToolCallUpdate:
        """A child agent's call asked about: the client knows only its task's call, so the
        question is about that one, its content saying which call of which agent (the
        task's title and kind stay; the child's next row puts its content back)."""
        content: list[ToolContent] = [tool_content(text_block(
            f"The {request.agent} agent asks to run {request.title}"))]
        if request.diff:
            content.append(tool_content(text_block(f"```diff\n{request.diff}\n```")))
        return ToolCallUpdate(
            tool_call_id=task_id, content=content,
            field_meta={"harness9": {"toolCallId": request.call.unique_id,
                                     "parentToolCallId": task_id, "agent": request.agent,
                                     "rawInput": raw_input(request.call)}},
        )
