"""The live terminal view of a run: streamed text, tool calls with spinners, usage and status.

It draws the run's state (`run_state`, folded from the notifications): the turn in progress
lives in rich's `Live` region, and each finished piece is printed above it once, so the
scrollback stays a plain, stable transcript.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.padding import Padding
from rich.segment import Segment, Segments
from rich.spinner import Spinner
from rich.text import Text

from harness9.client import format as fmt
from harness9.client import run_state
from harness9.client.outcome import Outcome
from harness9.client.plan_view import checklist
from harness9.client.run_pieces import Piece
from harness9.client.run_state import RunState
from harness9.client.run_summary import RunFacts, summary_line
from harness9.client.transcript import RowDrawings, drawn
from harness9.client.views import stdout_console

CANCELLING = "cancelling… (Ctrl-C again to stop at once)"

Footer = Callable[[], list[RenderableType]]


class LiveView:
    """Renders `agent/progress` notifications as they arrive."""

    def __init__(self, console: Console | None = None, footer: Footer | None = None) -> None:
        self.console = console or stdout_console()
        self._footer = footer  # what goes below the run in the live region (the typed line)
        self._live = self._new_live()
        self._started = time.monotonic()
        self.state = RunState()
        self._rows = RowDrawings()
        self._pending: list[RenderableType] = []
        self._closed = False
        self._live.start()
        self._refresh()

    def progress(self, params: dict[str, Any]) -> None:
        """Update the view for one notification."""
        self.state, pieces = run_state.advance(self.state, params)
        self._print(pieces)
        self._refresh()

    @property
    def closed(self) -> bool:
        """True once stdout was closed by its reader (`harness9 run … | head`)."""
        return self._closed

    def log(self, message: str) -> None:
        """Daemon messages are in its log file, not in the transcript."""

    def _new_live(self) -> Live:
        return Live(
            console=self.console,
            refresh_per_second=12.5,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Stop the live region (it is transient: it clears) while the user is asked, so the
        question and the answer stay in the scrollback; then carry on below them, in a new
        region (a restarted one would first move up over what was printed meanwhile)."""
        self._live.stop()
        try:
            yield
        finally:
            self._live = self._new_live()
            self._live.start()
            self._refresh()

    def show(self, note: RenderableType) -> None:
        """Print a note above the run."""
        self._pending.append(note)
        self._refresh()

    def refresh(self) -> None:
        """Redraw the live region (the footer changed)."""
        self._refresh()

    def cancelling(self) -> None:
        """Show that a cancel is under way."""
        self.state = run_state.cancelling(self.state)
        self._refresh()

    def finished(self, outcome: Outcome, notes: list[tuple[str, Path]]) -> None:
        """Print the summary line and the notes, and end the live region."""
        self.state, pieces = run_state.end(self.state, outcome)
        self._print(pieces)
        self._refresh()
        self._live.stop()
        if self._closed:
            return
        try:
            if self.state.turn:
                self.console.print()
            self.console.print(self._summary(outcome))
            for label, path in notes:
                self.console.print(Text.assemble((f"{label}: ", "dim"), str(path)))
        except (BrokenPipeError, SystemExit):
            self._closed = True

    # -- drawing -----------------------------------------------------------------------------

    def _print(self, pieces: Iterable[Piece]) -> None:
        """Queue finished pieces for the transcript above the live region."""
        for piece in pieces:
            self._pending.extend(drawn(piece, self.console, self._rows))

    def _refresh(self) -> None:
        """Show the new live state, then print the finished pieces above it.

        The live region is updated first so that printing, which redraws it, never draws a
        stale state that the next refresh would have to erase.
        """
        pending, self._pending = self._pending, []
        if self._closed:
            return
        try:
            # Refreshed before printing: each print redraws the region below it from what was
            # last rendered, and a stale region (the turn's text just printed) would show twice.
            self._live.update(self._live_state(), refresh=True)
            for renderable in pending:
                self.console.print(renderable)
        except (BrokenPipeError, SystemExit):
            # rich turns a closed stdout into SystemExit after pointing stdout at /dev/null.
            self._closed = True

    def _live_state(self) -> RenderableType:
        state = self.state
        parts: list[RenderableType] = []
        if state.streaming:
            parts.extend(self._streaming())
        parts.extend(self._rows.draw(call) for call in state.rows)
        if state.cancelling:
            parts.append(Spinner("dots", Text(CANCELLING, style="yellow")))
        if not parts and not state.finished:
            label = f"turn {state.turn} · waiting for the model" if state.turn else "starting"
            parts.append(Spinner("dots", Text(label, style="dim")))
        fill = fmt.context_fill(state.usage)
        if fill and not state.finished:
            parts.append(Text(fill, style="dim"))
        if state.plan is not None and state.plan_pending and not state.finished:
            parts.append(checklist(state.plan))
        if self._footer is not None:
            parts.extend(self._footer())
        return Group(*parts)

    def _streaming(self) -> list[RenderableType]:
        header = Text(f"● turn {self.state.turn}", style="bold cyan")
        if not self.state.text:
            return [Spinner("dots", header)] if not self.state.header_printed else []
        body = Padding(self._text_tail(), (0, 0, 0, 2), expand=False)
        return [body] if self.state.header_printed else [header, body]

    def _text_tail(self) -> RenderableType:
        """The streamed text as markdown, its last lines when it is taller than the screen."""
        room = max(3, self.console.size.height - 5)
        width = max(20, self.console.size.width - 2)
        lines = self.console.render_lines(
            Markdown(self.state.text), self.console.options.update_width(width), pad=False
        )
        segments: list[Segment] = []
        for line in lines[-room:]:
            segments.extend(line)
            segments.append(Segment.line())
        return Segments(segments[:-1])

    def _summary(self, outcome: Outcome) -> Text:
        # A run_finished does not name the command the daemon ran: the view saw it.
        result = {"command": self.state.command, **(outcome.result or {})}
        finished = self.state.finished or {}
        ran = RunFacts(result, finished, self.state.usage, time.monotonic() - self._started)
        return summary_line(outcome, ran)
