"""A resumed session's tasks in the terminal: each `task` call of its last run drawn as its row
ended live (its headline, and its child folded to one line), rebuilt from what the session
kept (`agent/session`: the task's `outcome`, its child's `transcript` with each call's own
`outcome`) through the same code the live rows go through."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.text import Text

from harness9.client.child_rows import child_note
from harness9.client.run_pieces import Progress, ToolCall
from harness9.client.transcript import RowDrawings

_REFUSED = ("rejected", "denied")  # a call refused this way never started
_WIDTH = 100


def stored_tasks(session: dict[str, Any]) -> Text | None:
    """The last run's task rows as they ended live; None when it ran no task."""
    calls = _last_run_tasks(_dicts(session.get("messages")))
    if not calls:
        return None
    console = Console(width=_WIDTH, force_terminal=True, color_system="standard",
                      highlight=False)
    drawings = RowDrawings()
    with console.capture() as captured:
        for call in calls:
            console.print(drawings.take(call).render())
    return Text.from_ansi(captured.get().rstrip("\n"))


def _last_run_tasks(messages: list[dict[str, Any]]) -> list[ToolCall]:
    """The task calls (with a kept outcome) after the last prompt, with their results."""
    prompts = [i for i, m in enumerate(messages)
               if m.get("role") == "user" and m.get("toolCallId") is None]
    last = messages[prompts[-1]:] if prompts else messages
    results = {str(m["toolCallId"]): str(m.get("content", "")) for m in last
               if m.get("toolCallId") is not None}
    tasks: list[ToolCall] = []
    for message in last:
        for stored in _dicts(message.get("toolCalls")):
            outcome = stored.get("outcome")
            if stored.get("name") == "task" and isinstance(outcome, dict):
                output = results.get(str(stored.get("id")), "")
                tasks.append(_task(len(tasks), stored, outcome, output))
    return tasks


def _task(number: int, stored: dict[str, Any], outcome: dict[str, Any], output: str) -> ToolCall:
    """A stored task call as the live view's state had it when it ended."""
    call_id = str(stored.get("wireId") or stored.get("id"))
    end = _end(call_id, "task", _arguments(stored), outcome, output)
    task = ToolCall(number, call_id, "task", str(stored.get("kind", "think")), end["arguments"],
                    "completed" if end["kind"] == "tool_completed" else "failed",
                    started=True, ended=end)
    for note in _child_notes(call_id, _dicts(outcome.get("transcript"))):
        task = child_note(task, note)
    return task


def _child_notes(task_id: str, transcript: list[dict[str, Any]]) -> list[Progress]:
    """The notifications the child's stored conversation stands for, in order."""
    results = {str(m["toolCallId"]): str(m.get("content", "")) for m in transcript
               if m.get("toolCallId") is not None}
    notes: list[Progress] = []
    for message in transcript:
        if message.get("role") != "assistant":
            continue
        calls = _dicts(message.get("toolCalls"))
        notes.append({"kind": "assistant_message", "text": str(message.get("content", "")),
                      "toolCalls": calls})
        for stored in calls:
            call_id = str(stored.get("wireId") or f"{task_id}/{stored.get('id')}")
            tool, outcome = str(stored.get("name")), stored.get("outcome")
            kept = outcome if isinstance(outcome, dict) else {}
            begun = {"toolCallId": call_id, "tool": tool, "arguments": _arguments(stored)}
            if kept.get("started") is not False and kept.get("status") not in _REFUSED:
                notes.append({**begun, "kind": "tool_started"})
            notes.append(_end(call_id, tool, begun["arguments"], kept,
                              results.get(str(stored.get("id")), "")))
    return notes


def _end(call_id: str, tool: str, arguments: Any, outcome: dict[str, Any],
         output: str) -> Progress:
    """The `tool_completed` or `tool_failed` a kept outcome stands for (a call kept without
    one: completed, as nothing more is known)."""
    status = str(outcome.get("status", "completed"))
    fields = {k: v for k, v in outcome.items()
              if k not in ("status", "turn", "approval", "started", "asked", "transcript")}
    end: Progress = {**fields, "toolCallId": call_id, "tool": tool, "arguments": arguments,
                     "output": output, "kind": "tool_completed"}
    if status != "completed":
        end.update(kind="tool_failed", reason=status)
    return end


def _arguments(stored: dict[str, Any]) -> Any:
    try:
        return json.loads(str(stored.get("arguments", "")))
    except ValueError:
        return stored.get("arguments")


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
