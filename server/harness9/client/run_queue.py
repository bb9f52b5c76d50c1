"""The session's queued prompts as the terminal client knows them, from `queued` and `dequeued`
progress (and `agent/queue` where a prompt's text is not known yet). Data only: the
conversation's screen draws them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class QueuedPrompt:
    """One prompt waiting behind the running run."""

    queue_id: str
    run_id: str
    prompt: str | None
    position: int


class RunQueue:
    """The waiting prompts, in the order they will run."""

    def __init__(self) -> None:
        self._entries: dict[str, QueuedPrompt] = {}

    def __bool__(self) -> bool:
        return bool(self._entries)

    def add(self, entry: QueuedPrompt) -> None:
        """A `queued` notification: the prompt waits at `position`."""
        self._entries[entry.queue_id] = entry

    def remove(self, queue_id: str) -> QueuedPrompt | None:
        """A `dequeued` notification: the entry is gone (started, removed or cancelled)."""
        return self._entries.pop(queue_id, None)

    def name(self, run_id: str, prompt: str) -> None:
        """The text of the queued run `run_id`, once known."""
        for entry in self._entries.values():
            if entry.run_id == run_id:
                entry.prompt = prompt

    def update(self, listed: list[Any]) -> None:
        """`agent/queue`'s list: the prompts' texts and positions now."""
        for item in listed:
            if not isinstance(item, dict):
                continue
            entry = self._entries.get(str(item.get("queueId")))
            if entry is not None:
                entry.prompt = str(item.get("prompt", entry.prompt or ""))
                entry.position = int(item.get("position", entry.position))

    def newest(self) -> QueuedPrompt | None:
        """The entry that would run last."""
        return max(self._entries.values(), key=lambda e: e.position, default=None)

    def ordered(self) -> list[QueuedPrompt]:
        """The entries, next to run first."""
        return sorted(self._entries.values(), key=lambda e: e.position)
