"""Messages the user sends to a run while it goes on, delivered at its safe points.

A steer waits in the run's `Steering` until the engine reaches a safe point: after a batch's
tool results are all in, before the next model call (never between a call and its result).
Each steer's `fate` then resolves: `DELIVERED` once it is in the conversation, or `LEFT_OVER`
when the run ended first (whoever holds the run's steering decides what becomes of it, names
the run that takes it up in `next_run`, and resolves it).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

DELIVERED = "run"
LEFT_OVER = "next"


@dataclass(slots=True)
class Steer:
    """One message for the running conversation: `message` is what the model reads (the
    prompt with its attached context), `shown` what the user typed."""

    message: str
    shown: str
    fate: asyncio.Future[str] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    next_run: str | None = None  # the run that takes up a left-over steer


class Steering:
    """The steers waiting for a run's next safe point, in the order they came."""

    def __init__(self) -> None:
        self._waiting: list[Steer] = []
        self._closed = False

    def put(self, message: str, shown: str) -> Steer | None:
        """Queue a steer; None when the run has already ended (it can take no more)."""
        if self._closed:
            return None
        steer = Steer(message, shown)
        self._waiting.append(steer)
        return steer

    def pending(self) -> bool:
        """Whether a steer waits for the next safe point."""
        return bool(self._waiting)

    def take(self) -> list[Steer]:
        """The waiting steers, now being delivered (the caller resolves each as delivered)."""
        taken, self._waiting = self._waiting, []
        return taken

    def close(self) -> list[Steer]:
        """The run ended: take no more, and return the steers it never delivered (for the
        caller to resolve as `LEFT_OVER`)."""
        self._closed = True
        return [steer for steer in self.take() if not steer.fate.done()]
