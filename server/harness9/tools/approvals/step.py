"""The approval step: registry middleware that runs, refuses, or asks before a call starts.

It knows no editor. Whoever builds it supplies an `Approver` (the daemon asks through the
editor, the terminal client in the terminal, tests answer directly) and, optionally, an
`ApprovalObserver` that turns questions and decisions into progress events and log lines. One
question is asked at a time, in call order; calls that need no asking start at once. A call
waiting for an answer has not started: it is reported started (`call_starting`) and its timeout
starts once it is allowed; a denied or rejected call is never reported started. A file call
the user allowed with their own text (`ApprovalAnswer.content`) writes that text (`USER_TEXT`).
An edit call's files are settled once, before it is decided (`targets`): its write goes where
the decision was made or fails, and every file of a change of several files is decided on and
listed in the question.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from harness9.schema import ToolCall, ToolFailure, ToolKind
from harness9.tools.approvals.policy import (
    FILE_KINDS,
    SANDBOX_STOPPED,
    SILENT_MODES,
    Action,
    ApprovalPolicy,
    DecidedBy,
    Decision,
    SessionApprovals,
)
from harness9.tools.approvals.questions import (
    Answer,
    ApprovalAnswer,
    ApprovalObserver,
    ApprovalRequest,
    Approver,
    Previewable,
)
from harness9.tools.approvals.targets import NOTHING, Targets, path_targets, planned_targets
from harness9.tools.contract import (
    SANDBOX_WAIVED,
    BaseTool,
    ChangePlan,
    ToolOutput,
    ToolRefused,
    call_starting,
    sandbox_of,
)
from harness9.tools.registry import Proceed
from harness9.tools.user_text import USER_TEXT, UserText, takes_user_text
from harness9.visible_text import visible
from harness9.workspace.paths import relative_path

__all__ = ["Answer", "ApprovalAnswer", "ApprovalObserver", "ApprovalRequest", "ApprovalStep",
           "Approver", "Previewable", "call_title"]

_NO_SANDBOX = "none"
TITLE_CHARS = 120  # of a command or path in a title, escapes included
_BLANKS = " \t\n"


class ApprovalStep:
    """The middleware: `policy` decides, `approver` answers, `memory` keeps allow_session."""

    def __init__(
        self,
        policy: ApprovalPolicy,
        approver: Approver,
        *,
        root: str | None = None,
        memory: SessionApprovals | None = None,
        observer: ApprovalObserver | None = None,
    ) -> None:
        self.policy = policy
        self.memory = memory if memory is not None else SessionApprovals()
        self._approver = approver
        self._root = root
        self._observer = observer
        self._asking = asyncio.Lock()  # FIFO: questions go out in the order calls arrive

    async def __call__(
        self, call: ToolCall, tool: BaseTool, arguments: dict[str, Any], proceed: Proceed
    ) -> str | ToolOutput:
        """Run, refuse or ask about `call`, as the policy says."""
        kind = tool.definition().kind
        sandboxed = sandbox_of(tool) not in (None, _NO_SANDBOX)
        # A sandboxed command that asks to leave the sandbox runs outside once allowed.
        outside = sandboxed and arguments.get("escalate") is True
        targets, decision = await self._settle(call, tool, kind, arguments, sandboxed)
        if decision.action is Action.ASK:
            async with self._asking:
                # An answer given while this call waited (allow_session) may cover it now.
                decision = self._decide(call, kind, arguments, sandboxed, targets)
                if decision.action is Action.ASK:
                    answer, user = await self._ask(call, tool, kind, arguments, decision.reason,
                                                   targets)
                    self._remember(call, kind, arguments, answer, outside=outside)
                    # Still holding the turn to ask: a second question about this call (run it
                    # outside the sandbox?) is asked under the same hold, not queued behind it.
                    with targets.held():
                        return await self._run(call, tool, kind, arguments, proceed, outside,
                                               user, asking=True)
        self._report(call, decision)
        if decision.action is Action.DENY:
            raise ToolRefused(ToolFailure.DENIED, _denied_text(call, decision, self.policy.mode),
                              _denied_message(decision, self.policy.mode))
        with targets.held():
            return await self._run(call, tool, kind, arguments, proceed, outside)

    async def _settle(
        self, call: ToolCall, tool: BaseTool, kind: ToolKind, arguments: dict[str, Any],
        sandboxed: bool,
    ) -> tuple[Targets, Decision]:
        """The files the call writes, each resolved once, and the decision on them. A tool
        that writes files it learns only by asking (a rename) works out its change unless the
        call is denied anyway, and every file of it is decided on."""
        targets = path_targets(kind, arguments, self._root)
        decision = self._decide(call, kind, arguments, sandboxed, targets)
        if decision.action is not Action.DENY and kind is ToolKind.EDIT:
            planned = await planned_targets(tool, arguments, self._root)
            if planned is not None:
                targets = planned
                decision = self._decide(call, kind, arguments, sandboxed, targets)
        return targets, decision

    def _decide(self, call: ToolCall, kind: ToolKind, arguments: dict[str, Any],
                sandboxed: bool = False, targets: Targets = NOTHING) -> Decision:
        return self.policy.decide(call.name, kind, arguments, self.memory, self._root,
                                  sandboxed=sandboxed, files=targets.files)

    async def _run(
        self, call: ToolCall, tool: BaseTool, kind: ToolKind, arguments: dict[str, Any],
        proceed: Proceed, outside: bool, user: UserText | None = None, *, asking: bool = False,
    ) -> str | ToolOutput:
        """Let the call go (outside the OS sandbox when `outside`, writing the user's text when
        `user`); when the sandbox stopped its command, offer to run it again outside (`asking`:
        this call already holds the turn to ask)."""
        token = SANDBOX_WAIVED.set(outside)
        user_token = USER_TEXT.set(user)
        try:
            call_starting(sandbox_of(tool))
            output = await proceed()
            if outside or not isinstance(output, ToolOutput) or output.sandbox_denied is None:
                return output
            if not await self._leave_sandbox(call, tool, kind, arguments, output, asking):
                return output
            SANDBOX_WAIVED.set(True)
            return await proceed()
        finally:
            USER_TEXT.reset(user_token)
            SANDBOX_WAIVED.reset(token)

    async def _leave_sandbox(
        self, call: ToolCall, tool: BaseTool, kind: ToolKind, arguments: dict[str, Any],
        stopped: ToolOutput, asking: bool,
    ) -> bool:
        """Whether a command the sandbox stopped may run again outside it: yolo and an earlier
        allow-for-the-session say yes, read-only no, else the user is asked, with what the
        sandbox stopped (taking the turn to ask unless this call holds it: `asking`)."""
        if self.policy.mode in SILENT_MODES:
            return False
        if self.policy.mode == "yolo" or self.memory.allows(call.name, kind, arguments,
                                                            outside=True):
            self._report(call, Decision(Action.ALLOW, DecidedBy.MODE))
            return True
        reason = f"{SANDBOX_STOPPED} ({stopped.sandbox_denied})"
        # asyncio's lock is not reentrant: taking it again while holding it would wait forever.
        async with contextlib.nullcontext() if asking else self._asking:
            try:
                answer, _ = await self._ask(call, tool, kind, arguments, reason)
            except ToolRefused:
                return False
        self._remember(call, kind, arguments, answer, outside=True)
        return True

    async def _ask(
        self, call: ToolCall, tool: BaseTool, kind: ToolKind, arguments: dict[str, Any],
        reason: str | None, targets: Targets = NOTHING,
    ) -> tuple[ApprovalAnswer, UserText | None]:
        """Ask the user; raises `ToolRefused` when they reject the call. Returns the answer and
        the user's own text for a file call they changed before allowing it."""
        request = await self._request(call, tool, kind, arguments, reason, targets.plan)
        if self._observer is not None:
            self._observer.requested(request)
        answer = await self._approver.ask(request)
        if self._observer is not None:
            self._observer.resolved(call, answer.decision.value, DecidedBy.USER, None)
        if answer.decision is Answer.REJECT:
            raise ToolRefused(ToolFailure.REJECTED, _rejected_text(call, answer.message),
                              one_line(answer.message))
        return answer, _user_text(call, tool, request, answer)

    def _remember(self, call: ToolCall, kind: ToolKind, arguments: dict[str, Any],
                  answer: ApprovalAnswer, *, outside: bool) -> None:
        if answer.decision is Answer.ALLOW_SESSION:
            self.memory.remember(call.name, kind, arguments, outside=outside)

    async def _request(
        self, call: ToolCall, tool: BaseTool, kind: ToolKind, arguments: dict[str, Any],
        reason: str | None, plan: ChangePlan | None = None,
    ) -> ApprovalRequest:
        """The question, with the diff a file tool would make (computed before asking; a call
        that would fail anyway fails here with its own error, and nothing is asked), and for a
        change of several files, every file it writes."""
        title = call_title(call.name, kind, arguments, self._root)
        path = arguments.get("path")
        if plan is not None:
            title = f"{visible(call.name)}: {visible(', '.join(plan.files), TITLE_CHARS)}"
            shown_path = relative_path(path, self._root) if isinstance(path, str) else None
            return ApprovalRequest(call, kind, arguments, title, shown_path, plan.diff,
                                   reason=reason, files=plan.files)
        if kind in FILE_KINDS and isinstance(path, str):
            shown = relative_path(path, self._root)
            if not isinstance(tool, Previewable):
                return ApprovalRequest(call, kind, arguments, title, shown, reason=reason)
            change = await tool.preview(arguments, shown)
            return ApprovalRequest(
                call, kind, arguments, title, shown, change.diff, change.before, change.after,
                reason,
            )
        return ApprovalRequest(call, kind, arguments, title, reason=reason)

    def _report(self, call: ToolCall, decision: Decision) -> None:
        # The mode's plain "allow" is the normal case and not worth an event.
        quiet = decision.action is Action.ALLOW and decision.by is DecidedBy.MODE
        if self._observer is not None and not quiet:
            self._observer.resolved(call, decision.action.value, decision.by, decision.rule)


