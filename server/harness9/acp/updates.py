"""Engine events → ACP `session/update`s: text and thought chunks, tool calls and their updates.

Each tool call of an assistant message is announced (`tool_call`, `pending`) when the message
is complete, goes `in_progress` when its tool starts (for a call asked about: once the user
allowed it), and ends `completed` or `failed` with its output as text content (a call refused
before it ran, denied or rejected, goes from `pending` straight to `failed`). A call that changed a
file also carries `diff` content with the file's text
before and after: the file is read when the call starts and again when it ends (up to
`DIFF_LIMIT` bytes; larger or binary files get no diff), unless the call wrote through the
client's file system: then the diff is the client's text it replaced and the text it wrote.
Calls running at the same time on the same file may show each other's changes, as their
`changedFilesSharedWith` says on the LSP side.
"""

from __future__ import annotations

import re
from typing import Any

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AgentPlanUpdate,
    ContentToolCallContent,
    Cost,
    FileEditToolCallContent,
    PlanEntryStatus,
    TerminalToolCallContent,
    ToolCallStatus,
    UsageUpdate,
)

from harness9.acp.calls import acp_kind, locations_of, raw_input, target_path, title_of
from harness9.acp.files import ClientWorkspace
from harness9.acp.task_rows import TaskRows
from harness9.acp.update_stream import UpdateStream
from harness9.engine.events import (
    AssistantMessage,
    ChildEvent,
    Event,
    PlanUpdated,
    TextDelta,
    ThinkingDone,
    ToolFinished,
    ToolOutputShown,
    ToolStarted,
    ToolsWarning,
    UsageReported,
)
from harness9.schema import Plan, PlanStatus, ToolCall, ToolError, ToolKind, ToolResult
from harness9.workspace.regular_files import read_regular_beneath

DIFF_LIMIT = 1024 * 1024  # bytes of a file read for its diff content

_MISSING = object()  # the file does not exist (old text of a new file)
_UNREADABLE = object()  # too large, binary, or outside the workspace: no diff

ToolContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent


def read_for_diff(root: str, path: str) -> str | object:
    """The file's text, `_MISSING`, or `_UNREADABLE` (read through the workspace sandbox)."""
    try:
        data = read_regular_beneath(root, path, DIFF_LIMIT + 1)
    except FileNotFoundError:
        return _MISSING
    except (ToolError, OSError):
        return _UNREADABLE
    if len(data) > DIFF_LIMIT or b"\0" in data:
        return _UNREADABLE
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _UNREADABLE


def warning_text(message: str) -> str:
    """A warning for the user (an MCP server left out, say), as agent text of its own."""
    return f"⚠ harness9: {message}\n\n"


def start_update(call: ToolCall, kind: ToolKind, root: str) -> Any:
    """The `tool_call` announcing `call` of a tool of this kind (pending)."""
    return start_tool_call(
        call.unique_id,
        title_of(call, kind, root),
        kind=acp_kind(kind),
        status="pending",
        locations=locations_of(call, kind, root),
        raw_input=raw_input(call),
    )


