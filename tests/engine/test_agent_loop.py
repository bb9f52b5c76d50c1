"""The agent loop against a scripted provider, with the real tools on a real temp workspace."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from harness9.engine import AgentEngine, Event, EventBus
from harness9.engine.events import (
    AssistantMessage,
    LLMCallStarted,
    ObservationAdded,
    RunFinished,
    TextDelta,
    ThinkingDone,
    ToolFinished,
    ToolOutputShown,
    ToolStarted,
)
from harness9.provider.provider_errors import RateLimitError
from harness9.schema import Message, Role, ToolFailure, ToolKind
from harness9.tools import default_registry
from tests.engine.scripted import Reply, ScriptedProvider


def bash(command: str) -> tuple[str, str]:
    return ("bash", json.dumps({"command": command}))


def make_engine(
    tmp_path: Path,
    replies: list[Reply],
    *,
    max_turns: int = 20,
    tool_timeout: float = 60.0,
    thinking: bool = False,
) -> tuple[AgentEngine, ScriptedProvider, list[Event]]:
    provider = ScriptedProvider(replies)
    events: list[Event] = []
    engine = AgentEngine(
        provider,
        default_registry(tmp_path),
        max_turns=max_turns,
        tool_timeout=tool_timeout,
        thinking=thinking,
        bus=EventBus(events.append),
    )
    return engine, provider, events


def kinds(events: list[Event]) -> list[str]:
    # Streamed pieces (model text, live tool output) come in numbers that depend on timing.
    return [e.kind for e in events if not isinstance(e, TextDelta | ToolOutputShown)]


async def test_tool_loop_completes_with_observations_in_order(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    replies = [
        Reply("Reading.", [("read_file", '{"path": "a.txt"}'), bash("echo beta")]),
        Reply("Both done."),
    ]
    engine, provider, events = make_engine(tmp_path, replies)
    history: list[Message] = []
    result = await engine.run("look", history)
    assert (result.status, result.text, result.turns, result.tool_calls) == (
        "completed",
        "Both done.",
        2,
        2,
    )
    assert kinds(events) == [
        "run_started",
        "turn_started",
        "llm_call_started",
        "usage",
        "assistant_message",
        "tool_started",
        "tool_started",
        "tool_finished",
        "tool_finished",
        "observation",
        "turn_started",
        "llm_call_started",
        "usage",
        "assistant_message",
        "run_finished",
    ]
    observations = [m for m in history if m.tool_call_id]
    assert [m.tool_call_id for m in observations] == ["call_1_0", "call_1_1"]
    assert observations[0].content.startswith("alpha")
    assert observations[1].content.startswith("beta")
    # The second call saw the whole history: prompt, assistant with calls, two observations.
    assert len(provider.calls[1].messages) == 4
    assert result.usage.input_tokens == 20


async def test_three_calls_run_concurrently(tmp_path: Path) -> None:
    # Each call marks itself and waits for the other two marks: they meet only if all three run
    # at the same time (one at a time, the first gives up after 10 s with exit 7).
    meet = ('touch "mark-$$"; n=0; while [ "$(ls mark-* | wc -l)" -lt 3 ]; do '
            'n=$((n+1)); [ "$n" -gt 200 ] && exit 7; sleep 0.05; done; echo met')
    replies = [Reply("", [bash(meet), bash(meet), bash(meet)]), Reply("ok")]
    engine, _, events = make_engine(tmp_path, replies)
    await engine.run("meet")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.result.output.strip() for e in finished] == ["met"] * 3


async def test_one_timeout_does_not_stop_siblings(tmp_path: Path) -> None:
    replies = [Reply("", [bash("sleep 5"), bash("echo quick")]), Reply("done")]
    engine, _, events = make_engine(tmp_path, replies, tool_timeout=0.5)
    history: list[Message] = []
    started = time.monotonic()
    await engine.run("go", history)
    assert time.monotonic() - started < 3
    by_id = {e.call.id: e.result for e in events if isinstance(e, ToolFinished)}
    assert by_id["call_1_0"].is_error
    assert by_id["call_1_0"].failure is ToolFailure.TIMEOUT
    assert not by_id["call_1_1"].is_error
    assert by_id["call_1_1"].output.startswith("quick")
    # Results are injected in tool-call order whatever order they finished in.
    assert [m.tool_call_id for m in history if m.tool_call_id] == ["call_1_0", "call_1_1"]


async def test_thinking_withholds_tools_with_none(tmp_path: Path) -> None:
    engine, provider, events = make_engine(tmp_path, [Reply("answer")], thinking=True)
    await engine.run("think")
    assert provider.calls[0].tools is None
    assert provider.calls[1].tools is not None
    assert [t.name for t in provider.calls[1].tools] == [
        "read_file",
        "write_file",
        "edit_file",
        "bash",
        "update_plan",
    ]
    phases = [e.phase for e in events if isinstance(e, LLMCallStarted)]
    assert phases == ["thinking", "action"]
    thought = [e for e in events if isinstance(e, ThinkingDone)]
    assert thought[0].text == "I will plan first."
    # The action call sees the thought as an assistant message.
    assert provider.calls[1].messages[-1].role is Role.ASSISTANT


async def test_max_turns_runs_last_tools_then_stops(tmp_path: Path) -> None:
    replies = [Reply(f"t{i}", [bash(f"echo {i}")]) for i in range(5)]
    engine, provider, events = make_engine(tmp_path, replies, max_turns=2)
    result = await engine.run("loop")
    assert result.status == "max_turns"
    assert result.turns == 2
    assert result.tool_calls == 2
    assert len(provider.calls) == 2  # no extra call after the last tools ran
    assert isinstance(events[-1], RunFinished)
    assert events[-1].status == "max_turns"
    assert kinds(events)[-2] == "observation"


async def test_unknown_tool_and_bad_json_become_readable_failures(tmp_path: Path) -> None:
    replies = [
        Reply("", [("teleport", "{}"), ("bash", '{"command": "echo hi"'), ("read_file", "{}")]),
        Reply("fine"),
    ]
    engine, _, events = make_engine(tmp_path, replies)
    result = await engine.run("x")
    assert result.status == "completed"
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    by_id = {r.tool_call_id: r for r in results}
    unknown, broken, missing = by_id["call_1_0"], by_id["call_1_1"], by_id["call_1_2"]
    assert unknown.failure is ToolFailure.UNKNOWN_TOOL
    assert unknown.output == (
        "Error: unknown tool 'teleport'. Available tools: read_file, write_file, edit_file, "
        "bash, update_plan. Call one of these by its exact name."
    )
    assert broken.failure is ToolFailure.BAD_ARGUMENTS
    assert broken.output.startswith("Error: the arguments of 'bash' are not valid JSON")
    assert missing.failure is ToolFailure.BAD_ARGUMENTS
    assert missing.output.startswith("Error: missing required argument(s) for 'read_file': path.")


async def test_streaming_forwards_deltas_of_action_calls_only(tmp_path: Path) -> None:
    engine, _, events = make_engine(tmp_path, [Reply("hello world")], thinking=True)
    await engine.run("hi")
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas) == "hello world"
    assert len(deltas) > 1
    final = [e for e in events if isinstance(e, AssistantMessage)]
    assert final[0].text == "hello world"


async def test_provider_error_ends_run_with_error_event(tmp_path: Path) -> None:
    replies = [Reply(error=RateLimitError("slow down", status=429))]
    engine, _, events = make_engine(tmp_path, replies)
    with pytest.raises(RateLimitError):
        await engine.run("x")
    last = events[-1]
    assert isinstance(last, RunFinished)
    assert last.status == "error"
    assert last.error == {"kind": "rate_limit", "message": "slow down", "status": 429}


async def test_cancel_mid_tool_marks_calls_cancelled_and_keeps_history_valid(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "pid"
    replies = [Reply("", [bash(f"echo $$ > {marker}; sleep 30"), bash("echo fast")])]
    engine, _, events = make_engine(tmp_path, replies)
    history: list[Message] = []
    task = asyncio.create_task(engine.run("x", history))
    for _ in range(100):
        if marker.exists() and marker.read_text().strip():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
    finished = [e.result for e in events if isinstance(e, ToolFinished)]
    assert sorted(r.failure.value if r.failure else "ok" for r in finished) == ["cancelled", "ok"]
    assert isinstance(events[-1], RunFinished)
    assert events[-1].status == "cancelled"
    assert [m.tool_call_id for m in history if m.tool_call_id] == ["call_1_0", "call_1_1"]
    assert not any(isinstance(e, ObservationAdded) for e in events)


async def test_tool_events_carry_started_before_finished(tmp_path: Path) -> None:
    engine, _, events = make_engine(tmp_path, [Reply("", [bash("echo a")]), Reply("b")])
    await engine.run("x")
    started = next(i for i, e in enumerate(events) if isinstance(e, ToolStarted))
    finished = next(i for i, e in enumerate(events) if isinstance(e, ToolFinished))
    assert started < finished


async def test_calls_carry_the_kind_their_tool_declares(tmp_path: Path) -> None:
    calls = [("read_file", '{"path": "a.txt"}'), bash("echo a"), ("teleport", "{}")]
    (tmp_path / "a.txt").write_text("a\n")
    engine, _, events = make_engine(tmp_path, [Reply("", calls), Reply("b")])
    await engine.run("x")
    message = next(e for e in events if isinstance(e, AssistantMessage))
    expected = [ToolKind.READ, ToolKind.EXECUTE, ToolKind.OTHER]  # unknown tools: other
    assert [kind for _, kind in message.calls_with_kinds()] == expected
    started = {e.call.name: e.tool_kind for e in events if isinstance(e, ToolStarted)}
    finished = {e.call.name: e.tool_kind for e in events if isinstance(e, ToolFinished)}
    assert finished == dict(zip(["read_file", "bash", "teleport"], expected, strict=True))
    # the unknown tool never ran: it has its failure but no start
    assert started == {"read_file": ToolKind.READ, "bash": ToolKind.EXECUTE}


async def test_a_new_conversation_starts_with_the_system_prompt(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply("one"), Reply("two")])
    engine = AgentEngine(provider, default_registry(tmp_path), system_prompt="Be careful.")
    history: list[Message] = []
    await engine.run("first", history)
    await engine.run("second", history)
    roles = [m.role for m in provider.calls[1].messages]
    assert roles == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER]
    assert provider.calls[0].messages[0].content == "Be careful."
