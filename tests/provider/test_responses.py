"""What the adapters make of answers: text, parallel and fragmented tool calls, usage."""

from __future__ import annotations

import json
import time

from harness9.schema import Message, Usage
from tests.fakellm import Call, FakeLLM, Reply
from tests.provider.conftest import ask, make_provider

PROMPT = [Message.user("Fix the tests.")]


async def test_text_answer(fake_llm: FakeLLM, wire: str, stream: bool) -> None:
    fake_llm.script([Reply("All tests pass now.", chunk_chars=3)])
    answer = await ask(make_provider(fake_llm, wire), PROMPT, stream=stream)
    assert answer.message.content == "All tests pass now."
    assert answer.message.tool_calls == ()
    if stream:
        assert answer.deltas == ["All", " te", "sts", " pa", "ss ", "now", "."]


async def test_parallel_tool_calls_split_across_chunks(
    fake_llm: FakeLLM, wire: str, stream: bool
) -> None:
    content = "line one\nline two with \"quotes\" and ünïcode\n" * 3
    calls = [Call("read_file", {"path": "calc.py"}, id="id_a"),
             Call("write_file", {"path": "out.txt", "content": content}, id="id_b"),
             Call("bash", {"command": "pytest -q && echo ok"}, id="id_c")]
    fake_llm.script([Reply("Three things at once.", calls, arg_chunk_chars=3)])
    answer = await ask(make_provider(fake_llm, wire), PROMPT, stream=stream)
    got = answer.message.tool_calls
    assert [(c.id, c.name) for c in got] == [("id_a", "read_file"), ("id_b", "write_file"),
                                             ("id_c", "bash")]
    assert [json.loads(c.arguments) for c in got] == [c.arguments for c in calls]
    assert answer.message.content == "Three things at once."


async def test_openai_stream_interleaves_parallel_fragments(fake_llm: FakeLLM) -> None:
    """The fake really interleaves (so the test above exercises the index-keyed assembly)."""
    fake_llm.script([Reply(tool_calls=[Call("a", {"x": "1234567890"}),
                                       Call("b", {"y": "abcdefghij"})], arg_chunk_chars=2)])
    answer = await ask(make_provider(fake_llm, "openai"), PROMPT, stream=True)
    assert [json.loads(c.arguments) for c in answer.message.tool_calls] == [
        {"x": "1234567890"}, {"y": "abcdefghij"}]
    assert [c.id for c in answer.message.tool_calls] == ["call_1_0", "call_1_1"]


async def test_broken_argument_json_reaches_the_caller(
    fake_llm: FakeLLM, wire: str, stream: bool
) -> None:
    broken = '{"command": "pytest -q'
    fake_llm.script([Reply(tool_calls=[Call("bash", broken, id="t1"),
                                       Call("read_file", {"path": "a.py"}, id="t2")])])
    answer = await ask(make_provider(fake_llm, wire), PROMPT, stream=stream)
    first, second = answer.message.tool_calls
    assert (first.id, first.name, first.arguments) == ("t1", "bash", broken)
    assert json.loads(second.arguments) == {"path": "a.py"}


async def test_tool_call_without_arguments(fake_llm: FakeLLM, wire: str, stream: bool) -> None:
    fake_llm.script([Reply(tool_calls=[Call("list", {}, id="t1")])])
    answer = await ask(make_provider(fake_llm, wire), PROMPT, stream=stream)
    assert json.loads(answer.message.tool_calls[0].arguments) == {}


async def test_usage_reported(fake_llm: FakeLLM, wire: str, stream: bool) -> None:
    fake_llm.script([Reply("ok", usage=(321, 45)),
                     Reply(tool_calls=[Call("bash", {"command": "ls"})], usage=(400, 12))])
    provider = make_provider(fake_llm, wire)
    assert (await ask(provider, PROMPT, stream=stream)).usage == Usage(321, 45)
    assert (await ask(provider, PROMPT, stream=stream)).usage == Usage(400, 12)


async def test_text_deltas_arrive_before_the_stream_ends(fake_llm: FakeLLM, wire: str) -> None:
    fake_llm.script([Reply("abcdefghij", chunk_chars=2, chunk_delay=0.05)])
    provider = make_provider(fake_llm, wire)
    stream = provider.generate_stream(PROMPT, None)
    first = await anext(stream)
    first_at = time.monotonic()
    assert first.text == "ab"
    rest = [chunk async for chunk in stream]
    # The service spends ≥ 0.2 s sending the other pieces: the first one was not held back.
    assert time.monotonic() - first_at >= 0.15
    assert rest[-1].message is not None
    assert rest[-1].message.content == "abcdefghij"
