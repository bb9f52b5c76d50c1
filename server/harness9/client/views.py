"""Choosing the view (live terminal or JSON lines) and routing notifications to the current one."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness9.client.outcome import View

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.text import Text

Footer = Callable[[], "list[RenderableType]"]


def stdout_console() -> Console:
    """A console on stdout. Piped (not a terminal), it wraps no line and pads none: a file or
    a program reading the transcript gets each line whole, as it was written."""
    from rich.console import Console

    console = Console(highlight=False)
    console.soft_wrap = not console.is_terminal
    return console


def make_view(json: bool, footer: Footer | None = None, console: Console | None = None) -> View:
    """A fresh view for one run; `footer` draws what goes below it (the live view only), on
    `console` (default: the terminal)."""
    if json:
        from harness9.client.jsonlines import JsonLinesView

        return JsonLinesView()
    from harness9.client.live import LiveView

    return LiveView(console, footer=footer)


class ViewSlot:
    """Holds the view of the run in progress; the daemon's notifications are forwarded to it."""

    def __init__(
        self, json: bool, console: Console | None = None, make: Callable[[], View] | None = None
    ) -> None:
        self.json = json
        self.console = console
        self._make = make  # makes each run's view in place of `make_view` (`exec --json`)
        self._view: View | None = None
        # While set: the notifications go there instead (it picks the view of each run).
        self.router: Callable[[dict[str, Any]], None] | None = None
        self.footer: Footer | None = None
        self.planned = False  # a `plan` notification came (the model wrote a plan)
        # While set: what gives the terminal back to a question to the user (typed input).
        self.pause_typing: Callable[[], contextlib.AbstractContextManager[None]] | None = None

    def open(self) -> View:
        """Start a new view (one per run)."""
        made = self._make() if self._make else make_view(self.json, self._footer, self.console)
        self._view = made
        return made

    def _footer(self) -> list[RenderableType]:
        """What goes below the run now (the footer may come after the view opened)."""
        return self.footer() if self.footer is not None else []

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """The terminal is the user's for the block: the view steps aside, typing pauses."""
        pause = self.pause_typing() if self.pause_typing is not None else contextlib.nullcontext()
        with pause, self.current().aside():
            yield

    def current(self) -> View:
        """The view in use, opened on first need."""
        return self._view or self.open()

    def progress(self, params: dict[str, Any]) -> None:
        """Forward an `agent/progress` notification."""
        self.planned = self.planned or params.get("kind") == "plan"
        if self.router is not None:
            self.router(params)
        else:
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
            stdout_console().print(text)

    def notes(self, notes: list[tuple[str, Path]]) -> None:
        """Print labelled paths at the very end, as the live view does (on stderr in JSON
        mode)."""
        if not self.json:
            from rich.text import Text

            console = stdout_console()
            for label, path in notes:
                console.print(Text.assemble((f"{label}: ", "dim"), str(path)))
            return
        for label, path in notes:
            sys.stderr.write(f"{label}: {path}\n")
        sys.stderr.flush()
