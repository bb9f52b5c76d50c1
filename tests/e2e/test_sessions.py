"""Sessions that last, through the daemon: a SIGKILLed daemon loses only the turn in flight, a
new daemon resumes the session, two daemons never share one, and the session methods' wire."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from harness9.service.state import workspace_key
from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Hang, Reply

pytestmark = pytest.mark.timeout(60)


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    return await start(root, env=env)


def bash(command: str, call_id: str) -> Reply:
    return Reply("", [Call("bash", {"command": command}, id=call_id)])


async def test_a_killed_daemon_loses_only_the_turn_in_flight(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([bash("echo one", "c1"), bash("echo two", "c2"), Hang()])
    first = await daemon_on(start, fake_llm, workspace)
    running = asyncio.ensure_future(first.run(prompt="work"))
    await first.wait_for(lambda n: n["kind"] == "turn_started" and n["turn"] == 3)
    async with asyncio.timeout(20):  # the third request is in flight (it took the Hang step)
        while len(fake_llm.requests) < 3:
            await asyncio.sleep(0.02)
    session_id = first.progress[-1]["sessionId"]
    first.client._server.kill()  # type: ignore[union-attr]  # SIGKILL, mid-turn
    done, _ = await asyncio.wait({running}, timeout=10)
    assert done and running.exception() is not None  # the request died with the daemon

    second = await daemon_on(start, fake_llm, workspace)
    listed = (await second.request("agent/sessions", {}))["sessions"]
    assert [(s["sessionId"], s["title"]) for s in listed] == [(session_id, "work")]
    shown = await second.request("agent/session", {"sessionId": session_id})
    messages = shown["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user",
                                             "assistant", "user"]
    assert [m.get("toolCallId") for m in messages[3::2]] == ["c1", "c2"]
    assert "one" in messages[3]["content"] and "two" in messages[5]["content"]
    assert messages[2]["toolCalls"][0]["kind"] == "execute"  # the kind bash declares

    fake_llm.script([Reply("resumed")])
    answer = await second.run(prompt="go on", sessionId=session_id)
    assert answer["text"] == "resumed" and answer["sessionId"] == session_id
    sent = fake_llm.requests[-1].messages
    assert len(sent) == 7 and sent[-1]["content"] == "go on"
    shown = await second.request("agent/session", {"sessionId": session_id})
    assert [r["prompt"] for r in shown["runs"]] == ["go on"]  # the killed run never ended
    assert shown["runs"][0]["status"] == "completed"


async def test_two_daemons_take_turns_on_a_session(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    # Two windows on one workspace (or a window whose old daemon lives on): a session is
    # refused to the other daemon only while a run uses it, and each sees the other's turns.
    fake_llm.script([Reply("first"), Reply("second", first_byte_delay=1.5)])
    one = await daemon_on(start, fake_llm, workspace)
    two = await daemon_on(start, fake_llm, workspace)
    session_id = (await one.run(prompt="hello"))["sessionId"]
    running = asyncio.create_task(one.run(prompt="more", sessionId=session_id))
    while fake_llm.requests[-1].messages[-1]["content"] != "more":
        await asyncio.sleep(0.02)
    for method, params in [("agent/run", {"prompt": "x", "sessionId": session_id}),
                           ("agent/deleteSession", {"sessionId": session_id})]:
        with pytest.raises(JsonRpcException) as busy:
            await two.request(method, params)
        assert busy.value.code == -32803 and busy.value.data["kind"] == "busy"
        assert "in use by another harness9 daemon" in busy.value.message
    # Reading is allowed meanwhile.
    shown = await two.request("agent/session", {"sessionId": session_id})
    assert shown["messages"][-1]["content"] == "first"
    assert (await running)["text"] == "second"

    fake_llm.script([Reply("third"), Reply("fourth")])
    assert (await two.run(prompt="from two", sessionId=session_id))["text"] == "third"
    assert (await one.run(prompt="back in one", sessionId=session_id))["text"] == "fourth"
    users = [m["content"] for m in fake_llm.requests[-1].messages if m["role"] == "user"]
    assert users[-4:] == ["hello", "more", "from two", "back in one"]
    shown = await one.request("agent/session", {"sessionId": session_id})
    assert [r["prompt"] for r in shown["runs"]] == ["hello", "more", "from two", "back in one"]


async def test_session_methods_on_the_wire(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("one " * 300, usage=(120, 40)), Reply("two", usage=(150, 2)),
                     Reply("a short summary")])
    daemon = await daemon_on(start, fake_llm, workspace)
    first = await daemon.run(prompt="first prompt\nsecond line", contextWindow=50_000)
    usage = [n for n in daemon.of_run(first["runId"]) if n["kind"] == "usage"]
    assert (usage[0]["contextTokens"], usage[0]["contextWindow"]) == (120, 50_000)
    sid = first["sessionId"]
    await daemon.run(prompt="second", sessionId=sid)
    listed = (await daemon.request("agent/sessions", {"workspaceFolder": workspace.as_uri()}))
    entry = listed["sessions"][0]
    assert entry["sessionId"] == sid and entry["title"] == "first prompt"
    assert (entry["runs"], entry["turns"], entry["contextTokens"]) == (2, 2, 150)
    assert entry["usage"] == {"inputTokens": 270, "outputTokens": 42}
    assert entry["workspaceRoot"] == str(workspace) and entry["updatedAt"].endswith("Z")
    shown = await daemon.request("agent/session", {"sessionId": sid})
    assert [r["status"] for r in shown["runs"]] == ["completed", "completed"]
    assert shown["title"] == "first prompt"

    compacted = await daemon.request("agent/compact", {"sessionId": sid})
    assert compacted["method"] == "summary"
    assert compacted["afterTokens"] < compacted["beforeTokens"]
    assert not fake_llm.requests[-1].has_tools

    assert await daemon.request("agent/deleteSession", {"sessionId": sid}) == {"deleted": True}
    assert await daemon.request("agent/deleteSession", {"sessionId": sid}) == {"deleted": False}
    assert (await daemon.request("agent/sessions", {}))["sessions"] == []
    for method, params, field in [
        ("agent/session", {}, "sessionId"),
        ("agent/session", {"sessionId": sid}, "sessionId"),
        ("agent/compact", {"sessionId": 7}, "sessionId"),
        ("agent/sessions", {"workspaceFolder": "/not/a/folder"}, "workspaceFolder"),
        ("agent/run", {"prompt": "x", "compactAt": 1.5}, "compactAt"),
    ]:
        with pytest.raises(JsonRpcException) as bad:
            await daemon.request(method, params)
        assert bad.value.code == -32602 and field in str(bad.value), (method, bad.value)


async def test_a_five_thousand_message_session_loads_and_continues(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    session_id = "s-0123456789ab"
    folder = Path(os.environ["HARNESS9_STATE_DIR"]) / "sessions" / workspace_key(str(workspace))
    folder.mkdir(parents=True)
    lines = [{"type": "message", "message": {"role": "system", "content": "sys"}}]
    for i in range(2_499):
        lines.append({"type": "message", "message": {"role": "user", "content": f"q{i}"}})
        lines.append({"type": "message", "message": {"role": "assistant", "content": f"a{i}"}})
    (folder / f"{session_id}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines) + "garbage\n")
    meta = {"session_id": session_id, "workspace_root": str(workspace), "title": "big",
            "created_at": time.time(), "updated_at": time.time()}
    (folder / f"{session_id}.meta.json").write_text(json.dumps(meta))
    daemon = await daemon_on(start, fake_llm, workspace)
    shown: dict[str, Any] = await daemon.request("agent/session", {"sessionId": session_id})
    assert len(shown["messages"]) == 4_999 and shown["skippedLines"] == 1
    fake_llm.script([Reply("still here")])
    answer = await daemon.run(prompt="next", sessionId=session_id, contextWindow=1_000_000)
    assert answer["text"] == "still here"
    assert len(fake_llm.requests[-1].messages) == 5_000


async def test_a_session_is_reachable_only_from_a_client_of_its_workspace(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.script([bash("echo changed > a.txt", "c1"), Reply("done")])
    one = await daemon_on(start, fake_llm, workspace)
    first = await one.run(prompt="go")
    sid = first["sessionId"]
    checkpoint = next(n["checkpointId"] for n in one.of_run(first["runId"])
                      if n["kind"] == "checkpoint")
    await one.client.shutdown_session()  # the session is free to be taken by another daemon
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = await daemon_on(start, fake_llm, elsewhere)
    for method, params in [
        ("agent/restore", {"sessionId": sid, "checkpointId": checkpoint}),
        ("agent/run", {"prompt": "x", "sessionId": sid}),
        ("agent/checkpoints", {"sessionId": sid}),
        ("agent/session", {"sessionId": sid}),
        ("agent/compact", {"sessionId": sid}),
        ("agent/deleteSession", {"sessionId": sid}),
    ]:
        with pytest.raises(JsonRpcException) as refused:
            await other.request(method, params)
        assert refused.value.code == -32602, method
        assert "sessionId" in str(refused.value) and str(workspace) in str(refused.value)
    assert (workspace / "a.txt").read_text() == "changed\n"  # not restored from elsewhere
    around = await start(workspace.parent, env={**fake_llm.env(), "HARNESS9_PROVIDER": "openai"},
                         folders=[elsewhere, workspace])
    shown = await around.request("agent/session", {"sessionId": sid})  # a client of both
    assert shown["sessionId"] == sid


async def test_usage_carries_what_the_run_cost_and_the_run_record_keeps_it(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "true"}, id="c1")], usage=(10_000, 1_000)),
                     Reply("done", usage=(20_000, 500))])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "anthropic",
           "HARNESS9_MODEL": "claude-sonnet-4-5"}
    daemon = await start(workspace, env=env)
    first = await daemon.run(prompt="go")
    costs = [n["costUsd"] for n in daemon.of_run(first["runId"]) if n["kind"] == "usage"]
    # Claude Sonnet: $3 in, $15 out per million tokens; the second is the run's total so far.
    assert costs == [pytest.approx(0.045), pytest.approx(0.045 + 0.0675)]
    # A price the user sets wins over the table; a model without one shows no cost.
    fake_llm.script([Reply("cheap", usage=(1_000_000, 0)), Reply("free", usage=(5, 5))])
    daemon.change_configuration({"harness9": {"prices": {"claude-sonnet": {
        "input": 1, "output": 1}}}})
    cheap = await daemon.run(prompt="again", sessionId=first["sessionId"])
    assert [n["costUsd"] for n in daemon.of_run(cheap["runId"])
            if n["kind"] == "usage"] == [pytest.approx(1.0)]
    unknown = await daemon.run(prompt="x", model="my-local-model")
    assert all("costUsd" not in n for n in daemon.of_run(unknown["runId"]))
    shown = await daemon.request("agent/session", {"sessionId": first["sessionId"]})
    assert [r.get("costUsd") for r in shown["runs"]] == [pytest.approx(0.1125),
                                                          pytest.approx(1.0)]


async def test_a_cost_never_goes_out_as_infinity(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    """An infinite price is refused naming the setting; prices so high that the sum overflows
    give no cost. JSON has no Infinity: a client's parser may refuse the whole message."""
    fake_llm.script([Reply("one", usage=(10_000_000, 10_000_000)),
                     Reply("two", usage=(10_000_000, 10_000_000))])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "my-model"}
    daemon = await start(workspace, env=env, init={"prices": {"my-model": {
        "input": float("inf"), "output": 1}}})
    refused = await daemon.run(prompt="go")
    assert any("prices: my-model.input must be a finite number" in m.message
               for m in daemon.client.messages)
    daemon.change_configuration({"harness9": {"prices": {"my-model": {
        "input": 1e308, "output": 1e308}}}})
    overflowed = await daemon.run(prompt="again", sessionId=refused["sessionId"])
    for run in (refused, overflowed):
        usage = [n for n in daemon.of_run(run["runId"]) if n["kind"] == "usage"]
        assert usage and all("costUsd" not in n for n in usage), usage
    shown = await daemon.request("agent/session", {"sessionId": refused["sessionId"]})
    assert all("costUsd" not in r for r in shown["runs"])
