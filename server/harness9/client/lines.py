"""Reading a line, or one key, from the terminal without blocking the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Iterator

END_OF_INPUT = "\x04"  # Ctrl-D


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


async def read_key(prompt: str) -> str | None:
    """One key pressed on the terminal after `prompt`, without waiting for Enter (None at end
    of input or Ctrl-D). The key is shown after the prompt, and what came with it in the same
    read (an Enter pressed out of habit, a paste) is dropped: it answers nothing."""
    data = await _read_terminal(prompt, whole_line=False)
    key = data.decode("utf-8", "replace")[:1]
    sys.stdout.write((key if key.isprintable() else "") + "\n")
    sys.stdout.flush()
    return None if key in ("", END_OF_INPUT) else key


async def read_terminal_line(prompt: str) -> str | None:
    """A line typed on the terminal after `prompt`, edited and echoed by the terminal itself
    (None at end of input). Read on the event loop: no thread is left blocked on the terminal."""
    data = await _read_terminal(prompt, whole_line=True)
    return data.decode("utf-8", "replace").rstrip("\r\n") if data else None


async def _read_terminal(prompt: str, *, whole_line: bool) -> bytes:
    """What one read of the terminal gives after `prompt`: a line as the terminal edits and
    echoes it, or (not `whole_line`) the keys pressed, unechoed. The terminal's mode is put
    back after."""
    import termios

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    mode = termios.tcgetattr(fd)
    if whole_line:
        mode[3] |= termios.ICANON | termios.ECHO
    else:
        mode[3] &= ~(termios.ICANON | termios.ECHO)
        mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
    loop = asyncio.get_running_loop()
    done: asyncio.Future[bytes] = loop.create_future()

    def readable() -> None:
        loop.remove_reader(fd)  # one read: what comes next is not this question's
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not done.done():
            done.set_result(data)

    sys.stdout.write(prompt)
    sys.stdout.flush()
    termios.tcsetattr(fd, termios.TCSANOW, mode)
    loop.add_reader(fd, readable)
    try:
        return await done
    finally:
        loop.remove_reader(fd)
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSANOW, saved)


def _readline() -> str:
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


@contextlib.contextmanager
def no_echo() -> Iterator[None]:
    """While the block runs, the terminal echoes nothing itself: what is read shows where the
    reader draws it (the prompt's line editor, the typed line below a run, a question's key).

    Keys typed ahead (while the daemon starts, or while a run ends) would else show twice:
    echoed where the cursor happened to be, then again once the line editor reads them. And a
    control key's echo (`^C`) lands wherever the live view left the cursor; at the end of a
    full-width line it wraps to a new line the view does not know of, and its next redraw then
    leaves a line of the old region behind. Without a terminal this does nothing.
    """
    import termios

    try:
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError):  # not a terminal
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSANOW, saved)