def shown_output(output: str, kind: ToolKind) -> str:
    """A tool's output as a client renders it (Markdown): what a read or a command printed in
    a fenced code block, whose fence is longer than any run of backticks inside, so `# a
    comment` or `__init__` stay as they are; other output as it is."""
    if kind not in (ToolKind.READ, ToolKind.EXECUTE) or not output:
        return output
    longest = max((len(run) for run in re.findall(r"`+", output)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{output.rstrip(chr(10))}\n{fence}"


def finish_update(
    call: ToolCall, result: ToolResult, diff: ToolContent | None = None,
    kind: ToolKind = ToolKind.OTHER, rows: str | None = None,
) -> Any:
    """The `tool_call_update` ending `call` (of a tool of `kind`): its status (`failed` for an
    error, and for a command that exited non-zero or was killed) and output (and diff; a
    task's child's `rows` first), and for a call that ran a command (bash) its `rawOutput`."""
    content: list[ToolContent] = [tool_content(text_block(shown_output(result.output, kind)))]
    if rows is not None:
        content.insert(0, tool_content(text_block(rows)))
    if diff is not None:
        content.append(diff)
    if result.sandbox is not None:  # where the command ran, for the user to see
        content.append(tool_content(text_block(sandbox_note(result.sandbox))))
    # A command that exited non-zero completed for the model, but failed for the user.
    failed = result.is_error or (result.exit is not None and result.exit.failed)
    status: ToolCallStatus = "failed" if failed else "completed"
    return update_tool_call(
        call.unique_id, status=status, content=content, raw_output=raw_output(result)
    )


_PLAN_STATUS: dict[PlanStatus, PlanEntryStatus] = {
    PlanStatus.PENDING: "pending", PlanStatus.IN_PROGRESS: "in_progress",
    PlanStatus.DONE: "completed",
}


def plan_update(plan: Plan) -> AgentPlanUpdate:
    """The model's plan as ACP's `plan` update (every step of medium priority: the model gives
    none)."""
    return update_plan([plan_entry(item.text, status=_PLAN_STATUS[item.status])
                        for item in plan.items])


def raw_output(result: ToolResult) -> dict[str, Any] | None:
    """`rawOutput` of a command's call: `{"output", "exitCode"}`, or `{"output", "signal"}`
    when a signal killed it, so a client need not read the exit from the text, with `sandbox`
    (where it ran) when known (None for calls that ran no command)."""
    ended = result.exit
    if ended is None:
        return None
    where = {} if result.sandbox is None else {"sandbox": result.sandbox}
    if ended.code is not None:
        return {"output": result.output, "exitCode": ended.code, **where}
    return {"output": result.output, "signal": ended.signal, **where}


def sandbox_note(sandbox: str) -> str:
    """The line that says where a command ran: `sandboxed (bwrap)`, or `not sandboxed`."""
    return "not sandboxed" if sandbox == "none" else f"sandboxed ({sandbox})"


class RunUpdates:
    """The event subscriber of one prompt turn."""

    def __init__(
        self, stream: UpdateStream, root: str, files: ClientWorkspace | None = None,
        prior_cost: float = 0.0,
    ) -> None:
        self._stream = stream
        self._root = root
        self._files = files
        self._prior_cost = prior_cost  # what the session's earlier runs cost, in US dollars
        self._streamed_turns: set[int] = set()
        self._before: dict[str, str | object] = {}
        self._live: dict[str, str] = {}  # each running command's output so far
        self._tasks = TaskRows(root)  # the rows of each task call's child

    def __call__(self, event: Event) -> None:
        match event:
            case ChildEvent():
                update = self._tasks.update(event)
                if update is not None:
                    self._stream.push(update)
            case TextDelta():
                self._streamed_turns.add(event.turn)
                self._stream.text("message", event.text)
            case ThinkingDone():
                self._stream.text("thought", event.text)
            case AssistantMessage():
                self._message(event)
            case ToolStarted():
                self._started(event.call, event.tool_kind)
            case ToolOutputShown():
                self._output(event.call, event.text, event.truncated)
            case ToolFinished():
                self._live.pop(event.call.unique_id, None)
                self._finished(event.call, event.tool_kind, event.result)
            case ToolsWarning():
                self._stream.text("message", warning_text(event.message))
            case PlanUpdated():
                self._stream.push(plan_update(event.plan))
            case UsageReported() if event.context_window > 0:
                used = event.usage.input_tokens + event.usage.output_tokens
                cost = None if event.cost is None else Cost(
                    amount=round(self._prior_cost + event.cost, 6), currency="USD")
                self._stream.push(UsageUpdate(
                    session_update="usage_update", used=used, size=event.context_window,
                    cost=cost,
                ))

    def _message(self, event: AssistantMessage) -> None:
        if event.turn not in self._streamed_turns:  # not streamed: the text comes whole
            self._stream.text("message", event.text)
        for call, kind in event.calls_with_kinds():
            self._stream.push(start_update(call, kind, self._root))

    def _started(self, call: ToolCall, kind: ToolKind) -> None:
        path = self._edited_path(call, kind)
        if path is not None:
            self._before[call.unique_id] = read_for_diff(self._root, path)
        self._stream.push(update_tool_call(call.unique_id, status="in_progress"))

    def _output(self, call: ToolCall, text: str, truncated: bool) -> None:
        """A running command's output so far, as the call's content (which each update
        replaces); the engine already paces the pieces and caps their total."""
        shown = self._live.get(call.unique_id, "") + text
        self._live[call.unique_id] = shown
        if truncated:
            shown += "\n[live output cut here; the result has the rest]"
        block = text_block(shown_output(shown, ToolKind.EXECUTE))
        self._stream.push(update_tool_call(call.unique_id, status="in_progress",
                                           content=[tool_content(block)]))

    def _finished(self, call: ToolCall, kind: ToolKind, result: ToolResult) -> None:
        before = self._before.pop(call.unique_id, _UNREADABLE)
        path = self._edited_path(call, kind)
        diff = None if result.is_error or path is None else self._diff(path, before)
        rows = self._tasks.text(call.unique_id)
        self._stream.push(finish_update(call, result, diff, kind, rows))

    def _edited_path(self, call: ToolCall, kind: ToolKind) -> str | None:
        """The file an edit call changes (its diff is shown), or None for other calls."""
        return target_path(call, kind, self._root) if kind is ToolKind.EDIT else None

    def _diff(self, path: str, before: str | object) -> ToolContent | None:
        """The `diff` content of an edit of `path` that succeeded."""
        change = self._files.change(path) if self._files is not None else None
        if change is not None:
            return tool_diff_content(path, change.after, change.before)
        if before is _UNREADABLE:
            return None
        after = read_for_diff(self._root, path)
        if not isinstance(after, str):
            return None
        return tool_diff_content(path, after, before if isinstance(before, str) else None)
