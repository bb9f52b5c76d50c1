"""Who runs next on a session: the run that holds it, and the runs waiting behind it, in order.

A run either takes a free session at once or waits in its queue; when the holder ends, the
session is handed to the first run waiting, before any other run can take it. A slot can also
be reserved at the front for a run a front-end starts a moment later (a steer that came too
late for its run becomes the session's next prompt); a reservation nobody claims lapses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness9.service.sessions.session import new_id

RESERVATION_LAPSES_AFTER = 10.0  # seconds a front-end has to claim a reserved slot


class Unqueued(Exception):
    """The waiting run was removed from the queue (`agent/unqueue`)."""


@dataclass(slots=True, eq=False)
class QueuedRun:
    """A run waiting for its session; `turn` resolves when it may start."""

    run_id: str
    prompt: str
    queue_id: str = field(default_factory=lambda: new_id("q"))
    turn: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    lapse: asyncio.TimerHandle | None = None  # a reservation's deadline
    task: asyncio.Task[Any] | None = None  # the task waiting for the turn (to cancel it)
    # A reserved slot's approval mode: a left-over steer keeps the mode of the run it was for.
    mode: str | None = None


class SessionQueue:
    """The holder of one session and the runs waiting for it."""

    def __init__(self, on_idle: Callable[[], None] = lambda: None) -> None:
        """`on_idle`: called when a reserved slot lapses and leaves the session free."""
        self._on_idle = on_idle
        self.holder: str | None = None
        self.waiting: list[QueuedRun] = []
        self.reserved: dict[str, QueuedRun] = {}  # by run id, until claimed

    def busy(self) -> bool:
        """Whether a run holds the session or waits for it."""
        return self.holder is not None or bool(self.waiting)

    def enter(self, run_id: str, prompt: str) -> QueuedRun | None:
        """Take the session for `run_id` (None: it is yours now), or wait at the back of the
        queue for the returned entry's `turn`."""
        if not self.busy():
            self.holder = run_id
            return None
        entry = QueuedRun(run_id, prompt)
        self.waiting.append(entry)
        return entry

    def reserve(self, run_id: str, prompt: str, mode: str | None = None) -> QueuedRun:
        """A slot at the front of the queue (or the session itself, when free) for a run that
        starts a moment later (in approval mode `mode`, when given) and `claim`s it;
        unclaimed, it lapses."""
        entry = QueuedRun(run_id, prompt, mode=mode)
        self.waiting.insert(0, entry)
        self.reserved[run_id] = entry
        loop = asyncio.get_running_loop()
        entry.lapse = loop.call_later(RESERVATION_LAPSES_AFTER, self._lapse, entry)
        self._hand_on()
        return entry

    def claim(self, run_id: str) -> QueuedRun | None:
        """The reserved slot of `run_id`, now claimed (None: there is none, or it lapsed)."""
        entry = self.reserved.pop(run_id, None)
        if entry is not None and entry.lapse is not None:
            entry.lapse.cancel()
            entry.lapse = None
        return entry

    def position(self, entry: QueuedRun) -> int:
        """1 for the next to run; 0 when it no longer waits."""
        return self.waiting.index(entry) + 1 if entry in self.waiting else 0

    def leave(self, entry: QueuedRun) -> None:
        """A waiting run gives up its place (cancelled or removed); if it had just been handed
        the session, the session goes on to the next."""
        if entry in self.waiting:
            self.waiting.remove(entry)
        elif self.holder == entry.run_id:
            self.release(entry.run_id)

    def remove(self, queue_id: str) -> bool:
        """`agent/unqueue`: take a waiting run out of the queue; its waiter gets `Unqueued`."""
        for entry in self.waiting:
            if entry.queue_id == queue_id and not entry.turn.done():
                self.waiting.remove(entry)
                entry.turn.set_exception(Unqueued())
                return True
        return False

    def release(self, run_id: str) -> None:
        """`run_id` ended: hand the session to the first run waiting."""
        if self.holder == run_id:
            self.holder = None
            self._hand_on()

    def _hand_on(self) -> None:
        while self.waiting and self.holder is None:
            entry = self.waiting.pop(0)
            if not entry.turn.done():
                self.holder = entry.run_id
                entry.turn.set_result(None)

    def _lapse(self, entry: QueuedRun) -> None:
        entry.lapse = None
        self.reserved.pop(entry.run_id, None)
        if not entry.turn.done():
            entry.turn.cancel()
        self.leave(entry)
        if not self.busy():
            self._on_idle()
