"""Request bodies encoded by the providers: the same JSON as the request, call after call,
with the messages shared with the previous body taken from it rather than encoded again."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from harness9.provider import anthropic, openai
from harness9.provider.json_body import BodyEncoder
from harness9.provider.message_cache import MessageCache
from harness9.schema import Message, Role, ToolCall
from tests.fakellm import FakeLLM, Reply
from tests.provider.conftest import TOOLS, ask, make_provider

pytestmark = pytest.mark.timeout(10)

Request = Callable[[list[Message]], dict[str, Any]]


def _requests() -> dict[str, Request]:
    """Each wire's request for a conversation, converted through its message cache."""
    openai_cache = MessageCache(openai._to_message)
    anthropic_cache = MessageCache(anthropic._blocks)
    return {
        "openai": lambda h: openai.to_request("m", h, TOOLS, openai_cache),
        "anthropic": lambda h: anthropic.to_request("m", 100, h, TOOLS, None, anthropic_cache),
    }


def _turn(k: int) -> list[Message]:
    call = ToolCall(id=f"c{k}", name="read_file", arguments='{"path": "a.py"}')
    return [Message(role=Role.ASSISTANT, content=f"step {k}", tool_calls=(call,)),
            Message(role=Role.USER, content=f"out {k} é", tool_call_id=f"c{k}")]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_every_body_is_its_request_as_the_conversation_grows_and_changes(wire: str) -> None:
    request = _requests()[wire]
    encode = BodyEncoder()
    history = [Message.system("sys"), Message.user("go, café")]

    def same() -> None:
        wanted = request(history)
        body = encode(wanted)
        assert json.loads(body) == wanted
        assert body.decode().isascii() is False  # sent as UTF-8, not escaped

    for k in range(4):
        same()
        history += _turn(k)
        same()  # a call that only adds: the earlier messages come from the previous body
    history[3] = Message(role=Role.USER, content="[pruned]", tool_call_id="c0")
    same()
    history[0] = Message.system("another system prompt")
    same()
    del history[4:]
    same()
    history.append(Message(role=Role.ASSISTANT, content="the end "))  # a trimmed prefill
    same()


def test_a_message_shared_with_the_previous_body_is_not_encoded_again() -> None:
    # Providers never change a converted message in place; doing it here shows which parts of
    # the second body were copied from the first.
    encode = BodyEncoder()
    first = {"role": "user", "content": "first"}
    blocks = [{"type": "text", "text": "second"}]
    request: dict[str, Any] = {"model": "m", "messages": [
        first, {"role": "assistant", "content": blocks}]}
    encode(request)
    first["content"] = "changed in place"
    blocks[0] = {"type": "text", "text": "a new block"}  # a new object: encoded
    again = {"model": "m", "messages": [first, {"role": "assistant", "content": list(blocks)}]}
    body = json.loads(encode(again))
    assert body["messages"] == [{"role": "user", "content": "first"},
                                {"role": "assistant", "content": blocks}]


def test_the_head_is_encoded_again_when_it_changes() -> None:
    encode = BodyEncoder()
    messages = [{"role": "user", "content": "go"}]
    assert json.loads(encode({"model": "a", "messages": messages}))["model"] == "a"
    body = json.loads(encode({"model": "b", "tools": [{"name": "t"}], "messages": messages}))
    assert body == {"model": "b", "tools": [{"name": "t"}], "messages": messages}
    assert json.loads(encode({"messages": messages})) == {"messages": messages}
    assert json.loads(encode({"model": "c"})) == {"model": "c"}


def test_an_unpaired_surrogate_is_sent_escaped() -> None:
    text = "bytes \udc80 of a file"
    body = BodyEncoder()({"messages": [{"role": "user", "content": text}]})
    assert json.loads(body)["messages"][0]["content"] == text


async def test_a_prompt_with_an_unpaired_surrogate_reaches_the_service(
    fake_llm: FakeLLM, wire: str, stream: bool
) -> None:
    fake_llm.script([Reply("ok")])
    prompt = "what is \udcff here?"
    answer = await ask(make_provider(fake_llm, wire), [Message.user(prompt)], stream=stream)
    assert answer.message.content == "ok"
    sent = fake_llm.requests[0].body["messages"][0]["content"]
    assert (sent if wire == "openai" else sent[0]["text"]) == prompt
