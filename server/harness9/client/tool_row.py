"""One tool call in the live view: a spinner while it runs, then ✓/✗ with its numbers."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.spinner import Spinner
from rich.text import Text

from harness9.client import format as fmt


class ToolRow:
    """The state and rendering of a single tool call."""

    def __init__(self, tool: str, summary: str) -> None:
        self.tool = tool
        self.summary = summary
        self.ok: bool | None = None  # None while running
        self.details = ""
        self.lines: list[str] = []
        self.changed: list[str] = []
        self._spinner = Spinner("dots", self._label(), style="cyan")

    def finish(self, params: dict[str, Any], *, ok: bool) -> None:
        """Record a `tool_completed` (ok) or `tool_failed` notification."""
        self.ok = ok
        details = [fmt.human_duration(float(params.get("durationMs", 0)))]
        details.append(fmt.human_bytes(int(params.get("bytes", 0))))
        if params.get("truncated"):
            details.append("truncated")
        if not ok and params.get("reason"):
            details.append(str(params["reason"]))
        self.details = " · ".join(details)
        self.lines = fmt.preview(self.tool, str(params.get("output", "")))
        self.changed = fmt.changed_files(
            params.get("changedFiles"), params.get("changedFilesSharedWith")
        )

    def _label(self) -> Text:
        return Text.assemble((self.tool, "bold"), "  ", self.summary)

    def render(self) -> RenderableType:
        """The row, and below it a few lines of output and the files it changed once it
        finished."""
        if self.ok is None:
            return Padding(self._spinner, (0, 0, 0, 2))
        glyph = Text("✓ ", style="green") if self.ok else Text("✗ ", style="red")
        head = Text.assemble("  ", glyph, self._label(), "  ", (self.details, "dim"))
        body = [
            Text(f"      │ {line}", style="dim", no_wrap=True, overflow="ellipsis")
            for line in self.lines
        ]
        changed = [
            Text(f"      {line}", style="yellow", no_wrap=True, overflow="ellipsis")
            for line in self.changed
        ]
        return Group(head, *body, *changed)
