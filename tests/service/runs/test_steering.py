"""Working with a session while it runs: steers, queued runs, the plan and plan mode, through
the service with the real SDKs against the fake LLM."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness9.engine.events import Dequeued, PlanUpdated, Queued, RunFinished, RunStarted, Steered
from harness9.process.sandbox import availability
from harness9.schema import PlanStatus
from harness9.service.agent_service import AgentService
from harness9.service.config.settings import RunSettings
from harness9.service.run_request import RunRequest
from harness9.service.service_errors import RunCancelled, UnknownRun
from tests.fakellm import Call, FakeLLM, Reply
from tests.fakellm.steps import Request
from tests.service.test_runs import Recorder

pytestmark = pytest.mark.timeout(60)


_REQUEST_FIELDS = {"queue", "plan", "execute_plan", "claim", "context"}


def request(root: Path, prompt: str = "go", session_id: str | None = None,
            provider: str = "openai", **fields: Any) -> RunRequest:
    """A request; fields of `RunRequest` go there, the rest are settings."""
    settings = RunSettings(provider=provider, approvals_mode="yolo")
    settings = replace(settings, **{k: v for k, v in fields.items() if k not in _REQUEST_FIELDS})
    own = {k: v for k, v in fields.items() if k in _REQUEST_FIELDS}
    return replace(RunRequest(prompt, str(root), settings, session_id), **own)


def user_texts(sent: Request) -> list[str]:
    """The user-written texts of a request, in order, in either wire format."""
    texts = []
    for message in sent.messages:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
            continue
        texts += [block["text"] for block in content if block.get("type") == "text"]
    return texts


def roles_after_call(sent: Request) -> list[str]:
    """What follows the assistant's tool call in a request: `result` and `text` parts."""
    parts: list[str] = []
    seen_call = False
    for message in sent.messages:
        content = message.get("content")
        if message["role"] == "assistant" and (message.get("tool_calls") or (
                isinstance(content, list) and any(b["type"] == "tool_use" for b in content))):
            seen_call = True
            continue
        if not seen_call:
            continue
        if message["role"] == "tool":
            parts.append("result")
        elif isinstance(content, str):
            parts.append("text")
        else:
            parts += ["result" if b["type"] == "tool_result" else "text" for b in content]
    return parts


async def until(condition: Any, timeout: float = 20.0, front: Recorder | None = None) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        seen = front.kinds() if front is not None else "?"
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting; saw {seen}"
        await asyncio.sleep(0.01)


def started(front: Recorder) -> int:
    return sum(isinstance(e, RunStarted) for e in front.events)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_steer_joins_after_the_batch_results_before_the_next_call(
    fake: FakeLLM, tmp_path: Path, provider: str
) -> None:
    fake.script([Reply("", [Call("bash", {"command": "sleep 0.4; echo slept"})]),
                 Reply("done, docs too")])
    service, front = AgentService(), Recorder()
    running = asyncio.create_task(service.turns.run(request(tmp_path, "fix it", provider=provider),
                                                    front.wire))
    await until(lambda: any(e.kind == "tool_started" for e in front.events), front=front)
    run_id = front.contexts[0].ids.run_id
    outcome = await service.turns.steer(run_id, "also update the docs")
    assert (outcome.delivered, outcome.run_id) == ("run", run_id)
    result = (await running).result
    assert result.text == "done, docs too"
    second = fake.requests[1]
    # The tool call is followed by its result, and only then by the steer.
    assert roles_after_call(second) == ["result", "text"]
    assert user_texts(second)[-1] == "also update the docs"
    steered = [e for e in front.events if isinstance(e, Steered)]
    assert [(e.turn, e.text) for e in steered] == [(2, "also update the docs")]
    kinds = front.kinds()
    assert kinds.index("observation") < kinds.index("steered") < len(kinds) - 1


async def test_a_steer_during_the_last_answer_keeps_the_run_going(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("all done", first_byte_delay=0.5), Reply("done, and renamed it")])
    service, front = AgentService(), Recorder()
    running = asyncio.create_task(service.turns.run(request(tmp_path), front.wire))
    await until(lambda: len(fake.requests) == 1)
    outcome = await service.turns.steer(front.contexts[0].ids.run_id, "rename it too")
    assert outcome.delivered == "run"
    result = (await running).result
    assert (result.text, result.turns) == ("done, and renamed it", 2)
    assert user_texts(fake.requests[1])[-1] == "rename it too"


