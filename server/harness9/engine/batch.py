"""The engine's hook around each turn's tool batch (the service takes checkpoints there).

The engine knows nothing of what an observer does: it awaits `before_batch` just before a
turn's tool calls start and `after_batch` once their results are in the history. An observer
must not raise for its own failures (it reports them as events); whatever it raises fails the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from harness9.schema import ToolCall, ToolKind


class BatchObserver(Protocol):
    """Hears each tool batch of a run, with the history length at that point."""

    async def before_batch(
        self, turn: int, calls: Sequence[ToolCall], kinds: Sequence[ToolKind], history_len: int
    ) -> None:
        """The turn's `calls` are about to start; `kinds` holds the kind of each call's tool, in
        call order; `history_len` is the history's length before the turn's model call (its
        thinking and assistant messages come after)."""
        ...

    async def after_batch(
        self, turn: int, calls: Sequence[ToolCall], kinds: Sequence[ToolKind], history_len: int
    ) -> None:
        """The batch ended and its results were appended; `kinds` holds the kind of each
        call's tool, in call order; `history_len` includes the results."""
        ...