def _user_text(
    call: ToolCall, tool: BaseTool, request: ApprovalRequest, answer: ApprovalAnswer
) -> UserText | None:
    """The user's text to write in place of the call's change; None when they sent none or
    left the proposed text as it was. Text the call cannot write (not a file tool, or a change
    too large to have been shown whole) refuses the call: the user did not allow the model's."""
    if answer.content is None or answer.content == request.after:
        return None
    if not takes_user_text(tool) or request.after is None:
        raise ToolRefused(ToolFailure.REJECTED, (
            f"The user allowed {call.name} only with their own changes to it, which this call "
            "cannot take (not a file write, or a file too large to show whole); nothing was "
            "changed. Ask the user how to go on"
        ))
    return UserText(answer.content, request.before, request.after)


def call_title(
    tool: str, kind: ToolKind, arguments: dict[str, Any], root: str | None = None
) -> str:
    """One line for the user: `edit_file: src/a.py`, `bash: npm test`, `task: find the
    parser`, or the tool's name.
    Nothing in it hides part of what will run: control and separator characters are escaped
    (`bash: npm test\\r; rm -rf ~`), and a cut is marked with `…` (the whole command is in
    the request's arguments)."""
    path = arguments.get("path")
    if kind in FILE_KINDS and isinstance(path, str):
        return f"{visible(tool)}: {visible(relative_path(path, root), TITLE_CHARS)}"
    command = arguments.get("command")
    if kind is ToolKind.EXECUTE and isinstance(command, str):
        # Only bash's own blanks are trimmed: to bash a leading FS or NEL is part of a word.
        shown = visible(command.strip(_BLANKS), TITLE_CHARS)
        return f"{visible(tool)}: {shown}"
    description = arguments.get("description")
    if kind is ToolKind.THINK and isinstance(description, str):  # a task's
        return f"{visible(tool)}: {visible(description, TITLE_CHARS)}"
    return visible(tool, TITLE_CHARS)


