"""A turn's tool calls run concurrently up to a cap, with real bash on a real temp workspace."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness9.engine import AgentEngine, Event, EventBus
from harness9.engine.events import ObservationAdded, ToolFinished, ToolStarted
from harness9.schema import Message, ToolFailure
from harness9.tools import default_registry
from tests.engine.marks import marked_command, most_at_once
from tests.engine.scripted import Reply, ScriptedProvider

pytestmark = pytest.mark.timeout(30)


def marked(marks: Path, n: int, sleep: float) -> tuple[str, str]:
    """A bash call that marks its start and end in `marks` and prints `n`."""
    return ("bash", json.dumps({"command": marked_command(marks, n, sleep)}))


def make_engine(
    root: Path, replies: list[Reply], **options: object
) -> tuple[AgentEngine, list[Event]]:
    events: list[Event] = []
    engine = AgentEngine(ScriptedProvider(replies), default_registry(root),
                         bus=EventBus(events.append), **options)  # type: ignore[arg-type]
    return engine, events


async def test_two_hundred_calls_run_at_most_eight_at_once_and_answer_in_order(
    tmp_path: Path,
) -> None:
    marks = tmp_path / "marks"
    calls = [marked(marks, n, 0.05) for n in range(200)]
    engine, events = make_engine(tmp_path, [Reply("", calls), Reply("done")])
    history: list[Message] = []
    result = await engine.run("many", history)
    assert (result.status, result.tool_calls) == ("completed", 200)
    # At most 8; and not far fewer, which would mean they had not run concurrently at all (the
    # exact peak depends on how fast a busy machine starts processes).
    assert 5 <= most_at_once(marks) <= 8
    observations = [m for m in history if m.tool_call_id]
    assert [m.tool_call_id for m in observations] == [f"call_1_{n}" for n in range(200)]
    assert [m.content.split()[0] for m in observations] == [str(n) for n in range(200)]
    started = [e.call.id for e in events if isinstance(e, ToolStarted)]
    assert started == [f"call_1_{n}" for n in range(200)]  # queued calls start in call order


async def test_the_cap_is_a_setting(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    calls = [marked(marks, n, 0.1) for n in range(6)]
    engine, _ = make_engine(tmp_path, [Reply("", calls), Reply("done")], max_parallel_tools=2)
    await engine.run("some")
    assert most_at_once(marks) == 2


async def test_a_queued_call_times_out_from_its_own_start(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    calls = [marked(marks, n, 0.3) for n in range(2)]
    engine, events = make_engine(tmp_path, [Reply("", calls), Reply("done")],
                                 max_parallel_tools=1, tool_timeout=0.5)
    await engine.run("two")
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    assert [r.is_error for r in results] == [False, False]  # 0.6 s in all, 0.3 s each
    assert most_at_once(marks) == 1


async def test_cancel_gives_running_and_queued_calls_a_cancelled_result(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    calls = [marked(marks, n, 30) for n in range(5)]
    engine, events = make_engine(tmp_path, [Reply("", calls)], max_parallel_tools=2)
    history: list[Message] = []
    task = asyncio.create_task(engine.run("stuck", history))
    async with asyncio.timeout(10):
        while not marks.exists() or len(marks.read_text().splitlines()) < 2:
            await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len([e for e in events if isinstance(e, ToolStarted)]) == 2
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert sorted(e.call.id for e in finished) == [f"call_1_{n}" for n in range(5)]
    assert {e.result.failure for e in finished} == {ToolFailure.CANCELLED}
    assert [m.tool_call_id for m in history if m.tool_call_id] == [f"call_1_{n}" for n in range(5)]
    assert not any(isinstance(e, ObservationAdded) for e in events)


def test_the_cap_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="max_parallel_tools"):
        make_engine(tmp_path, [], max_parallel_tools=0)
