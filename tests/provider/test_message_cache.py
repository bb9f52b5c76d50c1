"""The providers' message cache: the same wire conversation as a fresh conversion, whatever
changed between calls, converting only what is new."""

from __future__ import annotations

import pytest

from harness9.provider import anthropic, openai
from harness9.provider.message_cache import MessageCache
from harness9.schema import Message, Role, ToolCall, shared_prefix

pytestmark = pytest.mark.timeout(10)


def _conversation(n: int) -> list[Message]:
    history = [Message.system("sys"), Message.user("go")]
    for k in range(n):
        call = ToolCall(id=f"c{k}", name="bash", arguments='{"command": "ls"}')
        history += [Message(role=Role.ASSISTANT, content=f"step {k}", tool_calls=(call,)),
                    Message(role=Role.USER, content=f"out {k}", tool_call_id=f"c{k}")]
    return history


def test_only_new_messages_are_converted_and_changes_are_seen() -> None:
    seen: list[Message] = []

    def convert(message: Message) -> str:
        seen.append(message)
        return message.content

    cache = MessageCache(convert)
    history = _conversation(3)
    assert cache(history) == [m.content for m in history]
    history.append(Message.user("more"))
    seen.clear()
    assert cache(history)[-1] == "more" and seen == [history[-1]]
    history[3] = Message(role=Role.USER, content="[pruned]", tool_call_id="c0")
    seen.clear()
    assert cache(history) == [m.content for m in history]
    assert seen == history[3:]  # from the first changed message on
    del history[2:]
    assert cache(history) == ["sys", "go"]


def test_cached_wire_forms_equal_fresh_ones() -> None:
    openai_cache = MessageCache(openai._to_message)
    anthropic_cache = MessageCache(anthropic._blocks)

    def same(history: list[Message]) -> None:
        assert openai.to_request("m", history, None, openai_cache) == openai.to_request(
            "m", history, None)
        assert anthropic.to_request("m", 100, history, None, None, anthropic_cache) == (
            anthropic.to_request("m", 100, history, None))

    history = _conversation(2)
    for step in range(4):
        same(history)
        # A conversation ending with assistant text (a prefill, trimmed on the wire): the
        # trimming must not leak into the cached blocks of the next call.
        history.append(Message(role=Role.ASSISTANT, content=f"answer {step} "))
        same(history)
        history.append(Message.user(f"next {step}"))
        if step == 2:
            history[1] = Message.user("changed")


def test_the_shared_prefix_of_two_versions_of_a_conversation() -> None:
    history = _conversation(3)
    longer = [*history, Message.user("more")]
    assert shared_prefix(longer, history) == len(history)  # the usual case: it grew
    assert shared_prefix(history, longer) == len(history)
    changed = list(longer)
    changed[3] = Message(role=Role.USER, content="[pruned]", tool_call_id="c0")
    assert shared_prefix(changed, history) == 3
    same_text = list(longer)
    same_text[3] = Message(role=history[3].role, content=history[3].content,
                           tool_call_id=history[3].tool_call_id)  # an equal copy
    assert shared_prefix(same_text, history) == len(history)
    assert shared_prefix(tuple(longer), history) == len(history)
    assert shared_prefix([], history) == shared_prefix(history, []) == 0
