"""A task's child agent in the terminal: its rows, one line each, indented under the task's row
while it runs, and folded to one line once the task ended.

Pure (no rich): `child_note(call, note)` gives the task's row with a child's notification
(one that carries `parentToolCallId`) taken in.
"""

from __future__ import annotations

from dataclasses import replace

from harness9.client import summary
from harness9.client.run_pieces import Progress, ToolCall

SHOWN_CHILD_ROWS = 6  # of a running task: its child's last rows
TEXT_CHARS = 100  # of what the child says, in one row


def child_note(task: ToolCall, note: Progress) -> ToolCall:
    """`task`'s row once its child's `note` is taken in (a kind it does not show: as it was)."""
    kind = note.get("kind")
    call_id = str(note.get("toolCallId"))
    tool, arguments = str(note.get("tool")), note.get("arguments")
    if kind == "assistant_message" and str(note.get("text", "")).strip() and note.get("toolCalls"):
        return _put(task, "", _first_line(str(note["text"])))
    if kind == "approval_requested":
        return _put(task, call_id, f"? {summary.asked(tool, arguments)} · waiting for approval")
    if kind == "tool_started":
        return _put(task, call_id, f"▸ {summary.running(tool, arguments)}", tool, arguments)
    if kind in ("tool_completed", "tool_failed"):
        known = task.child_calls.get(call_id)
        tool, arguments = known if known is not None else (tool, None)
        ok = kind == "tool_completed"
        glyph = "✓" if ok and not summary.command_failed(note) else "✗"
        return _put(task, call_id, f"{glyph} {summary.finished(tool, arguments, note, ok=ok)}")
    return task


def folded(task: ToolCall) -> str | None:
    """A task's child in one line once the task ended (None: it showed nothing)."""
    if not task.children or task.ended is None:
        return None
    agent = task.ended.get("agent") or "agent"
    calls = len(task.child_calls)
    usage = task.ended.get("usage")
    tokens = ""
    if isinstance(usage, dict):
        total = int(usage.get("inputTokens", 0)) + int(usage.get("outputTokens", 0))
        tokens = f" · {total:,} tokens"
    return f"↳ {agent}: {calls} call{'s' if calls != 1 else ''}{tokens}"


def _put(task: ToolCall, call_id: str, line: str, tool: str | None = None,
         arguments: object = None) -> ToolCall:
    """The row with the child's line for `call_id` set in place (a new line at the end; an
    empty id: always new)."""
    rows = task.children
    at = next((i for i, (key, _) in enumerate(rows) if call_id and key == call_id), None)
    rows = (*rows, (call_id, line)) if at is None else (
        *rows[:at], (call_id, line), *rows[at + 1:])
    calls = task.child_calls
    if tool is not None or (call_id and call_id not in calls):
        calls = {**calls, call_id: (tool or "", arguments)}
    return replace(task, children=rows, child_calls=calls)


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0]
    return line if len(line) <= TEXT_CHARS else line[: TEXT_CHARS - 1] + "…"
