"""Two daemons on one state folder (two windows on a workspace): a session one of them runs is
neither run nor deleted by the other, from the moment its `agent/run` came in to its answer;
an idle session goes from one to the other and loses nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.raw import RawDaemon, Spawn, spawn
from tests.fakellm import Call, FakeLLM, Reply

__all__ = ["spawn"]  # the fixture
pytestmark = pytest.mark.timeout(60)
BUSY = -32803


def raw_daemon(spawn: Spawn, fake: FakeLLM, root: Path) -> RawDaemon:
    """A daemon whose client says it shows work-done progress (so a run asks it for a token
    before it starts, and the test decides when to answer)."""
    daemon = spawn({**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"})
    daemon.send({"id": 1, "method": "initialize", "params": {
        "capabilities": {"window": {"workDoneProgress": True}}, "rootUri": root.as_uri()}})
    daemon.until_id(1)
    daemon.send({"method": "initialized", "params": {}})
    return daemon


def request(daemon: RawDaemon, msg_id: int, method: str, params: dict[str, Any]) -> Any:
    """Send a request and wait for its answer (the result, or the error object)."""
    daemon.send({"id": msg_id, "method": method, "params": params})
    _, answer = daemon.until_id(msg_id)
    return answer.get("result", answer.get("error"))


def users(fake: FakeLLM) -> list[str]:
    return [m["content"] for m in fake.requests[-1].messages if m["role"] == "user"]


def test_a_session_is_not_deleted_while_another_daemon_starts_a_run_on_it(
    spawn: Spawn, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("first"), Reply("second"), Reply("third")])
    one, two = raw_daemon(spawn, fake_llm, workspace), raw_daemon(spawn, fake_llm, workspace)
    first = request(one, 2, "agent/run", {"prompt": "hello", "workDoneToken": "t"})
    session_id = first["sessionId"]
    one.send({"id": 3, "method": "agent/run", "params": {"prompt": "more",
                                                         "sessionId": session_id}})
    create = one.receive()  # the run waits for its token: it has begun, not yet started
    assert create["method"] == "window/workDoneProgress/create"

    refused = request(two, 2, "agent/deleteSession", {"sessionId": session_id})
    assert refused["code"] == BUSY and refused["data"]["kind"] == "busy", refused
    assert "in use by another harness9 daemon" in refused["message"]

    one.send({"id": create["id"], "result": None})
    _, answer = one.until_id(3)
    assert answer["result"]["text"] == "second" and users(fake_llm) == ["hello", "more"]
    # Idle now: the other daemon continues it with every turn, then may delete it.
    assert request(two, 3, "agent/run", {"prompt": "again",
                                         "sessionId": session_id})["text"] == "third"
    assert users(fake_llm) == ["hello", "more", "again"]
    assert request(two, 4, "agent/deleteSession", {"sessionId": session_id}) == {
        "deleted": True}
    assert request(one, 4, "agent/sessions", {}) == {"sessions": []}


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    return await start(root, env=env)


async def test_a_new_session_is_not_deleted_during_its_first_turn(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "sleep 1"})]), Reply("done")])
    one = await daemon_on(start, fake_llm, workspace)
    two = await daemon_on(start, fake_llm, workspace)
    running = asyncio.ensure_future(one.run(prompt="hello"))
    await one.wait_for(lambda p: p["kind"] == "tool_started")
    session_id = one.progress[-1]["sessionId"]
    for method, params in [("agent/deleteSession", {"sessionId": session_id}),
                           ("agent/run", {"prompt": "x", "sessionId": session_id})]:
        with pytest.raises(JsonRpcException) as busy:
            await two.request(method, params)
        assert busy.value.code == BUSY and busy.value.data["kind"] == "busy", method
    assert (await running)["text"] == "done"
    shown = await two.request("agent/session", {"sessionId": session_id})
    *_, called, result, answer = shown["messages"]
    assert result["toolCallId"] == called["toolCalls"][0]["id"] and answer["content"] == "done"
