"""`session/update` notifications of one session, sent in order by a task of their own.

Engine events arrive synchronously; the SDK sends asynchronously. The stream queues updates
and one task sends them in order. While the client is behind, consecutive pieces of agent text
(or thought) merge into one chunk, so a client that reads slowly gets fewer, larger chunks
instead of a backlog. `drain` waits until everything queued went out: a prompt answers only then.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from acp import update_agent_message_text, update_agent_thought_text, update_user_message_text

_log = logging.getLogger("harness9.acp")


class UpdateSink(Protocol):
    """The part of the SDK's client connection the stream uses."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        """Send one `session/update`."""
        ...


@dataclass(slots=True)
class _Text:
    """Text waiting to go out as one chunk: `message`, `thought` or `user`."""

    kind: str
    text: str


_CHUNKS = {
    "message": update_agent_message_text,
    "thought": update_agent_thought_text,
    "user": update_user_message_text,
}


class UpdateStream:
    """The ordered `session/update`s of one session."""

    def __init__(self, sink: UpdateSink, session_id: str) -> None:
        self._sink = sink
        self._session_id = session_id
        self._queue: deque[_Text | Any] = deque()
        self._task: asyncio.Task[None] | None = None

    def text(self, kind: str, text: str) -> None:
        """Queue a piece of `message`, `thought` or `user` text (merged with a queued one)."""
        if not text:
            return
        last = self._queue[-1] if self._queue else None
        if isinstance(last, _Text) and last.kind == kind:
            last.text += text
        else:
            self._queue.append(_Text(kind, text))
        self._wake()

    def push(self, update: Any) -> None:
        """Queue an update model (a tool call, its update, …)."""
        self._queue.append(update)
        self._wake()

    async def drain(self) -> None:
        """Return once every queued update has been sent (or the connection failed)."""
        while self._task is not None:
            await asyncio.shield(self._task)

    def _wake(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._send_all())

    async def _send_all(self) -> None:
        try:
            while self._queue:
                item = self._queue.popleft()
                update = _CHUNKS[item.kind](item.text) if isinstance(item, _Text) else item
                await self._sink.session_update(session_id=self._session_id, update=update)
        except ConnectionError as exc:  # the client left: nobody is left to tell
            _log.debug("session/update for %s not sent: %s", self._session_id, exc)
            self._queue.clear()
        except Exception as exc:
            _log.warning("session/update for %s failed: %s", self._session_id, exc)
            self._queue.clear()
        finally:
            self._task = None
