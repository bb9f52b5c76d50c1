"""The checker the end-to-end tests run over every message: a real daemon's messages pass, and
the same messages with a field renamed, dropped or added, or a kind unknown, fail."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import StartDaemon
from tests.fakellm import Call, FakeLLM, Reply
from tests.support.wire_schema import WireChecker, progress_problems, result_problems


def _first(notifications: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return copy.deepcopy(next(p for p in notifications if p["kind"] == kind))


@pytest.mark.timeout(60)
async def test_renamed_dropped_and_added_fields_fail(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("Let me run it.", [Call("bash", {"command": "echo hi"})]),
                     Reply("It said hi.")])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    daemon = await start(workspace, env=env)
    result = await daemon.run(prompt="say hi")
    # initialize's answer, every notification and the run's answer were checked as they came
    assert daemon.wire.checked == len(daemon.progress) + 2
    assert daemon.wire.problems == []
    completed = _first(daemon.progress, "tool_completed")
    assert progress_problems(completed) == []
    assert result_problems("agent/run", result) == []

    renamed = dict(completed)
    renamed["duration_ms"] = renamed.pop("durationMs")
    assert any("durationMs" in p for p in progress_problems(renamed))
    assert any("duration_ms" in p for p in progress_problems(renamed))

    dropped = {k: v for k, v in completed.items() if k != "toolCallId"}
    assert any("toolCallId" in p for p in progress_problems(dropped))
    assert progress_problems({**completed, "kind": "tool_complete"}) != []
    assert progress_problems({**completed, "exitCode": "0"}) != []
    assert result_problems("agent/run", {**result, "status": "done"}) != []


def test_a_bad_message_fails_the_test_that_saw_it() -> None:
    checker = WireChecker()
    checker.sent(7, "agent/cancel")
    checker.received({"jsonrpc": "2.0", "id": 7, "result": {"canceled": True}})
    checker.received({"jsonrpc": "2.0", "method": "agent/progress",
                      "params": {"runId": "r", "sessionId": "s", "seq": 1,
                                 "kind": "turn_started", "turn": "1", "messages": 2}})
    assert checker.checked == 2
    with pytest.raises(AssertionError) as failed:
        checker.assert_clean()
    assert "agent/cancel result" in str(failed.value)
    assert "turn_started" in str(failed.value)
