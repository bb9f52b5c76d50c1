"""What the adapters send: the seed's conversion tables, checked on the recorded wire requests."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness9.schema import Message, Role, ToolCall
from tests.fakellm import FakeLLM, Reply
from tests.provider.conftest import TOOLS, ask, make_provider

HISTORY = [
    Message.system("You are a careful engineer."),
    Message.user("Fix the tests."),
    Message(
        role=Role.ASSISTANT,
        content="Looking.",
        tool_calls=(
            ToolCall("c1", "read_file", '{"path": "calc.py"}'),
            ToolCall("c2", "bash", '{"command": "pytest -q'),  # broken JSON, as the model sent it
        ),
    ),
    Message(role=Role.USER, content="def add(a, b): ...", tool_call_id="c1"),
    Message(role=Role.USER, content="Error: invalid JSON", tool_call_id="c2", is_error=True),
]


async def test_openai_roles_and_tools(fake_llm: FakeLLM, stream: bool) -> None:
    fake_llm.script([Reply("ok")])
    await ask(make_provider(fake_llm, "openai"), HISTORY, stream=stream)
    body = fake_llm.requests[0].body
    assert body["model"] == "fake-model"
    assert body["messages"] == [
        {"role": "system", "content": "You are a careful engineer."},
        {"role": "user", "content": "Fix the tests."},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "read_file", "arguments": '{"path": "calc.py"}'}},
                {"id": "c2", "type": "function",
                 "function": {"name": "bash", "arguments": '{"command": "pytest -q'}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "def add(a, b): ..."},
        {"role": "tool", "tool_call_id": "c2", "content": "Error: invalid JSON"},
    ]
    assert body["tools"][0] == {
        "type": "function",
        "function": {"name": "read_file", "description": TOOLS[0].description,
                     "parameters": TOOLS[0].input_schema},
    }


async def test_openai_stream_asks_for_usage(fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("ok")])
    await ask(make_provider(fake_llm, "openai"), HISTORY[:2], stream=True)
    body = fake_llm.requests[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


async def test_openai_assistant_without_text_sends_null_content(fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("ok")])
    history = [Message.user("go"),
               Message(role=Role.ASSISTANT, tool_calls=(ToolCall("c1", "bash", "{}"),)),
               Message(role=Role.USER, content="", tool_call_id="c1")]
    await ask(make_provider(fake_llm, "openai"), history, stream=False)
    assert fake_llm.requests[0].body["messages"][1]["content"] is None


async def test_tools_none_sends_no_tools_and_empty_list_sends_empty(
    fake_llm: FakeLLM, wire: str, stream: bool
) -> None:
    fake_llm.script([Reply("thinking"), Reply("acting")])
    provider = make_provider(fake_llm, wire)
    await ask(provider, HISTORY[:2], None, stream=stream)
    await ask(provider, HISTORY[:2], [], stream=stream)
    first, second = fake_llm.requests
    assert "tools" not in first.body
    assert "tool_choice" not in first.body
    assert second.body["tools"] == []


async def test_anthropic_system_blocks_and_tool_results(fake_llm: FakeLLM, stream: bool) -> None:
    fake_llm.script([Reply("ok")])
    await ask(make_provider(fake_llm, "anthropic", max_tokens=1234), HISTORY, stream=stream)
    body = fake_llm.requests[0].uncached.body
    assert body["system"] == "You are a careful engineer."
    assert body["max_tokens"] == 1234
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Fix the tests."}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "calc.py"}},
                {"type": "tool_use", "id": "c2", "name": "bash", "input": {}},
            ],
        },
        {
            "role": "user",  # both results of the turn in ONE message, as the API requires
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "def add(a, b): ...",
                 "is_error": False},
                {"type": "tool_result", "tool_use_id": "c2", "content": "Error: invalid JSON",
                 "is_error": True},
            ],
        },
    ]


async def test_anthropic_tool_schema(fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("ok")])
    await ask(make_provider(fake_llm, "anthropic"), HISTORY[:2], stream=False)
    assert fake_llm.requests[0].body["tools"][0] == {
        "name": "read_file",
        "description": "Read a file of the workspace.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "relative path"}},
            "required": ["path"],
        },
    }


async def test_anthropic_default_max_tokens_always_sent(fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("ok")])
    await ask(make_provider(fake_llm, "anthropic"), HISTORY[:2], None, stream=False)
    assert fake_llm.requests[0].body["max_tokens"] == 8192
    assert "system" in fake_llm.requests[0].body


async def test_anthropic_thinking_over_tool_history_sends_tools_with_choice_none(
    fake_llm: FakeLLM, stream: bool
) -> None:
    fake_llm.script([Reply("acting"), Reply("thinking")])
    provider = make_provider(fake_llm, "anthropic")
    await ask(provider, HISTORY[:2], TOOLS, stream=stream)  # the run's first action call
    await ask(provider, HISTORY, None, stream=stream)  # a later thinking call
    thinking = fake_llm.requests[1].body
    assert [t["name"] for t in thinking["tools"]] == ["read_file", "bash"]
    assert thinking["tool_choice"] == {"type": "none"}


async def test_anthropic_thinking_without_tool_history_sends_no_tools(fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("acting"), Reply("thinking")])
    provider = make_provider(fake_llm, "anthropic")
    await ask(provider, HISTORY[:2], TOOLS, stream=False)
    await ask(provider, [*HISTORY[:2], Message(role=Role.ASSISTANT, content="Hi.")], None,
              stream=False)
    assert "tools" not in fake_llm.requests[1].body


async def test_anthropic_merges_same_role_and_drops_empty_messages(fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("ok")])
    history = [Message.user("one"), Message(role=Role.ASSISTANT, content=""),
               Message.user("two")]
    await ask(make_provider(fake_llm, "anthropic"), history, None, stream=False)
    assert fake_llm.requests[0].uncached.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "one"},
                                     {"type": "text", "text": "two"}]},
    ]


@pytest.mark.parametrize("arguments", ["[1, 2]", "", "not json", '"text"'])
async def test_anthropic_input_is_always_an_object(fake_llm: FakeLLM, arguments: str) -> None:
    fake_llm.script([Reply("ok")])
    history = [Message.user("go"),
               Message(role=Role.ASSISTANT, tool_calls=(ToolCall("c1", "bash", arguments),)),
               Message(role=Role.USER, content="Error", tool_call_id="c1", is_error=True)]
    await ask(make_provider(fake_llm, "anthropic"), history, stream=False)
    assert fake_llm.requests[0].body["messages"][1]["content"][0]["input"] == {}


async def test_api_keys_reach_the_service(fake_llm: FakeLLM, wire: str) -> None:
    fake_llm.script([Reply("ok")])
    await ask(make_provider(fake_llm, wire), HISTORY[:2], stream=False)
    headers = fake_llm.requests[0].headers
    key = fake_llm.env()["OPENAI_API_KEY" if wire == "openai" else "ANTHROPIC_API_KEY"]
    bearer = headers.get("authorization", "").removeprefix("Bearer ")
    assert key in (headers.get("x-api-key"), bearer)


async def test_anthropic_trailing_assistant_text_is_trimmed(fake_llm: FakeLLM) -> None:
    """A thinking answer left last in the history is a prefill, which must not end in spaces."""
    fake_llm.script([Reply("ok"), Reply("ok")])
    provider = make_provider(fake_llm, "anthropic")
    await ask(provider, [Message.user("go"), Message(role=Role.ASSISTANT, content="Plan:\n")],
              TOOLS, stream=False)
    await ask(provider, [Message.user("go"), Message(role=Role.ASSISTANT, content=" \n")],
              TOOLS, stream=False)
    trimmed, dropped = (r.uncached.body["messages"] for r in fake_llm.requests)
    assert trimmed[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Plan:"}]}
    assert dropped == [{"role": "user", "content": [{"type": "text", "text": "go"}]}]


def cache_marks(body: dict[str, Any]) -> list[str]:
    """Where an Anthropic request asks for its prefix to be cached."""
    marks = [f"tool {t['name']}" for t in body.get("tools", []) if "cache_control" in t]
    system = body.get("system")
    if isinstance(system, list):
        marks += ["system" for block in system if "cache_control" in block]
    for index, message in enumerate(body["messages"]):
        marks += [f"message {index} block {b}" for b, block in enumerate(message["content"])
                  if "cache_control" in block]
    return marks


async def test_anthropic_caches_tools_system_and_the_last_two_turns(
    fake_llm: FakeLLM, stream: bool
) -> None:
    fake_llm.script([Reply("ok", usage=(1000, 5), cached=800)])
    usage = (await ask(make_provider(fake_llm, "anthropic"), HISTORY, TOOLS, stream=stream)).usage
    body = fake_llm.requests[0].body
    # Four marks at most (the API's limit): the tools, the system prompt, the user message
    # before the last one and the last message.
    assert cache_marks(body) == ["tool " + TOOLS[-1].name, "system", "message 0 block 0",
                                 "message 2 block 1"]
    assert usage.input_tokens == 1000 and usage.cached_input_tokens == 800


async def test_openai_reports_the_cached_prompt_tokens(fake_llm: FakeLLM, stream: bool) -> None:
    fake_llm.script([Reply("ok", usage=(1000, 5), cached=640)])
    usage = (await ask(make_provider(fake_llm, "openai"), HISTORY, TOOLS, stream=stream)).usage
    assert (usage.input_tokens, usage.cached_input_tokens) == (1000, 640)
    assert "cache_control" not in json.dumps(fake_llm.requests[0].body)
