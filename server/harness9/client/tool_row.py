"""One tool call in the live view: while it runs, a spinner with its elapsed time and the live
tail of its output; once it ended, ✓/✗ with what it did in English, and its diff or output (a
command that exited non-zero is a ✗ row with its exit code), and the problems an edit brought."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.spinner import Spinner
from rich.text import Text

from harness9.client import format as fmt
from harness9.client import summary
from harness9.client.child_rows import SHOWN_CHILD_ROWS
from harness9.client.diff_view import diff_lines
from harness9.client.run_pieces import LIVE_KEEP

LIVE_LINES = 5
STOP_HINT = "Ctrl-C to stop"


class ToolRow:
    """The state and rendering of a single tool call (a rich renderable: rendered anew on each
    refresh, so the elapsed time moves)."""

    def __init__(self, tool: str, kind: str, arguments: Any, *, asked: bool = False) -> None:
        self.tool = tool
        self.kind = kind  # the tool's kind: `read`, `edit`, `execute` or `other`
        self.arguments = arguments
        self.ok: bool | None = None  # None while running (or waiting)
        self.waiting = asked  # asked about and not started yet: waiting for the user's answer
        headline = summary.asked if asked else summary.running
        self.headline = headline(tool, arguments)
        self.lines: list[str] = []
        self.changed: list[str] = []
        self.problems: list[str] = []  # the new problems an edit brought
        self.diff: RenderableType | None = None
        self.live = ""
        self.sandbox: str | None = None  # where its command ran (bash): bwrap, landlock, none
        self.children: list[str] = []  # a task's: its child agent's rows
        self.folded: str | None = None  # a task's child in one line, once the task ended
        self._started = time.monotonic()
        self._spinner = Spinner("dots", style="cyan")

    def start(self) -> None:
        """The call was allowed and its tool began (`tool_started` of a call asked about)."""
        self.waiting = False
        self.headline = summary.running(self.tool, self.arguments)
        self._started = time.monotonic()

    def output(self, text: str) -> None:
        """Add a piece of the call's live output (`tool_output`)."""
        self.live = (self.live + text)[-LIVE_KEEP:]

    def finish(self, params: dict[str, Any], *, ok: bool) -> None:
        """Record a `tool_completed` (ok) or `tool_failed` notification. A command that ended
        with a non-zero exit (or a signal) completed, but its row shows it failed."""
        self.ok = ok and not summary.command_failed(params)
        self.waiting = False
        self.sandbox = params.get("sandbox") if isinstance(params.get("sandbox"), str) else None
        self.headline = summary.finished(self.tool, self.arguments, params, ok=ok)
        self.lines = self._body(params, ok)
        self.changed = fmt.changed_files(
            params.get("changedFiles"), params.get("changedFilesSharedWith")
        )
        self.problems = fmt.new_problems(params.get("diagnostics")) if ok else []
        if ok and isinstance(params.get("diff"), str) and params["diff"].strip():
            self.diff = diff_lines(params["diff"], truncated=bool(params.get("diffTruncated")))

    def _body(self, params: dict[str, Any], ok: bool) -> list[str]:
        output = str(params.get("output", ""))
        if not ok:
            if summary.refused_plainly(params):
                return []
            return fmt.preview(self.kind, output, limit=2)
        if self.kind == "execute":
            return fmt.preview(self.kind, summary.command_output(params))
        if self.kind in ("read", "edit"):
            return []  # the headline says it; the text is the model's
        return fmt.preview(self.kind, output)

    def __rich__(self) -> RenderableType:
        return self.render()

    def render(self) -> RenderableType:
        """The row as it stands now."""
        if self.ok is None:
            return self._running()
        glyph = Text("✓ ", style="green") if self.ok else Text("✗ ", style="red")
        head = Text.assemble("  ", glyph, _headline(self.headline))
        if self.sandbox is not None:
            where = "not sandboxed" if self.sandbox == "none" else f"sandboxed ({self.sandbox})"
            head.append(f" · {where}", style="dim")
        body = [_quoted(line) for line in self.lines]
        changed = [
            Text(f"      {line}", style="yellow", no_wrap=True, overflow="ellipsis")
            for line in self.changed
        ]
        diff = [self.diff] if self.diff is not None else []
        problems = [Text(f"      ! {line}", style="red", no_wrap=True, overflow="ellipsis")
                    for line in self.problems]
        child = [Text(f"      {self.folded}", style="dim")] if self.folded else []
        return Group(head, *child, *body, *diff, *problems, *changed)

    def _running(self) -> RenderableType:
        if self.waiting:
            waiting = (" · waiting for approval", "yellow")
            return Text.assemble("  ? ", _headline(self.headline), waiting)
        elapsed = fmt.human_duration((time.monotonic() - self._started) * 1000)
        self._spinner.update(text=Text.assemble(_headline(self.headline), "  ", (elapsed, "dim")))
        parts: list[RenderableType] = [Padding(self._spinner, (0, 0, 0, 2))]
        parts.extend(_quoted(line) for line in live_tail(self.live))
        parts.extend(Text(f"      {line}", style="dim", no_wrap=True, overflow="ellipsis")
                     for line in self.children[-SHOWN_CHILD_ROWS:])
        if self.kind == "execute":
            parts.append(Text(f"      {STOP_HINT}", style="dim italic"))
        return Group(*parts)


def live_tail(text: str, limit: int = LIVE_LINES) -> list[str]:
    """The last `limit` non-empty lines of live output, each as a terminal would leave it after
    carriage returns (progress bars redraw one line)."""
    lines = [line.rstrip("\r").rsplit("\r", 1)[-1].rstrip() for line in text.split("\n")]
    return [line for line in lines if line.strip()][-limit:]


def _headline(text: str) -> Text:
    verb, _, rest = text.partition(" ")
    return Text.assemble((verb, "bold"), " ", rest) if rest else Text(verb, style="bold")


def _quoted(line: str) -> Text:
    return Text(f"      │ {line}", style="dim", no_wrap=True, overflow="ellipsis")
