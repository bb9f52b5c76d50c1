"""Work the service starts and does not wait for (pruning checkpoints, stopping MCP servers)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class Background:
    """Tasks started without being awaited, kept referenced until they end (an unreferenced
    task may be collected before it finishes)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, work: Coroutine[Any, Any, None]) -> None:
        """Start `work` on the running loop."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
