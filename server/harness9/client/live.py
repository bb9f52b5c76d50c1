"""The live terminal view of a run: streamed text, tool calls with spinners, usage and status.

Only the turn in progress lives in rich's `Live` region; each finished piece (a turn's text, a
turn's tool calls) is printed above it once, so the scrollback stays a plain, stable transcript.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
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
from harness9.client.outcome import Outcome
from harness9.client.plan_view import Plan, checklist, compact
from harness9.client.run_summary import RunFacts, summary_line
from harness9.client.tool_row import ToolRow
from harness9.client.views import stdout_console
from harness9.visible_text import visible

PLAN_TOOL = "update_plan"  # its calls show as the plan, not as tool rows

Footer = Callable[[], list[RenderableType]]


class LiveView:
    """Renders `agent/progress` notifications as they arrive."""

    def __init__(self, console: Console | None = None, footer: Footer | None = None) -> None:
        self.console = console or stdout_console()
        self._footer = footer  # what goes below the run in the live region (the typed line)
        self._live = self._new_live()
        self._started = time.monotonic()
        self._turn = 0
        self._text = ""
        self._text_printed = False
        self._header_printed = False
        self._rows: dict[str, ToolRow] = {}
        self._finished: dict[str, Any] = {}
        self._note: str | None = None
        self._pending: list[RenderableType] = []
        self._usage: dict[str, Any] | None = None
        self._plan: Plan | None = None
        self._plan_shown: Plan | None = None  # the plan as last printed whole
        self._closed = False
        self._command: str | None = None  # the slash command the daemon ran, if it did
        self._live.start()
        self._refresh()

    def progress(self, params: dict[str, Any]) -> None:
        """Update the view for one notification."""
        handler = getattr(self, f"_on_{params.get('kind')}", None)
        if handler is not None:
            handler(params)
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
        self._emit(note)
        self._refresh()

    def refresh(self) -> None:
        """Redraw the live region (the footer changed)."""
        self._refresh()

    def cancelling(self) -> None:
        """Show that a cancel is under way."""
        self._note = "cancelling… (Ctrl-C again to stop at once)"
        self._refresh()

    def finished(self, outcome: Outcome, notes: list[tuple[str, Path]]) -> None:
        """Print the summary line and the notes, and end the live region."""
        if self._command and not self._text and outcome.result:
            self._text = str(outcome.result.get("text") or "")  # the command's answer
        self._flush_text()
        self._flush_rows()
        self._print_plan()
        self._note = None
        self._finished = self._finished or {"status": outcome.status}
        self._refresh()
        self._live.stop()
        if self._closed:
            return
        try:
            if self._turn:
                self.console.print()
            self.console.print(self._summary(outcome))
            for label, path in notes:
                self.console.print(Text.assemble((f"{label}: ", "dim"), str(path)))
        except (BrokenPipeError, SystemExit):
            self._closed = True

    # -- notifications -----------------------------------------------------------------------

    def _on_run_started(self, p: dict[str, Any]) -> None:
        model = p.get("model") or "default model"
        header = f"harness9 · {p.get('provider')} · {model} · {p.get('workspaceRoot')}"
        self._emit(Text(header, style="dim"))

    def _on_command(self, p: dict[str, Any]) -> None:
        """A `/name` prompt the daemon runs as its command: a dim line, then its answer."""
        self._command = str(p.get("name", ""))
        arguments = visible(str(p.get("arguments") or ""))
        self._emit(Text(f"/{self._command} {arguments}".rstrip(), style="dim"))

    def _on_turn_started(self, p: dict[str, Any]) -> None:
        self._flush_text()
        self._flush_rows()
        self._turn = int(p.get("turn", self._turn + 1))
        self._text, self._text_printed, self._header_printed = "", False, False

    def _on_thinking(self, p: dict[str, Any]) -> None:
        self._print_header()
        self._emit(Text(f"  thinking: {p.get('text', '')}", style="dim italic"))

    def _on_text_delta(self, p: dict[str, Any]) -> None:
        self._text += str(p.get("text", ""))

    def _on_assistant_message(self, p: dict[str, Any]) -> None:
        self._text = str(p.get("text", ""))
        self._flush_text()

    def _on_approval_requested(self, p: dict[str, Any]) -> None:
        """A call asked about: its row shows it waiting until it starts or is refused."""
        self._flush_text()
        self._rows[str(p.get("toolCallId"))] = self._new_row(p, asked=True)

    def _on_tool_started(self, p: dict[str, Any]) -> None:
        self._flush_text()
        if p.get("tool") == PLAN_TOOL:
            return
        key = str(p.get("toolCallId"))
        row = self._rows.get(key)
        if row is not None and row.waiting:
            row.start()
        else:
            self._rows[key] = self._new_row(p)

    @staticmethod
    def _new_row(p: dict[str, Any], *, asked: bool = False) -> ToolRow:
        tool, kind = str(p.get("tool")), str(p.get("toolKind", "other"))
        return ToolRow(tool, kind, p.get("arguments"), asked=asked)

    def _on_tool_output(self, p: dict[str, Any]) -> None:
        row = self._rows.get(str(p.get("toolCallId")))
        if row is not None:
            row.output(str(p.get("text", "")))

    def _on_usage(self, p: dict[str, Any]) -> None:
        self._usage = p

    def _on_tool_completed(self, p: dict[str, Any]) -> None:
        if p.get("tool") == PLAN_TOOL:
            return
        self._row(p).finish(p, ok=True)

    def _on_tool_failed(self, p: dict[str, Any]) -> None:
        self._row(p).finish(p, ok=False)

    def _row(self, p: dict[str, Any]) -> ToolRow:
        """The row of a tool call; made on the spot when it never started (refused before it
        ran: denied, an unknown tool, bad arguments)."""
        key = str(p.get("toolCallId"))
        if key not in self._rows:
            self._flush_text()
            self._rows[key] = self._new_row(p)
        return self._rows[key]

    def _on_checkpoints_off(self, p: dict[str, Any]) -> None:
        self._emit(Text(f"! {p.get('message', 'checkpoints are off')}", style="yellow"))

    def _on_observation(self, p: dict[str, Any]) -> None:
        self._flush_rows()

    def _on_steered(self, p: dict[str, Any]) -> None:
        """A message typed while the run went on joined the conversation."""
        self._flush_text()
        self._flush_rows()
        text = visible(str(p.get("text", "")), lines=True)
        self._emit(Text.assemble(("↪ you: ", "bold magenta"), (text, "magenta")))

    def _on_plan(self, p: dict[str, Any]) -> None:
        """The model wrote its plan: the whole checklist the first time, then one line per
        update; the live region shows it whole meanwhile."""
        self._flush_text()
        self._plan = Plan.from_progress(p)
        if self._plan_shown is None:
            self._print_plan()
        else:
            self._emit(compact(self._plan))

    def _on_run_finished(self, p: dict[str, Any]) -> None:
        self._finished = p
        self._flush_text()
        self._flush_rows()

    # -- rendering ---------------------------------------------------------------------------

    def _flush_text(self) -> None:
        if self._text_printed or not (self._turn or self._command):
            return
        self._text_printed = True
        self._print_header()
        if self._text.strip():
            self._emit(self._answer(self._text.strip()))

    def _answer(self, text: str) -> RenderableType:
        """The model's text as the transcript keeps it: rendered Markdown, or the text itself
        where lines are kept whole (piped: see `stdout_console`; Markdown is plain text)."""
        if self.console.soft_wrap:
            return Text("\n".join(f"  {line}".rstrip() for line in text.splitlines()))
        return Padding(Markdown(text), (0, 0, 0, 2))

    def _print_header(self) -> None:
        if self._header_printed or not self._turn:
            return
        self._header_printed = True
        if self._turn > 1:
            self._emit(Text(""))
        self._emit(Text(f"● turn {self._turn}", style="bold cyan"))

    def _print_plan(self) -> None:
        """Print the plan whole, unless it is as last printed."""
        if self._plan is not None and self._plan != self._plan_shown:
            self._plan_shown = self._plan
            self._emit(checklist(self._plan))

    def _flush_rows(self) -> None:
        if self._rows:
            self._emit(Group(*(row.render() for row in self._rows.values())))
            self._rows = {}

    def _emit(self, renderable: RenderableType) -> None:
        """Queue a finished piece for the transcript above the live region."""
        self._pending.append(renderable)

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
        parts: list[RenderableType] = []
        if self._turn and not self._text_printed:
            parts.extend(self._streaming())
        parts.extend(self._rows.values())
        if self._note:
            parts.append(Spinner("dots", Text(self._note, style="yellow")))
        if not parts and not self._finished:
            label = f"turn {self._turn} · waiting for the model" if self._turn else "starting"
            parts.append(Spinner("dots", Text(label, style="dim")))
        fill = fmt.context_fill(self._usage)
        if fill and not self._finished:
            parts.append(Text(fill, style="dim"))
        if self._plan is not None and self._plan != self._plan_shown and not self._finished:
            parts.append(checklist(self._plan))
        if self._footer is not None:
            parts.extend(self._footer())
        return Group(*parts)

    def _streaming(self) -> list[RenderableType]:
        header = Text(f"● turn {self._turn}", style="bold cyan")
        if not self._text:
            return [Spinner("dots", header)] if not self._header_printed else []
        body = Padding(self._text_tail(), (0, 0, 0, 2), expand=False)
        return [body] if self._header_printed else [header, body]

    def _text_tail(self) -> RenderableType:
        """The streamed text as markdown, its last lines when it is taller than the screen."""
        room = max(3, self.console.size.height - 5)
        width = max(20, self.console.size.width - 2)
        lines = self.console.render_lines(
            Markdown(self._text), self.console.options.update_width(width), pad=False
        )
        segments: list[Segment] = []
        for line in lines[-room:]:
            segments.extend(line)
            segments.append(Segment.line())
        return Segments(segments[:-1])

    def _summary(self, outcome: Outcome) -> Text:
        # A run_finished does not name the command the daemon ran: the view saw it.
        result = {"command": self._command, **(outcome.result or {})}
        ran = RunFacts(result, self._finished, self._usage, time.monotonic() - self._started)
        return summary_line(outcome, ran)
