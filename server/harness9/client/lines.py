"""Reading a line from the terminal without blocking the event loop."""

from __future__ import annotations

import asyncio
import sys
import threading


def read_line(prompt: str = "") -> asyncio.Future[str | None]:
    """A future of the next line of input (None at end of input), read in a thread.

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
            line: str | None = input(prompt) if prompt else _readline()
        except (EOFError, OSError, ValueError):
            line = None
        loop.call_soon_threadsafe(settle, line)

    threading.Thread(target=read, name="harness9-prompt", daemon=True).start()
    return answer


def _readline() -> str:
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line