_MODE_LIMITS = {
    "read-only": "only read_file may run",
    "plan": "only reading, read-only commands and update_plan may run until the user approves "
            "the plan",
}


def _denied_text(call: ToolCall, decision: Decision, mode: str) -> str:
    if decision.by is DecidedBy.RULE:
        why = f"the deny rule {decision.rule!r} of the approval settings"
    elif decision.reason is not None:
        why = f"the approval mode ({mode}), since it {decision.reason}"
    else:
        limit = _MODE_LIMITS.get(mode)
        why = f"the approval mode ({mode}: {limit})" if limit else f"the approval mode ({mode})"
    return (
        f"Error: {call.name} was not run: it is denied by {why}. Do not retry it; find another "
        "way, or tell the user what you need."
    )


def _denied_message(decision: Decision, mode: str) -> str:
    """Why a call was denied, in one line for the user: `deny rule bash(rm *)`, `plan mode: it
    writes .git/config, …`, `read-only mode: only read_file may run`."""
    if decision.by is DecidedBy.RULE:
        return f"deny rule {one_line(decision.rule) or ''}".strip()
    why = f"it {decision.reason}" if decision.reason is not None else _MODE_LIMITS.get(mode)
    return f"{mode} mode: {one_line(why)}" if why else f"{mode} mode"


def one_line(text: str | None) -> str | None:
    """`text` on one line for the user (its blanks and line breaks made single spaces, any other
    control character escaped), or None when blank."""
    joined = " ".join((text or "").split())
    return visible(joined) if joined else None


def _rejected_text(call: ToolCall, message: str | None) -> str:
    reason = f": {message.strip()}" if message and message.strip() else " (no reason given)"
    return (
        f"Error: the user rejected this {call.name} call{reason}. It was not run. Adapt your "
        "plan to their answer; do not repeat the same call unchanged."
    )

