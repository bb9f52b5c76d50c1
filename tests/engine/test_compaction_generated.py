"""Compaction on generated conversations: whatever the shape, a compacted history keeps the
system prompt and the latest prompt, the last two replies with their results, and pairs every
tool call with its result; it never grows."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness9.engine.compaction import KEEP_TURNS, compact, is_prompt, kept_from
from harness9.engine.context import ContextPolicy, messages_tokens
from harness9.provider.replay import ReplayProvider, ReplayScript
from harness9.schema import Message, Role, ToolCall

pytestmark = pytest.mark.timeout(60)


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    """A system prompt, then prompts each followed by replies, some with tool calls and
    their results (long or short), some thinking texts."""
    history = [Message.system("system prompt")]
    serial = 0
    for _ in range(draw(st.integers(1, 6))):
        history.append(Message.user("prompt " + "p" * draw(st.integers(0, 300))))
        for _ in range(draw(st.integers(0, 5))):
            if draw(st.booleans()):
                history.append(Message(role=Role.ASSISTANT, content="thinking " * 3))
            calls = []
            for _ in range(draw(st.integers(0, 3))):
                serial += 1
                calls.append(ToolCall(id=f"c{serial}", name="bash", arguments='{"command":"x"}'))
            history.append(Message(role=Role.ASSISTANT, content="reply", tool_calls=tuple(calls)))
            for call in calls:
                size = draw(st.sampled_from([10, 500, 5_000]))
                history.append(Message(role=Role.USER, content="o" * size,
                                       tool_call_id=call.id))
    return history


def _paired(history: list[Message]) -> bool:
    answered: list[str] = []
    for i, message in enumerate(history):
        if message.tool_call_id is not None:
            if message.tool_call_id not in answered:
                return False
            answered.remove(message.tool_call_id)
        else:
            if answered:
                return False  # a call left without its result before the next message
            answered = [c.id for c in message.tool_calls]
        del i
    return not answered


@given(conversations(), st.sampled_from([500, 2_000, 8_000]), st.booleans())
@settings(max_examples=300, deadline=None)
def test_compaction_keeps_what_must_stay(
    history: list[Message], window: int, force: bool
) -> None:
    policy = ContextPolicy(window=window)
    original = list(history)
    prompt, start = kept_from(original)
    assert original[start].tool_call_id is None
    must_stay = [original[0], original[prompt], *original[start:]]
    replies_after = [m for m in original[prompt + 1 :] if m.role is Role.ASSISTANT]
    provider = ReplayProvider(ReplayScript(turns=()))
    estimate = messages_tokens(history)
    done = asyncio.run(compact(history, provider, policy, estimate, force=force))
    assert _paired(history)
    assert history[0] is original[0]
    assert messages_tokens(history) <= estimate and done.after <= done.before
    kept_ids = {id(m) for m in history}
    for message in must_stay:  # kept verbatim (the same objects), tool results may be pruned
        if message.tool_call_id is None:
            assert id(message) in kept_ids
    if len(replies_after) >= KEEP_TURNS:
        tail_replies = [m for m in history if m.role is Role.ASSISTANT][-KEEP_TURNS:]
        assert tail_replies == replies_after[-KEEP_TURNS:]
    assert [m for m in history if is_prompt(m)][-1] is original[prompt]
