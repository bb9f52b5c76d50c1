"""The daemon end to end: a real subprocess, the real SDKs, the loopback fake LLM, real tools."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, Fail, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


async def openai_daemon(start: StartDaemon, fake: FakeLLM, root: Path, **kw: Any) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    env.update(kw.pop("env", {}))
    return await start(root, env=env, **kw)


def kinds(notes: list[dict[str, Any]]) -> list[str]:
    # Streamed pieces (model text, live tool output) come in numbers that depend on timing.
    return [n["kind"] for n in notes if n["kind"] not in ("text_delta", "tool_output")]


READ_AND_ECHO = [Call("read_file", {"path": "a.txt"}), Call("bash", {"command": "echo hi"})]
TWO_TOOLS = [
    Reply("Let me look.", READ_AND_ECHO),
    Reply("All done."),
]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("stream", [True, False])
async def test_run_reports_every_step_in_order(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, provider: str, stream: bool
) -> None:
    fake_llm.script(TWO_TOOLS)
    daemon = await start(workspace, env={**fake_llm.env(), "HARNESS9_PROVIDER": provider})
    result = await daemon.run(prompt="look around", stream=stream)
    assert result["status"] == "completed"
    assert result["text"] == "All done."
    assert (result["turns"], result["toolCalls"]) == (2, 2)
    assert result["usage"]["inputTokens"] > 0
    assert result["runId"].startswith("r-") and result["sessionId"].startswith("s-")
    notes = daemon.of_run(result["runId"])
    assert [n["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert all(n["sessionId"] == result["sessionId"] for n in notes)
    assert kinds(notes) == [
        "run_started", "turn_started", "usage", "assistant_message", "checkpoint",
        "tool_started", "tool_started", "tool_completed", "tool_completed", "observation",
        "turn_started", "usage", "assistant_message", "run_finished",
    ]  # fmt: skip
    deltas = "".join(n["text"] for n in notes if n["kind"] == "text_delta")
    assert deltas == ("Let me look.All done." if stream else "")
    started = notes[0]
    assert started["workspaceRoot"] == str(workspace)
    assert started["provider"] == provider and started["stream"] is stream
    message = next(n for n in notes if n["kind"] == "assistant_message")
    assert [c["name"] for c in message["toolCalls"]] == ["read_file", "bash"]
    assert message["toolCalls"][0]["arguments"] == {"path": "a.txt"}
    assert [c["kind"] for c in message["toolCalls"]] == ["read", "execute"]
    started_kinds = {n["tool"]: n["toolKind"] for n in notes if n["kind"] == "tool_started"}
    assert started_kinds == {"read_file": "read", "bash": "execute"}
    done = {n["tool"]: n for n in notes if n["kind"] == "tool_completed"}
    assert {tool: n["toolKind"] for tool, n in done.items()} == started_kinds
    assert done["read_file"]["output"].startswith("alpha")
    assert done["bash"]["output"].startswith("hi")
    assert done["bash"]["bytes"] >= 3 and done["bash"]["truncated"] is False
    assert done["bash"]["durationMs"] >= 0
    live = [n for n in notes if n["kind"] == "tool_output"]
    assert "".join(n["text"] for n in live) == "hi\n"
    assert {n["toolCallId"] for n in live} == {done["bash"]["toolCallId"]}
    finished = notes[-1]
    assert finished["status"] == "completed" and finished["toolCalls"] == 2
    first = fake_llm.requests[0].body
    system = first["system"] if provider == "anthropic" else first["messages"][0]["content"]
    assert f"project at {workspace}" in str(system)
    # The second model call carried both tool results back.
    second = fake_llm.requests[1].body
    assert "a.txt" in str(second) and "alpha" in str(second)


async def test_tool_failure_is_reported_and_run_goes_on(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("read_file", {"path": "../etc/passwd"}), Call("nope")]),
                     Reply("ok")])
    daemon = await openai_daemon(start, fake_llm, workspace)
    result = await daemon.run(prompt="x")
    failed = [n for n in daemon.of_run(result["runId"]) if n["kind"] == "tool_failed"]
    # The two calls run concurrently: either may fail first.
    assert sorted((n["tool"], n["reason"], n["toolKind"]) for n in failed) == [
        ("nope", "unknown_tool", "other"),
        ("read_file", "error", "read"),
    ]
    assert "outside the workspace" in next(n for n in failed if n["tool"] == "read_file")["output"]


async def test_bad_params_name_the_field(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    daemon = await openai_daemon(start, fake_llm, workspace)
    cases = [
        ({}, "prompt is required"),
        ({"prompt": "  "}, "prompt must not be empty"),
        ({"prompt": 5}, "prompt must be a string"),
        ({"prompt": "x", "provider": "gemini"}, "provider: must be one of"),
        ({"prompt": "x", "maxTurns": 0}, "maxTurns: must be an integer ≥ 1"),
        ({"prompt": "x", "stream": "yes"}, "stream: must be true or false"),
        ({"prompt": "x", "sessionId": "s-nope"}, "sessionId: unknown session"),
        ({"prompt": "x", "workspaceFolder": tmp_path.as_uri()}, "workspaceFolder:"),
    ]
    for params, expected in cases:
        with pytest.raises(JsonRpcException) as info:
            await daemon.request("agent/run", params)
        assert info.value.code == -32602, params
        assert expected in info.value.message, (params, info.value.message)
    assert fake_llm.requests == []


async def test_provider_failures_are_classified(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Fail(401, "bad key")])
    daemon = await openai_daemon(start, fake_llm, workspace)
    with pytest.raises(JsonRpcException) as info:
        await daemon.run(prompt="x")
    assert info.value.code == -32803
    assert info.value.data["kind"] == "auth"
    assert info.value.data["runId"].startswith("r-")
    await daemon.wait_for(lambda n: n["kind"] == "run_finished")
    assert daemon.progress[-1]["status"] == "error"
    assert daemon.progress[-1]["error"]["kind"] == "auth"


async def test_missing_key_is_a_config_error(start: StartDaemon, workspace: Path) -> None:
    daemon = await start(workspace, env={"HARNESS9_PROVIDER": "openai"})
    with pytest.raises(JsonRpcException) as info:
        await daemon.run(prompt="x")
    assert info.value.code == -32803
    assert info.value.data["kind"] == "config"
    assert "OPENAI_API_KEY" in info.value.message


async def test_cancel_request_kills_bash_and_session_goes_on(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    marker = workspace / "pid"
    fake_llm.script([Reply("", [Call("bash", {"command": f"echo $$ > {marker}; sleep 30"})])])
    daemon = await openai_daemon(start, fake_llm, workspace)
    run = asyncio.ensure_future(daemon.request("agent/run", {"prompt": "x"}, msg_id=4242))
    await daemon.wait_for(lambda n: n["kind"] == "tool_started")
    async with asyncio.timeout(10):
        while not (marker.exists() and marker.read_text().strip()):
            await asyncio.sleep(0.02)
    daemon.client.cancel_request(types.CancelParams(id=4242))
    with pytest.raises(JsonRpcRequestCancelled) as info:
        await run
    assert info.value.data["runId"].startswith("r-")
    session_id = info.value.data["sessionId"]
    pid = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
    notes = daemon.of_run(info.value.data["runId"])
    assert [n["kind"] for n in notes][-2:] == ["tool_failed", "run_finished"]
    assert notes[-2]["reason"] == "cancelled"
    assert notes[-1]["status"] == "cancelled"
    fake_llm.script([Reply("second answer")])
    again = await daemon.run(prompt="again", sessionId=session_id)
    assert again["text"] == "second answer"
    history = fake_llm.requests[-1].messages
    assert any(m.get("role") == "tool" for m in history)  # the cancelled call kept its pair


async def test_agent_cancel_answers_after_the_run_ended(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "sleep 30"})])])
    daemon = await openai_daemon(start, fake_llm, workspace)
    run = asyncio.ensure_future(daemon.run(prompt="x"))
    await daemon.wait_for(lambda n: n["kind"] == "tool_started")
    run_id = daemon.progress[0]["runId"]
    answer = await daemon.request("agent/cancel", {"runId": run_id})
    assert answer == {"cancelled": True} or dict(answer) == {"cancelled": True}
    assert run.done()  # the -32800 answer was written before the cancel's answer
    assert daemon.progress[-1]["kind"] == "run_finished"
    with pytest.raises(JsonRpcRequestCancelled):
        await run
    nothing = await daemon.request("agent/cancel", {"runId": run_id})
    assert dict(nothing) == {"cancelled": False}


async def test_session_continues_and_busy_session_is_refused(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("first"), Reply("", [Call("bash", {"command": "sleep 1"})]),
                     Reply("third")])
    daemon = await openai_daemon(start, fake_llm, workspace)
    first = await daemon.run(prompt="one")
    sid = first["sessionId"]
    second = asyncio.ensure_future(daemon.run(prompt="two", sessionId=sid))
    await daemon.wait_for(lambda n: n["kind"] == "tool_started")
    with pytest.raises(JsonRpcException) as info:
        await daemon.run(prompt="meanwhile", sessionId=sid, queue=False)
    assert info.value.code == -32803 and info.value.data["kind"] == "busy"
    await second
    contents = [m.get("content") for m in fake_llm.requests[1].messages]
    assert "one" in str(contents) and "first" in str(contents)


async def test_two_sessions_run_concurrently(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    # Each call marks itself and waits for the other's mark: they meet only if both sessions'
    # calls run at the same time (one at a time, the first gives up after 10 s with exit 7).
    meet = ('touch "mark-$$"; n=0; while [ "$(ls mark-* | wc -l)" -lt 2 ]; do '
            'n=$((n+1)); [ "$n" -gt 200 ] && exit 7; sleep 0.05; done; echo met')
    fake_llm.script([Reply("", [Call("bash", {"command": meet})]) for _ in range(2)])
    fake_llm.script([Reply("a"), Reply("b")])
    daemon = await openai_daemon(start, fake_llm, workspace)
    results = await asyncio.gather(daemon.run(prompt="1"), daemon.run(prompt="2"))
    outputs = [m["content"] for r in fake_llm.requests for m in r.messages if m["role"] == "tool"]
    assert len(outputs) == 2 and all(o.strip() == "met" for o in outputs), outputs
    assert {r["text"] for r in results} == {"a", "b"}
    assert results[0]["sessionId"] != results[1]["sessionId"]


async def test_settings_precedence(start: StartDaemon, fake_llm: FakeLLM, workspace: Path) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "true"})])] * 3)
    init = {"maxTurns": 1, "model": "from-client", "thinking": "maybe"}
    daemon = await openai_daemon(start, fake_llm, workspace, init=init)
    first = await daemon.run(prompt="x")
    assert first["status"] == "max_turns" and first["turns"] == 1
    run_started = daemon.of_run(first["runId"])[0]
    assert run_started["model"] == "from-client"  # client settings beat HARNESS9_MODEL
    assert run_started["thinking"] is False  # the invalid setting fell back to its default
    assert any("thinking" in m.message for m in daemon.client.messages)
    second = await daemon.run(prompt="x", maxTurns=2, model="from-run")
    assert second["turns"] == 2
    assert daemon.of_run(second["runId"])[0]["model"] == "from-run"
    assert fake_llm.requests[-1].body["model"] == "from-run"


async def test_client_token_gets_standard_progress(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script(TWO_TOOLS)
    daemon = await openai_daemon(start, fake_llm, workspace)
    daemon.client.progress_reports["tok-1"] = []  # a token the client made itself
    await daemon.run(prompt="x", workDoneToken="tok-1")
    reports = daemon.client.progress_reports["tok-1"]
    values: list[Any] = list(reports)
    assert values[0].kind == "begin" and values[0].cancellable is True
    assert values[-1].kind == "end" and values[-1].message == "completed"
    messages = [v.message for v in values[1:-1]]
    assert "turn 1 · read_file: a.txt" in messages
    assert "turn 1 · bash: echo hi" in messages
    assert any(m.startswith("turn 1 · bash ✓") for m in messages)


async def test_server_created_token_and_work_done_cancel(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "sleep 30"})])])
    daemon = await openai_daemon(start, fake_llm, workspace, work_done=True)
    run = asyncio.ensure_future(daemon.run(prompt="x"))
    await daemon.wait_for(lambda n: n["kind"] == "tool_started")
    (token,) = list(daemon.client.progress_reports)
    daemon.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcRequestCancelled):
        await run
    assert daemon.progress[-1]["status"] == "cancelled"
    end: Any = daemon.client.progress_reports[token][-1]
    assert end.message == "cancelled"


async def test_tools_lists_what_the_model_is_offered(start: StartDaemon, workspace: Path) -> None:
    daemon = await start(workspace, env={"HARNESS9_LANGUAGE_SERVERS": "{}"})
    answer = await daemon.request("agent/tools", {})
    tools = answer["tools"]
    assert [t["name"] for t in tools] == ["read_file", "write_file", "edit_file", "bash",
                                          "update_plan", "task"]
    assert [t["kind"] for t in tools] == ["read", "edit", "edit", "execute", "think", "think"]
    assert tools[3]["inputSchema"]["required"] == ["command"]


async def test_cancel_while_the_model_is_thinking(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("too late", first_byte_delay=20), Reply("next")])
    daemon = await openai_daemon(start, fake_llm, workspace)
    run = asyncio.ensure_future(daemon.run(prompt="x"))
    await daemon.wait_for(lambda n: n["kind"] == "turn_started")
    async with asyncio.timeout(10):
        while not fake_llm.requests:
            await asyncio.sleep(0.02)
    session_id = daemon.progress[0]["sessionId"]
    answer = await daemon.request("agent/cancel", {"sessionId": session_id})
    assert dict(answer) == {"cancelled": True}
    with pytest.raises(JsonRpcRequestCancelled):
        await run
    assert daemon.progress[-1]["kind"] == "run_finished"
    assert daemon.progress[-1]["status"] == "cancelled"
    again = await daemon.run(prompt="again", sessionId=session_id)
    assert again["text"] == "next"


async def test_ids_the_model_repeats_are_unique_on_the_wire_and_its_own_in_its_history(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    def echo(word: str) -> Call:
        return Call("bash", {"command": f"echo {word}"}, id="call_0")

    fake_llm.script([Reply("", [echo("a"), echo("b")]), Reply("", [echo("c")]), Reply("one"),
                     Reply("", [echo("d")]), Reply("two")])
    daemon = await openai_daemon(start, fake_llm, workspace)
    first = await daemon.run(prompt="x")
    second = await daemon.run(prompt="y", sessionId=first["sessionId"])
    notes = [*daemon.of_run(first["runId"]), *daemon.of_run(second["runId"])]
    started = [n["toolCallId"] for n in notes if n["kind"] == "tool_started"]
    done = {n["toolCallId"]: n["output"] for n in notes if n["kind"] == "tool_completed"}
    assert sorted(started) == ["call_0", "call_0~2", "call_0~3", "call_0~4"]
    assert [done[i] for i in sorted(started)] == ["a\n", "b\n", "c\n", "d\n"]
    # The model sees the ids it gave, each answered by its own result.
    last = fake_llm.requests[-1].messages
    assert [m["tool_call_id"] for m in last if m["role"] == "tool"] == ["call_0"] * 4
    assert [m["content"] for m in last if m["role"] == "tool"] == ["a\n", "b\n", "c\n", "d\n"]
    assert fake_llm.rejected == []


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_prompt_cache_reads_are_reported(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, provider: str
) -> None:
    fake_llm.script([Reply("", [Call("read_file", {"path": "a.txt"})], usage=(900, 10),
                           cached=0, cache_written=850),
                     Reply("done", usage=(1000, 5), cached=900)])
    daemon = await openai_daemon(start, fake_llm, workspace,
                                 env={"HARNESS9_PROVIDER": provider})
    result = await daemon.run(prompt="read")
    usage = [n for n in daemon.of_run(result["runId"]) if n["kind"] == "usage"]
    assert [n["cachedInputTokens"] for n in usage] == [0, 900]
    assert usage[-1]["totalCachedInputTokens"] == 900
    # Anthropic says what it wrote to the cache too; OpenAI does not.
    written = 850 if provider == "anthropic" else 0
    assert result["usage"] == {"inputTokens": 1900, "outputTokens": 15,
                               "cachedInputTokens": 900, "cacheWriteInputTokens": written}
    marked = "cache_control" in str(fake_llm.requests[-1].body)
    assert marked is (provider == "anthropic")
