"""A `task` call in ACP: one tool call (kind `think`) whose content streams its child's rows.

The child's calls are not tool calls of their own on the client: each is one line of the task's
content (`▸` running, `✓` done, `✗` failed), and what the child says between them a line too
(its final message is the task's output, after the rows).
Every change sends the whole content again (ACP replaces a tool call's content).
"""

from __future__ import annotations

from typing import Any

from acp import text_block, tool_content, update_tool_call

from harness9.acp.calls import title_of
from harness9.engine.events import AssistantMessage, ChildEvent, ToolFinished, ToolStarted
from harness9.schema import ProcessExit, Role, ToolCall, ToolKind
from harness9.service.call_outcome import exit_of
from harness9.service.sessions.session_log import message_from

ROW_CHARS = 200  # of one row: a child's text is cut to its first line, then to this


class TaskRows:
    """The rows of each task call of one prompt turn, by the task call's id. A call's row
    takes its place in the order the child's model wrote its calls (not the order they
    started: reads start before commands), as a stored task shows them again."""

    def __init__(self, root: str) -> None:
        self._root = root
        self._rows: dict[str, list[tuple[str, str]]] = {}  # (a call's id, or "" for text; row)
        self._order: dict[str, list[str]] = {}  # the ids of each task's latest calls, in order

    def update(self, event: ChildEvent) -> Any | None:
        """The `tool_call_update` a child's event brings to its task, or None."""
        task = event.parent_call_id
        rows = self._rows.setdefault(task, [])
        inner = event.event
        if isinstance(inner, AssistantMessage) and inner.tool_calls:
            self._order[task] = [call.unique_id for call in inner.tool_calls]
            if inner.text.strip():
                rows.append(("", _cut(inner.text)))
        elif isinstance(inner, ToolStarted):
            row = f"▸ {self._title(inner.call, inner.tool_kind)}"
            self._put(task, rows, inner.call.unique_id, row)
        elif isinstance(inner, ToolFinished):
            result = inner.result
            failure = result.failure.value if result.failure else "error"  # as `tool_failed`
            row = ended_row(self._title(inner.call, inner.tool_kind), result.is_error, failure,
                            result.exit)
            self._put(task, rows, inner.call.unique_id, row)
        else:
            return None
        block = text_block("\n".join(row for _, row in rows))
        return update_tool_call(task, status="in_progress", content=[tool_content(block)])

    def text(self, call_id: str) -> str | None:
        """A task's rows as one text (None: its child showed none)."""
        rows = self._rows.get(call_id)
        return "\n".join(row for _, row in rows) if rows else None

    def _put(self, task: str, rows: list[tuple[str, str]], call_id: str, row: str) -> None:
        """Set the call's row: in place, or new before the first row of a call the model wrote
        after it (a call refused before it started gets its row only now)."""
        at = next((i for i, (key, _) in enumerate(rows) if key == call_id), None)
        if at is not None:
            rows[at] = (call_id, row)
            return
        order = self._order.get(task, [])
        later = set(order[order.index(call_id) + 1:]) if call_id in order else set()
        at = next((i for i, (key, _) in enumerate(rows) if key in later), len(rows))
        rows.insert(at, (call_id, row))

    def _title(self, call: ToolCall, kind: ToolKind) -> str:
        return _cut(title_of(call, kind, self._root))


def ended_row(title: str, is_error: bool, failure: str | None, ended: ProcessExit | None) -> str:
    """A child call's row once it ended: `✗` with why (`failure`) for an error, `✗` with its
    exit for a command that failed (as the parent's own command is shown failed), else `✓`."""
    if is_error:
        return f"✗ {title}" + (f" ({failure})" if failure else "")
    if ended is not None and ended.failed:
        how = f"exit {ended.code}" if ended.code is not None else str(ended.signal)
        return f"✗ {title} ({how})"
    return f"✓ {title}"


def stored_rows(transcript: object, root: str) -> str | None:
    """A stored task's rows (`transcript`: its child's messages as the session keeps them),
    as they were shown live once it ended, each call's from its kept `outcome` (from its
    result alone in a session stored before calls kept one); None when there are none or they
    are unreadable."""
    if not isinstance(transcript, list):
        return None
    try:
        messages = [message_from(record) for record in transcript]
        stored = [call for record in transcript for call in record.get("toolCalls", ())]
        kinds = [ToolKind(str(call.get("kind", "other"))) for call in stored]
        kept = [call.get("outcome") if isinstance(call.get("outcome"), dict) else None
                for call in stored]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    failed = {m.tool_call_id: m.is_error for m in messages if m.tool_call_id is not None}
    rows, kind_of, outcome_of = [], iter(kinds), iter(kept)
    for message in messages:
        if message.role is not Role.ASSISTANT or not message.tool_calls:
            continue
        if message.content.strip():
            rows.append(_cut(message.content))
        for call in message.tool_calls:
            title, outcome = _cut(title_of(call, next(kind_of), root)), next(outcome_of)
            rows.append(_stored_row(title, outcome, bool(failed.get(call.id))))
    return "\n".join(rows) or None


def _stored_row(title: str, outcome: dict[str, Any] | None, is_error: bool) -> str:
    """A stored child call's row: from its `outcome` when kept, else from its result."""
    if outcome is None:
        return ended_row(title, is_error, None, None)
    status = str(outcome.get("status", "completed"))
    failed = status != "completed"
    return ended_row(title, failed, status if failed else None, exit_of(outcome))


def _cut(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= ROW_CHARS else line[: ROW_CHARS - 1] + "…"
