"""Tool-call ids unique within a session, for everything but the model.

Models behind some local servers number their calls afresh in every answer (`call_0` each turn)
or repeat an id inside one answer; editors and ACP clients key a call's row, its approval and
its updates by id, so a repeat would merge two calls into one. Each call keeps the model's `id`
for the model's own history and gets a `wire_id` (`call_0~2`, `call_0~3`, …) when its id was
taken already in the session.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from harness9.schema import Message, ToolCall


class CallIds:
    """The ids taken in one session so far; `assign` gives the next calls theirs."""

    def __init__(self, history: Iterable[Message] = (), prefix: str = "") -> None:
        self._taken = {call.unique_id for message in history for call in message.tool_calls}
        self._prefix = prefix  # before every new id (a child run's: unique in its parent's)

    def assign(self, message: Message) -> Message:
        """`message` with each tool call's id unique in the session (a call that has one
        keeps it); the same message when no call needed a new one, since what stores and
        converts a history knows a message it saw before by its identity."""
        if not message.tool_calls:
            return message
        calls = tuple(self._unique(call) for call in message.tool_calls)
        if all(new is old for new, old in zip(calls, message.tool_calls, strict=True)):
            return message
        return replace(message, tool_calls=calls)

    def _unique(self, call: ToolCall) -> ToolCall:
        if call.wire_id is None:
            base = f"{self._prefix}{call.id}"
            unique, n = base, 1
            while unique in self._taken:
                n += 1
                unique = f"{base}~{n}"
            call = call if unique == call.id else replace(call, wire_id=unique)
        self._taken.add(call.unique_id)
        return call


def with_unique_ids(history: list[Message]) -> None:
    """Give the calls of a stored history their unique ids in place (a history stored before
    they were kept, or written by hand)."""
    ids = CallIds()
    history[:] = [ids.assign(message) for message in history]
