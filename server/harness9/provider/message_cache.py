"""Converting a conversation to a wire format, one message at a time, once.

A run's conversation only grows between model calls (compaction and restores rewrite it, and
then the messages that changed are new objects), so a provider keeps the conversions of the
previous call and converts only the messages that are new: a turn costs its new messages, not
the whole history.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from harness9.schema import Message, shared_prefix

T = TypeVar("T")


class MessageCache(Generic[T]):
    """`convert` applied to each message of a conversation, reusing the results of the
    messages it shares with the previous conversation given."""

    def __init__(self, convert: Callable[[Message], T]) -> None:
        self._convert = convert
        self._messages: list[Message] = []
        self._converted: list[T] = []

    def __call__(self, messages: Sequence[Message]) -> list[T]:
        common = shared_prefix(messages, self._messages)
        converted = self._converted[:common] + [self._convert(m) for m in messages[common:]]
        self._messages, self._converted = list(messages), converted
        return list(converted)
