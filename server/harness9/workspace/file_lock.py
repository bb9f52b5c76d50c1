"""One lock per file for the whole daemon: writes to one file never interleave.

Every run builds its own tools, so a lock held by a tool instance would only order the calls of
one run; two sessions editing one file would lose each other's changes. The locks live here,
keyed by the file's real path, and go away when nobody holds or waits for them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

_locks: dict[str, tuple[asyncio.Lock, int]] = {}


@contextlib.asynccontextmanager
async def file_lock(path: str) -> AsyncIterator[None]:
    """Hold the daemon-wide lock of the file at real path `path` for the block."""
    lock, users = _locks.get(path, (None, 0))
    if lock is None:
        lock = asyncio.Lock()
    _locks[path] = (lock, users + 1)
    try:
        async with lock:
            yield
    finally:
        lock, users = _locks[path]
        if users == 1:
            del _locks[path]
        else:
            _locks[path] = (lock, users - 1)


def held_locks() -> int:
    """How many files have a lock in use (for tests: the table does not grow)."""
    return len(_locks)
