"""The line the user types while a run streams, read key by key from the terminal.

The terminal is in cbreak mode meanwhile (no echo, no line editing; Ctrl-C still interrupts), so
the live view owns the screen and draws the line itself. Enter hands the line over as a steer,
Tab as a prompt to queue. Kept apart from the view and the conversation, so a line editor such as
prompt_toolkit can take its place behind the same two callbacks.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import sys
import termios
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from harness9.visible_text import visible

HINT = "Enter steers the run · Tab queues a prompt · Ctrl-C cancels the run"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"  # how a terminal brackets pasted text
BRACKETED_PASTE = ("\x1b[?2004h", "\x1b[?2004l")  # on, off


def can_type(json: bool) -> bool:
    """Whether the user can type while a run streams: a terminal in and out, no JSON."""
    return not json and sys.stdin.isatty() and sys.stdout.isatty()


@dataclass(frozen=True, slots=True)
class Typed:
    """A line handed over: `how` is "steer" (Enter) or "queue" (Tab)."""

    how: str
    text: str


class LineEditor:
    """The typed line and its editing keys: Backspace, Ctrl-U (clear the line), Ctrl-W (the last
    word); cursor and other escape-sequence keys are ignored. Pasted text (bracketed by the
    terminal) joins the line whole: its line breaks and tabs hand nothing over. Pure: bytes
    in, lines out."""

    def __init__(self) -> None:
        self.text = ""
        self._escape = ""  # an escape sequence (a cursor key) being skipped
        self._pasting = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> list[Typed]:
        """Apply typed bytes; the lines Enter or Tab handed over, in order."""
        handed: list[Typed] = []
        for char in self._decoder.decode(data):
            typed = self._key(char)
            if typed is not None:
                handed.append(typed)
        return handed

    def _key(self, char: str) -> Typed | None:
        if self._escape or char == "\x1b":
            self._skip_escape(char)
        elif self._pasting and char in "\r\n\t":
            self.text += "" if self.text.endswith(" ") else " "
        elif char in "\r\n\t":
            return self._hand_over("queue" if char == "\t" else "steer")
        elif char in "\x7f\x08":
            self.text = self.text[:-1]
        elif char == "\x15":
            self.text = ""
        elif char == "\x17":
            kept = self.text.rstrip()
            self.text = kept[: kept.rfind(" ") + 1]
        elif char.isprintable():
            self.text += char
        return None

    def _skip_escape(self, char: str) -> None:
        """ESC [ … final, ESC O x, or ESC x: none of them types anything."""
        self._escape += char
        if len(self._escape) == 1:
            return
        if self._escape[1] in "[O":
            done = len(self._escape) > 2 and (self._escape[1] == "O" or "\x40" <= char <= "\x7e")
        else:
            done = True
        if done:
            if self._escape in (PASTE_START, PASTE_END):
                self._pasting = self._escape == PASTE_START
            self._escape = ""

    def _hand_over(self, how: str) -> Typed | None:
        text, self.text = self.text.strip(), ""
        return Typed(how, text) if text else None


def typed_line(text: str, hint: bool = True) -> list[RenderableType]:
    """The typed line as the live view shows it, below the run, with what its keys do."""
    line = Text.assemble(("› ", "bold"), visible(text), ("▏", "blink"))
    return [line, Text(HINT, style="dim")] if hint else [line]


class TerminalTyping:
    """Reads keys from the terminal on the event loop while a run streams."""

    def __init__(
        self, editor: LineEditor, on_typed: Callable[[Typed], None], on_change: Callable[[], None]
    ) -> None:
        self.editor = editor
        self._on_typed = on_typed
        self._on_change = on_change
        self._fd = sys.stdin.fileno()
        self._saved: list[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Put the terminal in cbreak mode and read keys as they come."""
        if self._saved is not None:
            return
        self._saved = termios.tcgetattr(self._fd)
        mode = termios.tcgetattr(self._fd)
        mode[3] &= ~(termios.ICANON | termios.ECHO)
        mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
        termios.tcsetattr(self._fd, termios.TCSANOW, mode)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._fd, self._readable)
        _write(BRACKETED_PASTE[0])

    def stop(self) -> None:
        """Stop reading; the terminal is as it was before `start`."""
        if self._saved is None:
            return
        if self._loop is not None:
            self._loop.remove_reader(self._fd)
        _write(BRACKETED_PASTE[1])
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(self._fd, termios.TCSANOW, self._saved)
        self._saved = None

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Give the terminal back for the block (a question to the user reads its own line)."""
        was_on = self._saved is not None
        self.stop()
        try:
            yield
        finally:
            if was_on:
                self.start()

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, 1024)
        except OSError:
            data = b""
        if not data:  # the terminal is gone: nothing more will be typed
            self.stop()
            return
        handed = self.editor.feed(data)
        self._on_change()
        for typed in handed:
            self._on_typed(typed)


def _write(control: str) -> None:
    """Send a control sequence to the terminal (it shows nothing)."""
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.write(control)
        sys.stdout.flush()
