"""Holding back work that can wait (another service's model list) while prompts run.

Listing the models of every configured service imports each one's SDK, most of a second of
CPU for Anthropic's. Done right after `session/new`, it would take that CPU from a first prompt
sent at once; so it waits until the process has warmed up and no prompt runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from harness9.service.warm_up import warmed


class Prompts:
    """The prompts running in this agent, and a way to wait until none does."""

    def __init__(self) -> None:
        self._running = 0
        self._none = asyncio.Event()
        self._none.set()

    @contextmanager
    def running(self) -> Iterator[None]:
        """Count one prompt as running for the block."""
        self._running += 1
        self._none.clear()
        try:
            yield
        finally:
            self._running -= 1
            if not self._running:
                self._none.set()

    async def quiet(self) -> None:
        """Return once warming up has ended and no prompt runs."""
        await warmed()
        while self._running:  # a prompt may start while warming up ends
            await self._none.wait()
