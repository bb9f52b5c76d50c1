"""Whole agent loops through each adapter: the engine, the real tools, the real SDKs, the fake.

A scripted bug fix runs in a temporary workspace; the fake's recorded requests show that each
call resends the history with the tool results attached to the right calls.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from harness9.engine.agent_loop import AgentEngine
from harness9.engine.events import Event, EventBus
from harness9.provider.provider_errors import NetworkError
from harness9.schema import Message, Role
from harness9.tools import default_registry
from tests.fakellm import Call, FakeLLM, Reply, Request
from tests.provider.conftest import make_provider

BUGGY = "def add(a, b):\n    return a - b\n"
FIX = [
    Reply("Let me look at the code and run it.", [
        Call("read_file", {"path": "calc.py"}, id="r1"),
        Call("bash", {"command": "python3 -c 'import calc; print(calc.add(2, 3))'"}, id="b1"),
    ], arg_chunk_chars=5),
    Reply("The sign is wrong.", [
        Call("edit_file", {"path": "calc.py", "source_text": "return a - b",
                           "target_text": "return a + b"}, id="e1"),
        Call("bash", '{"command": "echo broken', id="b2"),  # broken JSON: comes back as an error
    ]),
    Reply(tool_calls=[Call("bash", {"command": "python3 -c 'import calc; print(calc.add(2, 3))'"},
                           id="b3")]),
    Reply("Fixed: add() now adds."),
]


def engine_for(fake: FakeLLM, wire: str, root: Path, **options: Any) -> tuple[AgentEngine,
                                                                              list[Event]]:
    events: list[Event] = []
    engine = AgentEngine(make_provider(fake, wire), default_registry(root),
                         bus=EventBus(events.append), workspace_root=str(root), **options)
    return engine, events


def tool_results(request: Request) -> list[tuple[str, str, bool]]:
    """(call id, output, is_error) of every tool result in a recorded request."""
    if request.wire == "openai":
        return [(m["tool_call_id"], m["content"], m["content"].startswith("Error"))
                for m in request.messages if m["role"] == "tool"]
    return [(b["tool_use_id"], b["content"], b["is_error"])
            for m in request.messages if isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_result"]


@pytest.mark.timeout(60)
async def test_bug_fix_loop(fake_llm: FakeLLM, wire: str, stream: bool, tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(BUGGY)
    fake_llm.script(FIX)
    engine, events = engine_for(fake_llm, wire, tmp_path, stream=stream)
    result = await engine.run("Fix calc.add.")
    assert (result.status, result.turns, result.tool_calls) == ("completed", 4, 5)
    assert result.text == "Fixed: add() now adds."
    assert (tmp_path / "calc.py").read_text() == BUGGY.replace("a - b", "a + b")
    assert result.usage.input_tokens > 0
    assert result.usage.output_tokens > 0

    requests = fake_llm.requests
    assert len(requests) == 4
    assert all(r.has_tools and r.stream == stream for r in requests)
    first_results = tool_results(requests[1])
    assert [(i, e) for i, _, e in first_results] == [("r1", False), ("b1", False)]
    assert first_results[0][1].startswith("def add(a, b):")
    assert "-1" in first_results[1][1]  # the buggy add(2, 3)
    later = tool_results(requests[2])
    assert [(i, e) for i, _, e in later[2:]] == [("e1", False), ("b2", True)]
    assert "5" in tool_results(requests[3])[-1][1]
    for earlier, later_request in itertools.pairwise(requests):
        # every call resends the whole conversation so far
        n = len(earlier.messages)
        assert later_request.uncached.messages[:n] == earlier.uncached.messages
    if stream:
        assert any(e.kind == "text_delta" for e in events)


async def test_anthropic_tool_results_of_a_turn_share_one_message(
    fake_llm: FakeLLM, tmp_path: Path
) -> None:
    (tmp_path / "calc.py").write_text(BUGGY)
    fake_llm.script(FIX)
    engine, _ = engine_for(fake_llm, "anthropic", tmp_path)
    await engine.run("Fix calc.add.")
    roles = [m["role"] for m in fake_llm.requests[-1].messages]
    assert roles == ["user", "assistant"] * 3 + ["user"]
    assert json.dumps(fake_llm.requests[-1].body).count('"tool_result"') == 5


async def test_thinking_calls_withhold_tools(
    fake_llm: FakeLLM, wire: str, tmp_path: Path
) -> None:
    (tmp_path / "calc.py").write_text(BUGGY)
    fake_llm.script([Reply("I should read it first."), FIX[0], Reply("Now I know."),
                     Reply("Done.")])
    engine, events = engine_for(fake_llm, wire, tmp_path, thinking=True)
    result = await engine.run("Look at calc.py.")
    assert (result.status, result.turns) == ("completed", 2)
    thinking_1, action_1, thinking_2, action_2 = fake_llm.requests
    assert "tools" not in thinking_1.body
    assert action_1.has_tools and action_2.has_tools
    if wire == "anthropic":  # the API needs tool definitions once the history holds tool blocks
        assert thinking_2.body["tool_choice"] == {"type": "none"}
        assert [t["name"] for t in thinking_2.body["tools"]] == [
            t["name"] for t in action_1.body["tools"]]
    else:
        assert "tools" not in thinking_2.body
    assert [e.text for e in events if e.kind == "thinking"] == [  # type: ignore[attr-defined]
        "I should read it first.", "Now I know."]


async def test_continued_session_resends_history(
    fake_llm: FakeLLM, wire: str, tmp_path: Path
) -> None:
    (tmp_path / "calc.py").write_text(BUGGY)
    fake_llm.script([FIX[0], Reply("It subtracts."), Reply("Yes, I am sure.")])
    engine, _ = engine_for(fake_llm, wire, tmp_path)
    history: list[Message] = []
    await engine.run("What does add do?", history)
    await engine.run("Are you sure?", history)
    first_run_last, second_run = fake_llm.requests[1], fake_llm.requests[2]
    n = len(first_run_last.messages)
    assert second_run.uncached.messages[:n] == first_run_last.uncached.messages
    assert "Are you sure?" in json.dumps(second_run.messages[-1])


async def test_provider_failure_ends_the_run_with_its_class(
    fake_llm: FakeLLM, wire: str, tmp_path: Path
) -> None:
    fake_llm.script([FIX[0], Reply("cut", drop_after=3)])
    engine, events = engine_for(fake_llm, wire, tmp_path, stream=True)
    with pytest.raises(NetworkError):
        await engine.run("Fix calc.add.")
    finished = events[-1]
    assert finished.kind == "run_finished"
    assert finished.status == "error"  # type: ignore[attr-defined]
    assert finished.error["kind"] == "network"  # type: ignore[attr-defined]


async def test_max_turns_stops_the_loop(fake_llm: FakeLLM, wire: str, tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(BUGGY)
    fake_llm.script(FIX[:2])
    engine, _ = engine_for(fake_llm, wire, tmp_path, max_turns=2)
    result = await engine.run("Fix calc.add.")
    assert (result.status, result.turns) == ("max_turns", 2)
    assert len(fake_llm.requests) == 2
    assert not fake_llm.unexpected


@pytest.mark.timeout(60)
async def test_anthropic_thinking_blocks_go_back_signed_through_the_tool_loop(
    fake_llm: FakeLLM, stream: bool, tmp_path: Path
) -> None:
    (tmp_path / "calc.py").write_text(BUGGY)
    fake_llm.script([
        Reply("Reading it.", [Call("read_file", {"path": "calc.py"}, id="r1")],
              reasoning="The bug is probably in add; read it first."),
        Reply("It subtracts.", reasoning="a - b should be a + b."),
    ])
    provider = make_provider(fake_llm, "anthropic", reasoning_effort="medium")
    engine = AgentEngine(provider, default_registry(tmp_path), workspace_root=str(tmp_path),
                         stream=stream)
    history: list[Message] = []
    result = await engine.run("why is add wrong?", history)
    assert result.status == "completed" and fake_llm.rejected == []
    first, second = (r.body for r in fake_llm.requests)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert first["max_tokens"] > 8192
    # The fake refuses (as the API does) a tool loop whose assistant message lost its signed
    # thinking block; here it went back first, as returned.
    turn = next(m for m in second["messages"] if m["role"] == "assistant")
    assert turn["content"][0]["type"] == "thinking"
    assert turn["content"][0]["thinking"] == "The bug is probably in add; read it first."
    assert history[-1].reasoning[0]["thinking"] == "a - b should be a + b."


@pytest.mark.timeout(60)
async def test_without_an_effort_no_thinking_is_asked_or_sent_back(
    fake_llm: FakeLLM, tmp_path: Path
) -> None:
    fake_llm.script([Reply("ok")])
    thought = Message(role=Role.ASSISTANT, content="earlier", reasoning=(
        {"type": "thinking", "thinking": "old", "signature": "sig"},))
    provider = make_provider(fake_llm, "anthropic")
    engine = AgentEngine(provider, default_registry(tmp_path), workspace_root=str(tmp_path))
    await engine.run("go on", [Message.user("hi"), thought])
    body = fake_llm.requests[0].body
    assert "thinking" not in body
    assert all(b["type"] != "thinking" for m in body["messages"] for b in m["content"])


@pytest.mark.timeout(60)
async def test_openai_gets_the_reasoning_effort(fake_llm: FakeLLM, stream: bool,
                                                tmp_path: Path) -> None:
    fake_llm.script([Reply("ok")])
    provider = make_provider(fake_llm, "openai", reasoning_effort="high")
    engine = AgentEngine(provider, default_registry(tmp_path), workspace_root=str(tmp_path),
                         stream=stream)
    await engine.run("hi", [])
    assert fake_llm.requests[0].body["reasoning_effort"] == "high"
