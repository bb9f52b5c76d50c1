"""A session's live markdown transcript, for clients that show no chat: one file per session
under the state folder, appended as each run's events arrive, which `window/showDocument` opens
(an editor reloads a file that changes on disk, so the user watches the run in a buffer)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from harness9.engine.events import (
    ApprovalResolved,
    AssistantMessage,
    ChildEvent,
    Event,
    RunFinished,
    ToolFinished,
)
from harness9.lsp.workdone import describe_call, result_mark
from harness9.service.state import state_dir

_log = logging.getLogger("harness9.lsp")
_OUTPUT_LINES = 12  # of a failed call's output, shown under its row


def transcript_path(session_id: str) -> Path:
    """Where a session's transcript lives (outside every workspace)."""
    return state_dir() / "transcripts" / f"{session_id}.md"


class Transcript:
    """Appends one run of a session to its transcript; an event subscriber."""

    def __init__(self, session_id: str, run_id: str, root: str, prompt: str) -> None:
        self.path = transcript_path(session_id)
        self._in_list = False  # the last thing written was a row of the tool calls' list
        self._tasks: set[str] = set()  # the task calls whose child has a row already
        self.path.parent.mkdir(parents=True, exist_ok=True)
        head = "" if self.path.exists() else (
            f"# harness9 · {Path(root).name}\n\nSession `{session_id}` in `{root}`. Each run is "
            "appended as it goes; this file is rewritten by nobody but harness9.\n")
        stamp = time.strftime("%Y-%m-%d %H:%M")
        quoted = "\n".join(f"> {line}" for line in prompt.splitlines())
        self._write(f"{head}\n## {stamp} · run `{run_id}`\n\n{quoted}\n\n")

    def __call__(self, event: Event) -> None:
        text = self._child(event) if isinstance(event, ChildEvent) else _shown(event)
        if text:
            self._write(text)

    def _child(self, event: ChildEvent) -> str:
        """A child agent's call as a row nested under a line naming the agent and its task
        (written before the child's first row); the rest of the child's run is not shown."""
        inner = event.event
        if not isinstance(inner, ToolFinished | ApprovalResolved):
            return ""
        row = _shown(inner)
        if not row:
            return ""
        head = ""
        if event.parent_call_id not in self._tasks:
            self._tasks.add(event.parent_call_id)
            head = f"- *{event.agent}* agent, for task `{event.parent_call_id}`:\n"
        return head + "".join(f"  {line}\n" if line else "\n"
                              for line in row.rstrip("\n").split("\n"))

    def note(self, text: str) -> None:
        """Add a line of the daemon's own (why a question was not asked, what was removed)."""
        self._write(f"*{text}*\n\n")

    def _write(self, text: str) -> None:
        if self._in_list and not text.startswith(("- ", "  - ", "\n")):
            text = "\n" + text  # else markdown reads the text as part of the row above
        self._in_list = text.startswith(("- ", "  - ")) and not text.endswith("\n\n")
        try:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(text)
        except OSError as exc:  # a transcript is a view: the run goes on without it
            _log.warning("transcript %s: %s", self.path, exc)


def _shown(event: Event) -> str:
    match event:
        case AssistantMessage() if event.text.strip():
            return f"{event.text.strip()}\n\n"
        case ToolFinished():
            return _row(event)
        case ApprovalResolved() if event.decision in ("reject", "deny"):
            return f"- ✗ {describe_call(event.call)} · {event.decision} ({event.by})\n"
        case RunFinished():
            error = f": {event.error.get('message', '')}" if event.error else ""
            return (f"\n**{event.status}**{error} · {event.turns} turns, "
                    f"{event.tool_calls} tool calls\n\n")
    return ""


def _row(event: ToolFinished) -> str:
    result = event.result
    row = f"- {result_mark(result)} `{describe_call(event.call)}` · {result.duration_ms:.0f} ms"
    if result.edit is not None:
        row += f" · +{result.edit.added} −{result.edit.removed}"
    if not result.is_error:
        return row + "\n"
    lines = result.output.strip().splitlines()[:_OUTPUT_LINES]
    body = "\n".join(f"    {line}" for line in lines)
    return f"{row}\n\n{body}\n\n" if body else row + "\n"

