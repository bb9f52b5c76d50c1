"""Reading a line from the terminal without blocking the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Iterator


def read_line(prompt: str = "", prefill: str = "") -> asyncio.Future[str | None]:
    """A future of the next line of input (None at end of input), read in a thread; `prefill`
    is text already typed (with a prompt, where readline can put it on the line).

    A daemon thread, because a blocked read cannot be interrupted and must not hold up exit.
    The caller may settle the future itself first (Ctrl-C); the line is then dropped.
    """
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str | None] = loop.create_future()

    def settle(value: str | None) -> None:
        if not answer.done():
            answer.set_result(value)

    def read() -> None:
        try:
            with _prefilled(prefill if prompt else ""):
                line: str | None = input(prompt) if prompt else _readline()
        except (EOFError, OSError, ValueError):
            line = None
        loop.call_soon_threadsafe(settle, line)

    threading.Thread(target=read, name="harness9-prompt", daemon=True).start()
    return answer


@contextlib.contextmanager
def _prefilled(text: str) -> Iterator[None]:
    """`input` starts with `text` on the line (when readline is there to put it)."""
    try:
        import readline
    except ImportError:
        readline = None  # type: ignore[assignment]
    if not text or readline is None:
        yield
        return
    readline.set_startup_hook(lambda: readline.insert_text(text))
    try:
        yield
    finally:
        readline.set_startup_hook(None)


def _readline() -> str:
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


@contextlib.contextmanager
def no_control_echo() -> Iterator[None]:
    """While the block runs, the terminal does not echo control keys (`^C`).

    The echo lands wherever the live view left the cursor; at the end of a full-width line it
    wraps to a new line the view does not know of, and its next redraw then leaves a line of the
    old region behind (a turn's header shown twice). Without a terminal this does nothing.
    """
    import termios

    try:
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError):  # not a terminal
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~termios.ECHOCTL
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSANOW, saved)
