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
from harness9.schema import Role, ToolCall, ToolKind, ToolResult
from harness9.service.sessions.session_log import message_from

ROW_CHARS = 200  # of one row: a child's text is cut to its first line, then to this


class TaskRows:
    """The rows of each task call of one prompt turn, by the task call's id."""

    def __init__(self, root: str) -> None:
        self._root = root
        self._rows: dict[str, list[str]] = {}
        self._at: dict[str, int] = {}  # a child call's row, by its id

    def update(self, event: ChildEvent) -> Any | None:
        """The `tool_call_update` a child's event brings to its task, or None."""
        rows = self._rows.setdefault(event.parent_call_id, [])
        inner = event.event
        if isinstance(inner, AssistantMessage) and inner.text.strip() and inner.tool_calls:
            rows.append(_cut(inner.text))
        elif isinstance(inner, ToolStarted):
            self._at[inner.call.unique_id] = len(rows)
            rows.append(f"▸ {self._title(inner.call, inner.tool_kind)}")
        elif isinstance(inner, ToolFinished):
            self._finished(rows, inner.call, inner.tool_kind, inner.result)
        else:
            return None
        block = text_block("\n".join(rows))
        return update_tool_call(event.parent_call_id, status="in_progress",
                                content=[tool_content(block)])

    def text(self, call_id: str) -> str | None:
        """A task's rows as one text (None: its child showed none)."""
        rows = self._rows.get(call_id)
        return "\n".join(rows) if rows else None

    def _finished(self, rows: list[str], call: ToolCall, kind: ToolKind,
                  result: ToolResult) -> None:
        mark = "✗" if result.is_error else "✓"
        row = f"{mark} {self._title(call, kind)}"
        if result.is_error and result.failure is not None:
            row += f" ({result.failure.value})"
        at = self._at.pop(call.unique_id, None)
        if at is None:  # refused before it started: it had no row yet
            rows.append(row)
        else:
            rows[at] = row

    def _title(self, call: ToolCall, kind: ToolKind) -> str:
        return _cut(title_of(call, kind, self._root))


def stored_rows(transcript: object, root: str) -> str | None:
    """A stored task's rows (`transcript`: its child's messages as the session keeps them),
    as they were shown live once it ended; None when there are none or they are unreadable."""
    if not isinstance(transcript, list):
        return None
    try:
        messages = [message_from(record) for record in transcript]
        kinds = [ToolKind(str(call.get("kind", "other"))) for record in transcript
                 for call in record.get("toolCalls", ())]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    failed = {m.tool_call_id: m.is_error for m in messages if m.tool_call_id is not None}
    rows, kind_of = [], iter(kinds)
    for message in messages:
        if message.role is not Role.ASSISTANT or not message.tool_calls:
            continue
        if message.content.strip():
            rows.append(_cut(message.content))
        for call in message.tool_calls:
            mark = "✗" if failed.get(call.id) else "✓"
            rows.append(f"{mark} {_cut(title_of(call, next(kind_of), root))}")
    return "\n".join(rows) or None


def _cut(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= ROW_CHARS else line[: ROW_CHARS - 1] + "…"