async def test_a_steer_too_late_for_its_run_is_the_next_prompt_ahead_of_the_queue(
    fake: FakeLLM, tmp_path: Path
) -> None:
    # max_turns 1: the run ends after its batch, before any safe point for the steer.
    fake.script([Reply("", [Call("bash", {"command": "sleep 0.4"})]), Reply("steered one"),
                 Reply("queued one")])
    service, front = AgentService(), Recorder()
    first = asyncio.create_task(service.turns.run(request(tmp_path, max_turns=1), front.wire))
    await until(lambda: any(e.kind == "tool_started" for e in front.events))
    ids = front.contexts[0].ids
    queued = asyncio.create_task(service.turns.run(request(tmp_path, "queued", ids.session_id),
                                                   front.wire))
    await until(lambda: any(isinstance(e, Queued) for e in front.events))
    outcome = await service.turns.steer(ids.run_id, "and the steer")
    assert outcome.delivered == "next" and outcome.run_id != ids.run_id
    assert (await first).result.status == "max_turns"
    steered_run = await service.turns.run(
        request(tmp_path, "and the steer", ids.session_id, claim=outcome.run_id), front.wire)
    assert steered_run.ids.run_id == outcome.run_id
    assert steered_run.result.text == "steered one"
    assert (await queued).result.text == "queued one"
    assert [user_texts(r)[-1] for r in fake.requests[1:]] == ["and the steer", "queued"]


async def test_a_steer_for_a_run_that_ended_a_moment_ago_is_the_next_prompt(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("over")])
    service, front = AgentService(), Recorder()
    done = await service.turns.run(request(tmp_path), front.wire)
    outcome = await service.turns.steer(done.ids.run_id, "one more thing")
    assert outcome.delivered == "next" and outcome.session_id == done.ids.session_id
    with pytest.raises(UnknownRun):
        await service.turns.steer("r-nope", "hello")


async def test_queued_runs_start_in_order_and_can_be_removed_or_cancelled(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("a", first_byte_delay=0.6), Reply("b"), Reply("d")])
    service, front = AgentService(), Recorder()
    first = asyncio.create_task(service.turns.run(request(tmp_path, "a"), front.wire))
    await until(lambda: bool(front.contexts))
    session_id = front.contexts[0].ids.session_id
    waiting = [asyncio.create_task(service.turns.run(request(tmp_path, p, session_id), front.wire))
               for p in ("b", "c", "d")]
    await until(lambda: sum(isinstance(e, Queued) for e in front.events) == 3)
    positions = [e.position for e in front.events if isinstance(e, Queued)]
    assert positions == [1, 2, 3]
    listed = service.turns.queued(session_id)
    assert [(p, e.prompt) for p, e in listed] == [(1, "b"), (2, "c"), (3, "d")]
    assert service.turns.unqueue(session_id, listed[1][1].queue_id) is True
    assert service.turns.unqueue(session_id, listed[1][1].queue_id) is False
    with pytest.raises(RunCancelled) as removed:
        await waiting[1]
    assert removed.value.reason == "removed"
    assert (await first).result.text == "a"
    assert [(await w).result.text for w in (waiting[0], waiting[2])] == ["b", "d"]
    assert [user_texts(r)[-1] for r in fake.requests] == ["a", "b", "d"]
    reasons = [e.reason for e in front.events if isinstance(e, Dequeued)]
    assert sorted(reasons) == ["removed", "started", "started"]
    ends = [e.status for e in front.events if isinstance(e, RunFinished)]
    assert sorted(ends) == ["cancelled", "completed", "completed", "completed"]


async def test_cancelling_the_running_run_starts_the_next_queued_one(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("", [Call("bash", {"command": "sleep 5"})]), Reply("next ran")])
    service, front = AgentService(), Recorder()
    first = asyncio.create_task(service.turns.run(request(tmp_path, "long"), front.wire))
    await until(lambda: any(e.kind == "tool_started" for e in front.events))
    session_id = front.contexts[0].ids.session_id
    second = asyncio.create_task(service.turns.run(request(tmp_path, "next", session_id),
                                                   front.wire))
    await until(lambda: any(isinstance(e, Queued) for e in front.events))
    assert await service.cancel(None, session_id) is True
    with pytest.raises(RunCancelled):
        await first
    assert (await second).result.text == "next ran"
    # The next request pairs the cancelled call with a result: both APIs accept it.
    assert not fake.rejected


async def test_a_queued_run_cancelled_by_its_id_never_starts(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("first", first_byte_delay=0.5)])
    service, front = AgentService(), Recorder()
    first = asyncio.create_task(service.turns.run(request(tmp_path), front.wire))
    await until(lambda: bool(front.contexts))
    session_id = front.contexts[0].ids.session_id
    second = asyncio.create_task(service.turns.run(request(tmp_path, "later", session_id),
                                                   front.wire))
    await until(lambda: len(front.contexts) == 2)
    await until(lambda: any(isinstance(e, Queued) for e in front.events))
    assert await service.cancel(front.contexts[1].ids.run_id, None) is True
    with pytest.raises(RunCancelled) as cancelled:
        await second
    assert cancelled.value.reason == "cancelled"
    assert (await first).result.text == "first"
    assert len(fake.requests) == 1 and started(front) == 1
    assert service.turns.queued(session_id) == []


def plan_call(*steps: tuple[str, str], note: str | None = None) -> Call:
    items = [{"text": text, "status": status} for text, status in steps]
    return Call("update_plan", {"items": items, **({"note": note} if note else {})})


