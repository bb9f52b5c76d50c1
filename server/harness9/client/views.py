"""Choosing the view (live terminal or JSON lines) and routing notifications to the current one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness9.client.outcome import View

if TYPE_CHECKING:
    from rich.text import Text


def make_view(json: bool) -> View:
    """A fresh view for one run."""
    if json:
        from harness9.client.jsonlines import JsonLinesView

        return JsonLinesView()
    from harness9.client.live import LiveView

    return LiveView()


class ViewSlot:
    """Holds the view of the run in progress; the daemon's notifications are forwarded to it."""

    def __init__(self, json: bool) -> None:
        self.json = json
        self._view: View | None = None

    def open(self) -> View:
        """Start a new view (one per run)."""
        self._view = make_view(self.json)
        return self._view

    def current(self) -> View:
        """The view in use, opened on first need."""
        return self._view or self.open()

    def progress(self, params: dict[str, Any]) -> None:
        """Forward an `agent/progress` notification."""
        self.current().progress(params)

    def log(self, message: str) -> None:
        """Forward a daemon message."""
        if self._view is not None:
            self._view.log(message)

    def recap(self, text: Text) -> None:
        """Show a note before the run (what a resumed session was about): in the run's view
        when one is open, else straight to the terminal; on stderr in JSON mode."""
        if self._view is not None:
            self._view.show(text)
        elif self.json:
            sys.stderr.write(text.plain + "\n")
            sys.stderr.flush()
        else:
            from rich.console import Console

            Console(highlight=False).print(text)

    def notes(self, notes: list[tuple[str, Path]]) -> None:
        """Print labelled paths at the very end (on stderr in JSON mode)."""
        out = sys.stderr if self.json else sys.stdout
        for label, path in notes:
            out.write(f"{label}: {path}\n")
        out.flush()
