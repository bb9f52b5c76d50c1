"""`harness9` on a real pseudo-terminal, its screen kept by a terminal emulator (pyte): what the
user sees, scrollback included, after every cursor move and erase the live view made."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import termios
import time
from collections.abc import Callable, Sequence

import pyte

from tests.client.conftest import HARNESS9


class _Screen(pyte.HistoryScreen):
    """A screen that answers what the program asks the terminal (where the cursor is, as
    line editors ask), as a real terminal does."""

    def __init__(self, columns: int, rows: int, answer: Callable[[bytes], None]) -> None:
        super().__init__(columns, rows, history=5000)
        self._answer = answer

    def write_process_input(self, data: str) -> None:
        self._answer(data.encode())


class Terminal:
    """A process on a pty of `rows` × `columns`, with an emulated screen."""

    def __init__(self, args: Sequence[str], *, rows: int = 24, columns: int = 100) -> None:
        self.columns = columns
        self.screen = _Screen(columns, rows, self.type)
        self._stream = pyte.ByteStream(self.screen)
        self.raw = b""
        pid, fd = pty.fork()
        if pid == 0:  # the child: size its terminal (before the command can ask), become it
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            # The size is the terminal's: not COLUMNS and LINES (pytest-xdist's workers set them).
            env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
            os.execvpe(HARNESS9[0], [*HARNESS9, *args], {**env, "TERM": "xterm-256color"})
        self.pid, self.fd = pid, fd
        self.code: int | None = None
        self._eof = False

    def type(self, keys: bytes) -> None:
        """Send keys as the user types them (b"\\x03" is Ctrl-C, b"\\x04" Ctrl-D)."""
        os.write(self.fd, keys)

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = 20) -> str:
        """Read output until `predicate(transcript)` holds; returns the transcript."""
        deadline = time.monotonic() + timeout
        while not predicate(self.transcript()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the screen never matched; it shows:\n{self.transcript()}")
            if self._eof:
                raise EOFError(f"the process ended; it showed:\n{self.transcript()}")
            self._read(0.05)
        return self.transcript()

    def finish(self, timeout: float = 20) -> int:
        """Read until the process closes the terminal; its exit code."""
        deadline = time.monotonic() + timeout
        while not self._eof:
            if time.monotonic() > deadline:
                self.kill()
                raise TimeoutError(f"still running; it shows:\n{self.transcript()}")
            self._read(0.05)
        return self._reap()

    def transcript(self) -> str:
        """The scrollback and the screen as text, trailing blanks trimmed."""
        history = ["".join(line[x].data for x in range(self.columns)) for line in
                   self.screen.history.top]
        lines = [line.rstrip() for line in [*history, *self.screen.display]]
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines)

    def kill(self) -> None:
        """Stop the process if it still runs."""
        if self.code is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._reap()

    def _read(self, wait: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: every process closed the terminal
            data = b""
        if not data:
            self._eof = True
            return
        self.raw += data
        self._stream.feed(data)

    def _reap(self) -> int:
        if self.code is None:
            _, status = os.waitpid(self.pid, 0)
            self.code = os.waitstatus_to_exitcode(status)
            os.close(self.fd)
        return self.code