async def test_the_plan_is_reported_stored_and_survives_a_restart_and_compaction(
    fake: FakeLLM, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    work = tmp_path / "work"
    work.mkdir()
    fake.script([
        Reply("", [plan_call(("Read the parser", "done"), ("Fix the bug", "in_progress"),
                             ("Add a test", "pending"))]),
        Reply("working on it"),
        Reply("and more"),
        Reply("the summary"),
    ])
    service, front = AgentService(state), Recorder()
    done = await service.turns.run(request(work, "plan it"), front.wire)
    await service.turns.run(request(work, "go on", done.ids.session_id), front.wire)
    plans = [e for e in front.events if isinstance(e, PlanUpdated)]
    assert [(e.turn, [i.status for i in e.plan.items]) for e in plans] == [
        (1, [PlanStatus.DONE, PlanStatus.IN_PROGRESS, PlanStatus.PENDING])]
    service.close()
    again = AgentService(state)
    session, _ = again.sessions.view(done.ids.session_id)
    assert session.plan is not None
    assert [i.text for i in session.plan.items] == ["Read the parser", "Fix the bug",
                                                    "Add a test"]
    compacted = await again.sessions.compact(done.ids.session_id, request(work).settings)
    assert compacted.method == "summary"
    summary = again.sessions.known(done.ids.session_id).history[1].content
    assert "the summary" in summary and "[>] Fix the bug" in summary
    assert "[x] Read the parser" in summary and "[ ] Add a test" in summary
    again.close()


async def test_a_bad_plan_is_an_error_the_model_can_read(fake: FakeLLM, tmp_path: Path) -> None:
    fake.script([Reply("", [plan_call(("Step", "someday"))]), Reply("ok")])
    service, front = AgentService(), Recorder()
    await service.turns.run(request(tmp_path), front.wire)
    result = fake.requests[1].messages[-1]
    assert result["role"] == "tool"
    assert "items[0].status must be one of pending, in_progress, done" in result["content"]
    assert not any(isinstance(e, PlanUpdated) for e in front.events)


def offered(sent: Request) -> list[str]:
    return [tool["function"]["name"] for tool in sent.body.get("tools", [])]


async def test_plan_mode_offers_reads_and_the_plan_and_execute_plan_goes_back(
    fake: FakeLLM, tmp_path: Path
) -> None:
    (tmp_path / "app.py").write_text("print('hi')\n")
    fake.script([
        Reply("", [Call("write_file", {"path": "app.py", "content": "gone"}),
                   plan_call(("Change the greeting", "pending"))]),
        Reply("Plan: change the greeting."),
        Reply("", [Call("write_file", {"path": "bye.py", "content": "print('bye')\n"})]),
        Reply("done"),
    ])
    service, front = AgentService(), Recorder()
    planned = await service.turns.run(request(tmp_path, "plan the change", plan=True), front.wire)
    tools = offered(fake.requests[0])
    assert "write_file" not in tools and "edit_file" not in tools
    assert {"read_file", "update_plan"} <= set(tools)
    assert ("bash" in tools) == availability().works
    assert "Plan mode" in user_texts(fake.requests[0])[-1]
    assert (tmp_path / "app.py").read_text() == "print('hi')\n"  # the write was refused
    session_id = planned.ids.session_id
    await service.turns.run(request(tmp_path, "Carry out the plan.", session_id, execute_plan=True),
                            front.wire)
    go = fake.requests[2]
    assert "write_file" in offered(go)
    assert user_texts(go)[-1].endswith("[ ] Change the greeting")
    assert (tmp_path / "bye.py").read_text() == "print('bye')\n"


@pytest.mark.skipif(not availability().works, reason="no OS sandbox on this machine")
async def test_plan_mode_runs_commands_read_only(fake: FakeLLM, tmp_path: Path) -> None:
    fake.script([Reply("", [Call("bash", {"command": "cat app.py; echo x > new.txt"})]),
                 Reply("looked")])
    (tmp_path / "app.py").write_text("original\n")
    service, front = AgentService(), Recorder()
    await service.turns.run(request(tmp_path, "look", plan=True), front.wire)
    output = fake.requests[1].messages[-1]["content"]
    assert "original" in output
    assert not (tmp_path / "new.txt").exists()


async def test_plan_mode_as_the_session_mode_returns_to_normal_on_execute(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("first"), Reply("planned"), Reply("went")])
    service, front = AgentService(), Recorder()
    first = await service.turns.run(request(tmp_path), front.wire)
    session_id = first.ids.session_id
    service.sessions.set_approval_mode(session_id, "plan")
    await service.turns.run(request(tmp_path, "think", session_id), front.wire)
    assert "write_file" not in offered(fake.requests[1])
    await service.turns.run(request(tmp_path, "go", session_id, execute_plan=True), front.wire)
    assert "write_file" in offered(fake.requests[2])
    assert service.sessions.known(session_id).approval_mode is None
    assert json.dumps(fake.requests[2].body).count("Plan mode") == 1  # the earlier prompt's
