"""Live tool output end to end: a running bash call's output reaches the client as `tool_output`
notifications, coalesced and capped, while what the model receives stays the tool's result."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from harness9.lsp.lifecycle import PROGRESS_KINDS
from tests.e2e.daemon import StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)

CAP = 64 * 1024


async def _run_bash(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, command: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One run whose model calls bash once; the call's `tool_output` notes and its completion."""
    fake_llm.script([Reply("", [Call("bash", {"command": command})]), Reply("done")])
    daemon = await start(workspace, env={**fake_llm.env(), "HARNESS9_PROVIDER": "openai"})
    result = await daemon.run(prompt="run it")
    assert result["status"] == "completed"
    notes = daemon.of_run(result["runId"])
    live = [n for n in notes if n["kind"] == "tool_output"]
    done = next(n for n in notes if n["kind"] in ("tool_completed", "tool_failed"))
    assert all(notes.index(n) < notes.index(done) for n in live)
    assert all(n["toolCallId"] == done["toolCallId"] and n["turn"] == 1 for n in live)
    return live, done


def _at_most_ten_a_second(live: list[dict[str, Any]], done: dict[str, Any]) -> bool:
    return len(live) <= 10 * math.ceil(done["durationMs"] / 1000)


async def test_a_bash_call_shows_its_output_while_it_runs(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    command = "for i in $(seq 1 20); do echo line $i; echo warn $i >&2; sleep 0.05; done"
    live, done = await _run_bash(start, fake_llm, workspace, command)
    expected = "".join(f"line {i}\nwarn {i}\n" for i in range(1, 21))
    assert 4 <= len(live) < 40  # several pieces over ~1 s, yet coalesced (40 writes)
    assert _at_most_ten_a_second(live, done)
    assert "".join(n["text"] for n in live) == expected
    assert not any("truncated" in n for n in live)
    assert done["output"] == expected
    observation = fake_llm.requests[1].messages[-1]
    assert observation["role"] == "tool" and observation["content"] == expected


async def test_live_output_stops_at_64_kib_with_one_truncated_mark(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    command = "for i in $(seq 1 40); do head -c 5000 /dev/zero | tr '\\0' x; sleep 0.01; done"
    live, done = await _run_bash(start, fake_llm, workspace, command)
    text = "".join(n["text"] for n in live)
    assert len(text.encode()) == CAP
    assert set(text) == {"x"}
    assert [n.get("truncated", False) for n in live][-1] is True
    assert sum(1 for n in live if n.get("truncated")) == 1
    assert done["bytes"] == 200_000  # the tool's own accounting is untouched
    assert _at_most_ten_a_second(live, done)


async def test_a_flood_of_output_does_not_flood_the_client(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    live, done = await _run_bash(start, fake_llm, workspace, "yes | head -c 10M")
    assert done["bytes"] == 10 * 1024 * 1024
    assert len("".join(n["text"] for n in live).encode()) == CAP
    assert sum(1 for n in live if n.get("truncated")) == 1
    assert _at_most_ten_a_second(live, done)
    assert len(live) <= 3


async def test_a_bash_completion_carries_its_exit_code_or_signal(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    calls = [Call("bash", {"command": "echo out; exit 3"}, id="c-exit"),
             Call("bash", {"command": "echo 'exit status 7'"}, id="c-zero"),
             Call("bash", {"command": "kill -KILL $$"}, id="c-kill")]
    fake_llm.script([Reply("", calls), Reply("done")])
    daemon = await start(workspace, env={**fake_llm.env(), "HARNESS9_PROVIDER": "openai"})
    result = await daemon.run(prompt="run them")
    done = {n["toolCallId"]: n for n in daemon.of_run(result["runId"])
            if n["kind"] == "tool_completed"}
    assert (done["c-exit"]["output"], done["c-exit"]["exitCode"]) == ("out\nexit status 3", 3)
    assert done["c-zero"]["exitCode"] == 0  # the text a command prints is not its exit
    assert "signal" not in done["c-exit"] and "signal" not in done["c-zero"]
    assert done["c-kill"]["output"] == "killed by signal SIGKILL (9)"
    assert done["c-kill"]["signal"] == "SIGKILL" and "exitCode" not in done["c-kill"]


def test_the_kind_is_announced() -> None:
    assert "tool_output" in PROGRESS_KINDS
