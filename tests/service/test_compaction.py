"""Context management end to end through the service and the real SDKs: a long session in a
small window, the "context too long" answer of both wire formats, and compacting on demand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness9.engine.compaction import SUMMARY_HEADER, SUMMARY_INSTRUCTIONS
from harness9.engine.events import ContextCompacted, UsageReported
from harness9.service.agent_service import AgentService
from harness9.service.config.settings import RunSettings
from harness9.service.state import state_dir, workspace_key
from tests.fakellm import Call, Fail, FakeLLM, Reply, Request
from tests.fakellm.steps import estimate_tokens
from tests.service.test_runs import Recorder, request

pytestmark = pytest.mark.timeout(60)

# Room for the fixed part of every request (the system prompt and the tools, `task` with its
# agents among them: about 3,000 tokens) and one turn of two long command outputs, kept whole.
# A window smaller than that cannot hold the turn, whatever is compacted.
WINDOW = 4_400


def _respond(request: Request) -> Reply:
    """Two bash calls with a long output each, then an answer, for every prompt; a summary
    when asked without tools."""
    if not request.has_tools:
        return Reply("SUMMARY: the user asked for numbered tasks; each ran two commands.")
    messages = request.messages
    last_prompt = max(i for i, m in enumerate(messages)
                      if m["role"] == "user" and not m["content"].startswith(SUMMARY_HEADER))
    calls = sum(1 for m in messages[last_prompt:] if m["role"] == "tool")
    if calls < 2:
        return Reply("", [Call("bash", {"command": "head -c 1500 /dev/zero | tr '\\0' x"})])
    return Reply(f"done with {messages[last_prompt]['content']}")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM(responder=_respond) as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        yield server


def _pairs_intact(messages: list[dict[str, Any]]) -> bool:
    """Every tool call is answered right after its message, and every result has its call."""
    for i, message in enumerate(messages):
        calls = [c["id"] for c in message.get("tool_calls") or []]
        results = [m["tool_call_id"] for m in messages[i + 1 : i + 1 + len(calls)]
                   if m["role"] == "tool"]
        if calls and results != calls:
            return False
        if message["role"] == "tool":
            previous = messages[:i]
            if not any(message["tool_call_id"] in [c["id"] for c in m.get("tool_calls") or []]
                       for m in previous):
                return False
    return True


async def test_a_thirty_turn_session_never_exceeds_a_small_window(
    fake: FakeLLM, tmp_path: Path
) -> None:
    service = AgentService()
    recorder = Recorder()
    session_id = None
    for n in range(10):  # 10 prompts × 3 turns
        outcome = await service.turns.run(
            request(tmp_path, f"task {n}", session_id, context_window=WINDOW), recorder.wire
        )
        session_id = outcome.ids.session_id
        assert outcome.result.text == f"done with task {n}"
    action = [r for r in fake.requests if r.has_tools]
    summaries = [r for r in fake.requests if not r.has_tools]
    assert len(action) == 30 and summaries
    for sent in fake.requests:
        assert estimate_tokens(json.dumps(sent.body)) <= WINDOW
    assert all(_pairs_intact(r.messages) for r in action)
    assert all(r.messages[0]["content"] == SUMMARY_INSTRUCTIONS for r in summaries)
    # The latest prompt is always there verbatim.
    for n, sent in enumerate(action):
        assert any(m["content"] == f"task {n // 3}" for m in sent.messages)
    compactions = [e for e in recorder.events if isinstance(e, ContextCompacted)]
    assert {e.method for e in compactions} <= {"prune", "summary"} and compactions
    assert all(e.after_tokens < e.before_tokens for e in compactions)
    usage = [e for e in recorder.events if isinstance(e, UsageReported)]
    assert all(e.context_window == WINDOW for e in usage)
    log = state_dir() / "sessions" / workspace_key(str(tmp_path)) / f"{session_id}.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert sum(r["type"] == "compaction" for r in records) == len(compactions)
    # And the stored session resumes as it was left: compacted.
    service.close()
    again = AgentService()
    view, _ = again.sessions.view(str(session_id))
    assert any(m.content.startswith(SUMMARY_HEADER) for m in view.history)


OPENAI_TOO_LONG = {"error": {
    "message": "This model's maximum context length is 4096 tokens. However, your messages "
               "resulted in 5210 tokens. Please reduce the length of the messages.",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}
ANTHROPIC_TOO_LONG = {"type": "error", "error": {
    "type": "invalid_request_error", "message": "prompt is too long: 5210 tokens > 4096 maximum"}}


@pytest.mark.parametrize(("provider", "body"), [("openai", OPENAI_TOO_LONG),
                                                 ("anthropic", ANTHROPIC_TOO_LONG)])
async def test_context_too_long_compacts_once_and_retries(
    fake: FakeLLM, tmp_path: Path, provider: str, body: dict[str, Any]
) -> None:
    service = AgentService()
    fake.script([Reply("one " * 500)])
    first = await service.turns.run(request(tmp_path, "first", provider=provider), Recorder().wire)
    fake.script([Fail(400, body=body), Reply("a summary"), Reply("two")])
    recorder = Recorder()
    second = await service.turns.run(
        request(tmp_path, "second", first.ids.session_id, provider=provider), recorder.wire)
    assert second.result.text == "two"
    summary, retried = fake.requests[-2], fake.requests[-1]
    assert not summary.has_tools and retried.has_tools
    sent = json.dumps(retried.body)
    assert "a summary" in sent and '"second"' in sent and '"first"' not in sent
    assert [e.method for e in recorder.events if isinstance(e, ContextCompacted)] == ["summary"]


async def test_a_second_too_long_answer_fails_the_run_classified(
    fake: FakeLLM, tmp_path: Path
) -> None:
    from harness9.service.service_errors import RunError

    service = AgentService()
    fake.script([Reply("one " * 500)])
    first = await service.turns.run(request(tmp_path, "first"), Recorder().wire)
    fake.script([Fail(400, body=OPENAI_TOO_LONG), Reply("a summary"),
                 Fail(400, body=OPENAI_TOO_LONG)])
    with pytest.raises(RunError) as failed:
        await service.turns.run(request(tmp_path, "second", first.ids.session_id), Recorder().wire)
    assert failed.value.kind == "http" and "maximum context length" in failed.value.message


async def test_compact_on_demand(fake: FakeLLM, tmp_path: Path) -> None:
    service = AgentService()
    fake.script([Reply("one " * 500), Reply("two")])
    first = await service.turns.run(request(tmp_path, "first"), Recorder().wire)
    await service.turns.run(request(tmp_path, "second", first.ids.session_id), Recorder().wire)
    settings = RunSettings(provider="openai")
    fake.script([Reply("what happened so far")])
    done = await service.sessions.compact(first.ids.session_id, settings)
    assert done.method == "summary" and done.after < done.before
    view, _ = service.sessions.view(first.ids.session_id)
    assert view.history[1].content.endswith("what happened so far")
    assert [m.content for m in view.history][-2:] == ["second", "two"]
    fake.script([Reply("a summary longer than what it would replace " * 20)])
    again = await service.sessions.compact(first.ids.session_id, settings)
    assert again.method == "none" and again.before == again.after
    assert view.history[1].content.endswith("what happened so far")
