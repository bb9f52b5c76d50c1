"""How long a model call may wait: to connect, for the model's first byte, between stream chunks.

The HTTP library's read timeout cannot enforce the last two: it restarts on every byte, so a
service that trickles keep-alives (SSE comments, Anthropic `ping` events) or a few bytes of a
never-finished event keeps a call alive for ever. They are measured here instead, on what the
SDK parses out of the response, as deadlines on our own awaits:

- first byte: from the start of the call (the SDK's retries of quick failures included) to the
  first event of a stream, or to the whole answer of a call that does not stream (such a service
  sends nothing before it has the whole answer). Running out is not retried: a service that has
  not answered within the limit is not asked again, so a hung one holds a run for one limit.
- stream idle: from one event that is not a keep-alive to the next.
- connect: left to the HTTP library (the SDK retries a connection that times out, within the
  first-byte limit).

Running out of any of them is a `NetworkError` whose message names the limit and its setting.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from harness9.provider.provider_errors import NetworkError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RequestLimits:
    """The limits of one model call, in seconds."""

    connect: float = 10.0
    first_byte: float = 120.0
    stream_idle: float = 60.0

    def http_timeout(self, sdk: Any) -> Any:
        """The SDK's `Timeout` (httpx's): connect as set; the others only as a backstop, since the
        deadlines of `Pacer` are the ones that fire (they start earlier and ignore keep-alives)."""
        backstop = max(self.first_byte, self.stream_idle)
        return sdk.Timeout(backstop, connect=self.connect)


DEFAULT_LIMITS = RequestLimits()


def seconds(value: float) -> str:
    """`120 s`, `0.5 s`: a limit as people read it."""
    return f"{value:g} s"


def connect_message(provider: str, limits: RequestLimits) -> str:
    """The message of a connection attempt that timed out."""
    return f"{provider}: could not connect within {seconds(limits.connect)} (connectTimeoutMs)"


class Pacer:
    """The deadlines of one model call, started when the pacer is made (the call's start).

    Used as a context manager around the call. Moving the deadline on every event is a float
    store: one timer per call, re-armed only when it fires early, keeps a stream of thousands of
    events free of timer churn.
    """

    def __init__(self, limits: RequestLimits, provider: str) -> None:
        self._limits = limits
        self._provider = provider
        self._loop = asyncio.get_running_loop()
        self._deadline = self._loop.time() + limits.first_byte
        self._timer: asyncio.TimerHandle | None = None
        self._waiter: asyncio.Task[Any] | None = None
        self._fired = False
        self._answered = False

    def __enter__(self) -> Pacer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def first(self, awaitable: Awaitable[T]) -> T:
        """Await the SDK's request (its headers, or a whole answer) within the first-byte limit."""
        return await self._within(awaitable)

    async def events(
        self, stream: AsyncIterable[T], keepalive: Callable[[T], bool] = lambda _: False
    ) -> AsyncIterator[T]:
        """The events of `stream`: the first within the first-byte limit, each next within the
        idle limit of the last one that is not a `keepalive`."""
        iterator = aiter(stream)
        while True:
            try:
                event = await self._within(anext(iterator))
            except StopAsyncIteration:
                return
            if not keepalive(event):
                self._answered = True
                self._move_deadline(self._loop.time() + self._limits.stream_idle)
            yield event

    def _move_deadline(self, deadline: float) -> None:
        self._deadline = deadline
        # A later deadline waits for the timer to fire; an earlier one (an idle limit shorter
        # than the first-byte limit) needs a new timer.
        if self._timer is not None and deadline < self._timer.when():
            self._timer.cancel()
            self._timer = None

    async def _within(self, awaitable: Awaitable[T]) -> T:
        # The deadline cuts short only this await: never the consumer's work between two events.
        task = asyncio.current_task()
        assert task is not None
        self._waiter = task
        if self._timer is None:
            self._timer = self._loop.call_at(self._deadline, self._expire)
        try:
            return await awaitable
        except asyncio.CancelledError:
            # Ours only when no other cancellation (a cancelled run) is pending as well.
            if self._fired and task.uncancel() == 0:
                raise NetworkError(self._message()) from None
            raise
        finally:
            self._waiter = None

    def _expire(self) -> None:
        self._timer = None
        if self._loop.time() < self._deadline:  # the deadline moved on since the timer was set
            self._timer = self._loop.call_at(self._deadline, self._expire)
        elif self._waiter is not None and not self._fired:
            self._fired = True
            self._waiter.cancel()
        # Else the deadline passed between two awaits: the next one sets a timer due at once.

    def _message(self) -> str:
        if self._answered:
            idle = seconds(self._limits.stream_idle)
            return f"{self._provider}: the model sent nothing for {idle} (streamIdleTimeoutMs)"
        first = seconds(self._limits.first_byte)
        return f"{self._provider}: no first byte from the model within {first} (firstByteTimeoutMs)"
