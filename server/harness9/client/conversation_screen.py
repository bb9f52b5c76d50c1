"""What the terminal shows of a busy session around its runs: the notes about the session (a
prompt queued, a steer too late), and the footer below the run on screen (steers on their way,
the queue, the line being typed). It only reads the session's state (`session_runs`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from harness9.client.input_line import LineEditor, TerminalTyping, typed_line
from harness9.client.outcome import View
from harness9.client.run_queue import RunQueue
from harness9.client.session_runs import Note, SessionRuns
from harness9.client.views import ViewSlot, stdout_console
from harness9.visible_text import visible

UNKNOWN = "…"  # a queued prompt whose text is still being asked for
NOTE_LINES = {  # each note's line (`text` is shown escaped) and its style
    "queued": ("⏵ queued: {text}", "blue"),
    "dequeued": ("✗ {detail} from the queue: {text}", "yellow"),
    "nothing_queued": ("nothing is queued", "dim"),
    "not_queued": ("✗ not queued: {text}: {detail}", "red"),
    "steer_late": ("↪ the run ended before it could read that: it runs next", "magenta"),
    "not_steered": ("✗ not steered: {detail}", "red"),
    "failed": ("✗ {text}: {detail}", "red"),
}


def note_line(note: Note) -> Text:
    """A note as its line in the transcript."""
    form, style = NOTE_LINES[note.what]
    return Text(form.format(text=visible(note.text), detail=note.detail), style=style)


def queue_lines(queue: RunQueue) -> list[Text]:
    """One line per waiting prompt, for the live region."""
    return [
        Text(f"⏵ queued {number}: {visible(entry.prompt or UNKNOWN)}", style="blue")
        for number, entry in enumerate(queue.ordered(), 1)
    ]


class ConversationScreen:
    """The session's notes and footer, around the view of the run on screen."""

    def __init__(self, slot: ViewSlot, runs: SessionRuns, editor: LineEditor,
                 first_view: View | None) -> None:
        self.slot, self.runs, self.editor = slot, runs, editor
        self.typing: TerminalTyping | None = None  # set while the user can type
        self.view: View | None = None  # the run on screen's
        self._first_view = first_view  # already on screen (it showed the daemon starting)
        self._notes: list[RenderableType] = []  # for the next view (none is open now)

    def open(self) -> View:
        """A view for what comes next: the one already on screen, else a new one."""
        view, self._first_view = self._first_view or self.slot.open(), None
        return view

    def begin(self, prompt: str) -> View:
        """The view of the run going on screen, its prompt and the notes held for it shown."""
        view = self.view = self.open()
        if prompt:
            view.show(Text.assemble(("» ", "bold"), visible(prompt, lines=True)))
        for note in self._notes:
            view.show(note)
        self._notes = []
        return view

    def note(self, note: Note) -> None:
        """A line for the transcript: above the run on screen, else above the next one."""
        if self.view is not None:
            self.view.show(note_line(note))
        else:
            self._notes.append(note_line(note))

    def footer(self) -> list[RenderableType]:
        """Below the run: steers on their way, the queue, and the line being typed."""
        parts: list[RenderableType] = [
            Text(f"↪ steering: {visible(text)} (at the next step)", style="magenta")
            for text in self.runs.in_flight.steers
        ]
        parts.extend(queue_lines(self.runs.queue))
        if self.typing is not None:
            parts.extend(typed_line(self.editor.text))
        return parts

    def refresh(self) -> None:
        """Redraw the live region (the footer changed)."""
        refresh = getattr(self.view, "refresh", None)
        if callable(refresh):
            refresh()

    def install(self, router: Callable[[dict[str, Any]], None]) -> None:
        """The notifications go to `router`, the footer below the runs, the keys to typing."""
        self.slot.router = router
        self.slot.footer = self.footer
        if self.typing is not None:
            self.slot.pause_typing = self.typing.paused
            self.typing.start()

    def uninstall(self) -> None:
        """Back as before `install`; the notes no view showed are printed."""
        if self.typing is not None:
            self.typing.stop()
        self.slot.router = self.slot.footer = self.slot.pause_typing = None
        if self._notes:
            console = self.slot.console or stdout_console()
            for note in self._notes:
                console.print(note)
            self._notes = []
