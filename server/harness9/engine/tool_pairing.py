"""Every tool call in a history answered by its result, and no result without its call.

Both APIs refuse a conversation in which an assistant's tool call has no result right after it
(or a result answers no call), so a session that broke the rule once would be dead for good. The
engine keeps the rule as it runs; this repairs a history where something stopped it half way (a
cancel landing between the assistant message and its results, a stored session written by an
older daemon or cut by hand): a missing result becomes the `cancelled` one, a stray one goes.
"""

from __future__ import annotations

import logging

from harness9.schema import Message, Role, ToolCall
from harness9.tools.registry import cancelled_result

_log = logging.getLogger("harness9.engine")


def pair_tool_calls(history: list[Message]) -> int:
    """Repair `history` in place; returns the number of results added or dropped (0: it held)."""
    if _paired(history):
        return 0
    repaired: list[Message] = []
    changes = 0
    i = 0
    while i < len(history):
        message = history[i]
        i += 1
        if message.tool_call_id is not None:  # a result no assistant message asked for
            changes += 1
            continue
        repaired.append(message)
        if message.role is Role.ASSISTANT and message.tool_calls:
            end = i
            while end < len(history) and history[end].tool_call_id is not None:
                end += 1
            answers, fixed = _answers(message.tool_calls, history[i:end])
            repaired.extend(answers)
            changes += fixed
            i = end
    if changes:
        history[:] = repaired
        _log.warning("repaired the history: %d tool result(s) added or dropped", changes)
    return changes


def _paired(history: list[Message]) -> bool:
    """Whether every tool call is answered right after its message, in call order, and every
    result answers one: the rule as the engine keeps it, checked without building anything
    (a run checks its history at its start and its end, and a session's can be long)."""
    expected: list[str] = []  # the ids the next results must answer, last first
    for message in history:
        if message.tool_call_id is not None:
            if not expected or expected.pop() != message.tool_call_id:
                return False
        elif expected:
            return False
        elif message.tool_calls and message.role is Role.ASSISTANT:
            expected = [call.id for call in reversed(message.tool_calls)]
    return not expected


def _answers(calls: tuple[ToolCall, ...], results: list[Message]) -> tuple[list[Message], int]:
    """The results of `calls` in call order (a missing one: cancelled), and how many results
    were added or dropped (1 when they were only out of order). A model that repeats an id in
    one answer gets its results matched in order."""
    unused = list(results)
    answers = []
    for call in calls:
        found = next((m for m in unused if m.tool_call_id == call.id), None)
        if found is None:
            answers.append(Message.observation(cancelled_result(call)))
        else:
            unused.remove(found)
            answers.append(found)
    added = len(calls) - (len(results) - len(unused))
    if added or unused:
        return answers, added + len(unused)
    return answers, 0 if [id(m) for m in answers] == [id(m) for m in results] else 1
