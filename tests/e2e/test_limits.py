"""The daemon end to end: the tool concurrency cap and the provider request limits, set per run
or by the client, against the loopback fake LLM."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.daemon import StartDaemon
from tests.engine.marks import marked_command, most_at_once
from tests.fakellm import Call, FakeLLM, Hang, Reply

pytestmark = pytest.mark.timeout(60)


async def test_max_parallel_tools_from_the_run_params(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    calls = [Call("bash", {"command": marked_command(marks, n, 0.2)}) for n in range(6)]
    fake_llm.script([Reply("", calls), Reply("done")])
    daemon = await start(workspace, env={**fake_llm.env(), "HARNESS9_PROVIDER": "openai"})
    result = await daemon.run(prompt="six", maxParallelTools=2)
    assert (result["status"], result["toolCalls"]) == ("completed", 6)
    assert most_at_once(marks) == 2
    answers = fake_llm.requests[1].messages[-6:]
    assert [m["content"].split()[0] for m in answers] == [str(n) for n in range(6)]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_hung_model_fails_the_run_as_network_at_the_first_byte_limit(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, provider: str
) -> None:
    fake_llm.script([Reply("warm"), Hang(), Hang(), Hang()])
    daemon = await start(workspace, env={**fake_llm.env(), "HARNESS9_PROVIDER": provider})
    await daemon.run(prompt="warm up")  # imports the SDK: not part of the timing
    started = time.monotonic()
    with pytest.raises(JsonRpcException) as info:
        await daemon.run(prompt="x", firstByteTimeoutMs=600)
    took = time.monotonic() - started
    message = f"{provider}: no first byte from the model within 0.6 s (firstByteTimeoutMs)"
    assert info.value.data["kind"] == "network"
    assert info.value.message == message
    assert 0.55 < took < 3
    await daemon.wait_for(lambda n: n["kind"] == "run_finished" and n["status"] == "error")
    assert daemon.progress[-1]["error"] == {"kind": "network", "message": message}
    assert len(fake_llm.requests) == 2  # not retried


async def test_a_stalled_stream_fails_at_the_idle_limit_set_by_the_client(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("hello world", stall_after=2, keepalive=0.05)])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai"}
    daemon = await start(workspace, env=env, init={"streamIdleTimeoutMs": 500})
    with pytest.raises(JsonRpcException) as info:
        await daemon.run(prompt="x")
    assert info.value.data["kind"] == "network"
    assert "the model sent nothing for 0.5 s (streamIdleTimeoutMs)" in info.value.message
    await daemon.wait_for(lambda n: n["kind"] == "run_finished")
    deltas = [n["text"] for n in daemon.progress if n["kind"] == "text_delta"]
    assert "".join(deltas) == "hel"
