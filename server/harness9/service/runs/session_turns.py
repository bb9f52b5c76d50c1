"""Runs taking turns on their sessions: the queue of each session, and steering the runs.

`SessionTurns` admits a run to its session (at once, or after the runs queued before it),
holds each run's `Steering` while it exists, and turns the steers a run never delivered into
reserved slots at the front of its session's queue, for the front-end that steered to start.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness9.engine.events import Dequeued, EventBus, Queued
from harness9.engine.steering import DELIVERED, LEFT_OVER, Steer, Steering
from harness9.service.attachments import ContextItem, prompt_with_context
from harness9.service.run_request import RunIds, SteerOutcome
from harness9.service.runs.session_queue import QueuedRun, SessionQueue, Unqueued
from harness9.service.service_errors import RunCancelled, UnknownRun
from harness9.service.sessions.session import new_id
from harness9.workspace.port import Workspace

_RECENT = 64  # finished runs a late steer can still name


@dataclass(slots=True)
class _Live:
    """A run that can be steered, what a steer's context is read through, and the approval
    mode the run runs in (its left-over steers run in it too)."""

    steering: Steering
    session_id: str
    root: str
    workspace: Workspace | None = None
    mode: str | None = None


class SessionTurns:
    """The sessions' queues and the runs' steering, for one daemon."""

    def __init__(self, on_idle: Callable[[str], None] = lambda _: None) -> None:
        """`on_idle(session_id)`: a reserved slot lapsed and left the session free."""
        self._on_idle = on_idle
        self._queues: dict[str, SessionQueue] = {}
        self._live: dict[str, _Live] = {}
        # Ended runs a late steer may still name, by run id.
        self._recent: OrderedDict[str, _Live] = OrderedDict()

    def busy(self, session_id: str) -> bool:
        """Whether a run holds the session or waits for it."""
        queue = self._queues.get(session_id)
        return queue is not None and queue.busy()

    def holder(self, session_id: str) -> str | None:
        """The run that holds the session (None: it is free)."""
        queue = self._queues.get(session_id)
        return queue.holder if queue is not None else None

    # Admission

    def enter(self, ids: RunIds, prompt: str, root: str, claim: bool) -> QueuedRun | None:
        """Take the session for the run now (None) or queue it (the entry to `wait` for); a
        `claim` takes the slot reserved for it, when it has not lapsed. The run can be
        steered from here on."""
        queue = self._queue(ids.session_id)
        entry = queue.claim(ids.run_id) if claim else None
        if entry is None:
            entry = queue.enter(ids.run_id, prompt)
        if entry is not None:  # cancellable by its run id from now on
            entry.task = asyncio.current_task()
        self._live[ids.run_id] = _Live(Steering(), ids.session_id, root)
        return entry

    async def wait(self, ids: RunIds, entry: QueuedRun, bus: EventBus) -> None:
        """Wait for the entry's turn, telling `bus` (`queued`, then `dequeued`); raises
        `RunCancelled` (with its reason) when it was removed or cancelled."""
        queue = self._queues[ids.session_id]
        bus.emit(Queued(entry.queue_id, max(queue.position(entry), 1)))
        try:
            await entry.turn
        except Unqueued:
            bus.emit(Dequeued(entry.queue_id, "removed"))
            raise RunCancelled(ids.run_id, ids.session_id, "removed") from None
        except asyncio.CancelledError:
            queue.leave(entry)
            bus.emit(Dequeued(entry.queue_id, "cancelled"))
            raise RunCancelled(ids.run_id, ids.session_id, "cancelled") from None
        bus.emit(Dequeued(entry.queue_id, "started"))

    def started(self, run_id: str, workspace: Workspace | None, mode: str) -> None:
        """The run reads its steers' context through `workspace` (None: the disk) and runs in
        approval mode `mode`."""
        live = self._live.get(run_id)
        if live is not None:
            live.workspace, live.mode = workspace, mode

    def steering(self, run_id: str) -> Steering:
        """The run's steering (it exists from `enter` to `leave`)."""
        return self._live[run_id].steering

    def leave(self, ids: RunIds, entry: QueuedRun | None, holding: bool) -> None:
        """The run ended (`holding`: it had the session; else it may still wait as `entry`):
        the steers it never delivered get the front of the queue, then the session goes on
        to the next run."""
        live = self._live.pop(ids.run_id, None)
        if live is not None:
            self._recent[ids.run_id] = live
        while len(self._recent) > _RECENT:
            self._recent.popitem(last=False)
        queue = self._queues[ids.session_id]
        if live is not None:
            # Reserved in reverse at the front: the first steer runs first.
            for steer in reversed(live.steering.close()):
                self._left_over(queue, steer, live.mode)
        if holding:
            queue.release(ids.run_id)
        elif entry is not None:
            queue.leave(entry)
        if not queue.busy() and not queue.reserved:
            self._queues.pop(ids.session_id, None)

    # Steering and the queue

    async def steer(
        self, run_id: str, prompt: str, context: Sequence[ContextItem] = ()
    ) -> SteerOutcome:
        """Give a message to a running run; answered once it is delivered (`run`) or the run
        ended first (`next`). `UnknownRun` for a run that neither runs nor just ended."""
        live = self._live.get(run_id)
        if live is None:
            if run_id not in self._recent:
                raise UnknownRun(run_id)
            return self._next(self._recent[run_id], prompt)
        message = await prompt_with_context(prompt, live.root, context, live.workspace)
        steer = live.steering.put(message, prompt)
        if steer is None:  # the run ended while the context was read
            return self._next(live, prompt)
        # Shielded: a steer whose request is cancelled is still delivered.
        await asyncio.shield(steer.fate)
        if steer.fate.result() == DELIVERED:
            return SteerOutcome(DELIVERED, run_id, live.session_id)
        return SteerOutcome(LEFT_OVER, steer.next_run or "", live.session_id)

    def place_of(self, run_id: str) -> tuple[str, str]:
        """The session and workspace root of a run that runs, waits or just ended;
        `UnknownRun`."""
        live = self._live.get(run_id) or self._recent.get(run_id)
        if live is None:
            raise UnknownRun(run_id)
        return live.session_id, live.root

    def queued(self, session_id: str) -> list[tuple[int, QueuedRun]]:
        """The session's waiting runs with their positions (1 runs next)."""
        queue = self._queues.get(session_id)
        if queue is None:
            return []
        return [(index + 1, entry) for index, entry in enumerate(queue.waiting)]

    def unqueue(self, session_id: str, queue_id: str) -> bool:
        """Remove a waiting run from its session's queue; False when none waits with that id."""
        queue = self._queues.get(session_id)
        return queue is not None and queue.remove(queue_id)

    def waiting_task(self, run_id: str) -> asyncio.Task[object] | None:
        """The task of a queued run waiting for its turn (to cancel it)."""
        for queue in self._queues.values():
            for entry in queue.waiting:
                if entry.run_id == run_id and entry.task is not None:
                    return entry.task
        return None

    def _next(self, run: _Live, prompt: str) -> SteerOutcome:
        """A steer too late for its run: the session's next prompt, reserved at the front, in
        the run's mode."""
        queue = self._queue(run.session_id)
        entry = queue.reserve(new_id("r"), prompt, run.mode)
        return SteerOutcome(LEFT_OVER, entry.run_id, run.session_id)

    def _queue(self, session_id: str) -> SessionQueue:
        """The session's queue (made when it has none)."""
        queue = self._queues.get(session_id)
        if queue is None:
            queue = self._queues[session_id] = SessionQueue(lambda: self._on_idle(session_id))
        return queue

    def _left_over(self, queue: SessionQueue, steer: Steer, mode: str | None) -> None:
        entry = queue.reserve(new_id("r"), steer.shown, mode)
        steer.next_run = entry.run_id
        if not steer.fate.done():
            steer.fate.set_result(LEFT_OVER)
