"""MCP tools through the daemon, with real servers: `mcp-server-time` (PyPI) and the in-repo
edge-case server (tests/mcp/edge_server.py) as subprocesses."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcRequestCancelled

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Reply
from tests.support.processes import alive

pytestmark = pytest.mark.timeout(60)

EDGE = str(Path(__file__).resolve().parents[1] / "mcp" / "edge_server.py")
TIME = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}


def edge(*args: str, **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [EDGE, *args], **extra}


async def daemon_for(
    start: StartDaemon, fake: FakeLLM, root: Path, servers: dict[str, Any], **kw: Any
) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    env.update(kw.pop("env", {}))
    init = {"mcpServers": servers, **kw.pop("init", {})}
    return await start(root, env=env, init=init, **kw)


def tool_results(fake: FakeLLM, request: int = -1) -> dict[str, str]:
    messages = fake.requests[request].messages
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def finished(daemon: Daemon, run_id: str) -> dict[str, dict[str, Any]]:
    return {
        n["toolCallId"]: n for n in daemon.of_run(run_id)
        if n["kind"] in ("tool_completed", "tool_failed")
    }


def warnings(daemon: Daemon) -> list[str]:
    return [m.message for m in daemon.client.messages]


async def test_agent_tools_lists_the_servers_tools_without_starting_them_at_initialize(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    servers = {"time": TIME, "edge": edge(env={"EDGE_PID_FILE": str(pids)})}
    daemon = await daemon_for(start, fake_llm, workspace, servers)
    await asyncio.sleep(0.5)
    assert not pids.exists()  # not at initialize
    listed = (await daemon.request("agent/tools", {}))["tools"]
    names = [t["name"] for t in listed]
    assert names[:4] == ["read_file", "write_file", "edit_file", "bash"]
    assert {"mcp__time__get_current_time", "mcp__time__convert_time", "mcp__edge__echo",
            "mcp__edge__sleep"} <= set(names)
    by_name = {t["name"]: t for t in listed}
    assert by_name["mcp__time__convert_time"]["server"] == "time"
    assert by_name["mcp__time__convert_time"]["inputSchema"]["required"] == [
        "source_timezone", "time", "target_timezone"]
    assert "server" not in by_name["bash"]
    assert (by_name["mcp__edge__echo"]["kind"], by_name["bash"]["kind"]) == ("other", "execute")
    assert len(pids.read_text().split()) == 1
    await daemon.request("agent/tools", {})
    assert len(pids.read_text().split()) == 1  # kept for the daemon's life


async def test_the_model_calls_an_mcp_tool_in_parallel_with_a_built_in_one(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply(tool_calls=[
            Call("mcp__time__get_current_time", {"timezone": "Europe/Paris"}, id="t"),
            Call("read_file", {"path": "a.txt"}, id="r"),
            Call("mcp__edge__add", {"a": 2, "b": "three"}, id="bad"),
        ]),
        Reply("done"),
    ])
    daemon = await daemon_for(start, fake_llm, workspace, {"time": TIME, "edge": edge()})
    result = await daemon.run(prompt="what time is it in Paris?")
    assert result["status"] == "completed"
    offered = [t["function"]["name"] for t in fake_llm.requests[0].body["tools"]]
    assert "mcp__time__get_current_time" in offered
    outputs = tool_results(fake_llm)
    assert json.loads(outputs["t"])["timezone"] == "Europe/Paris"
    assert outputs["r"] == "alpha\n"
    assert "argument 'b' of 'mcp__edge__add' must be of type integer" in outputs["bad"]
    notes = finished(daemon, result["runId"])
    assert notes["t"]["kind"] == "tool_completed"
    assert notes["bad"]["reason"] == "bad_arguments"


async def test_mcp_tools_ask_first_by_default(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply(tool_calls=[Call("mcp__edge__echo", {"text": "hi"}, id="e")]),
                     Reply("done")])
    daemon = await daemon_for(start, fake_llm, workspace, {"edge": edge()},
                              env={"HARNESS9_APPROVALS": "ask"})
    result = await daemon.run(prompt="echo")  # the test client answers no question: rejected
    notes = finished(daemon, result["runId"])
    assert notes["e"]["reason"] == "rejected"
    requested = [n for n in daemon.of_run(result["runId"]) if n["kind"] == "approval_requested"]
    assert [(n["tool"], n["toolKind"]) for n in requested] == [("mcp__edge__echo", "other")]


async def test_errors_timeouts_big_results_and_images(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply(tool_calls=[
            Call("mcp__edge__fail", {"reason": "the disk is full"}, id="fail"),
            Call("mcp__edge__sleep", {"seconds": 30}, id="hang"),
            Call("mcp__edge__big", {"size": 1_000_000}, id="big"),
            Call("mcp__edge__picture", {}, id="pic"),
        ]),
        Reply("done"),
    ])
    servers = {"edge": edge(toolTimeoutMs=1500)}
    daemon = await daemon_for(start, fake_llm, workspace, servers)
    started = time.monotonic()
    result = await daemon.run(prompt="edge cases")
    assert time.monotonic() - started < 15
    outputs = tool_results(fake_llm)
    notes = finished(daemon, result["runId"])
    assert outputs["fail"] == "Error: mcp__edge__fail failed: Error executing tool fail: " \
                              "the disk is full"
    assert notes["fail"]["reason"] == "error"
    assert notes["hang"]["reason"] == "timeout"
    assert outputs["hang"].startswith("Error: mcp__edge__sleep did not answer within 1.5 s")
    assert notes["big"]["truncated"] is True and notes["big"]["bytes"] == 1_000_000
    assert len(outputs["big"].encode()) < 8200
    assert "[output truncated: 1000000 bytes in total" in outputs["big"]
    assert outputs["pic"].startswith("[image content (image/png, about ")
    assert outputs["pic"].endswith("not shown: only text reaches the model]")


async def test_a_server_that_crashes_mid_call_is_restarted_once(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    fake_llm.script([
        Reply(tool_calls=[Call("mcp__edge__crash", {}, id="c1")]),
        Reply(tool_calls=[Call("mcp__edge__echo", {"text": "back"}, id="e1")]),
        Reply(tool_calls=[Call("mcp__edge__crash", {}, id="c2")]),
        Reply(tool_calls=[Call("mcp__edge__echo", {"text": "again"}, id="e2")]),
        Reply("done"),
    ])
    servers = {"edge": edge(env={"EDGE_PID_FILE": str(pids)})}
    daemon = await daemon_for(start, fake_llm, workspace, servers)
    result = await daemon.run(prompt="crash it")
    outputs = tool_results(fake_llm)
    assert outputs["c1"].startswith("Error: mcp__edge__crash failed: MCP server 'edge': it "
                                    "stopped during the call")
    assert outputs["e1"] == "back"
    assert outputs["c2"].startswith("Error: mcp__edge__crash failed:")
    assert "stopped again after a restart; its tools are left out" in outputs["e2"]
    assert len(pids.read_text().split()) == 2  # started, restarted once, not again
    assert finished(daemon, result["runId"])["e2"]["reason"] == "error"
    shown = warnings(daemon)
    assert any("'edge' stopped; restarting it once" in m for m in shown)
    assert any("stopped again after a restart" in m for m in shown)


async def test_a_server_that_never_starts_is_reported_and_the_run_goes_on(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("fine without it")])
    servers = {"broken": edge("fail-start"), "missing": {"command": "/nonexistent/mcp"},
               "off": edge(enabled=False), "time": TIME}
    daemon = await daemon_for(start, fake_llm, workspace, servers)
    result = await daemon.run(prompt="hello")
    assert result["text"] == "fine without it"
    offered = [t["function"]["name"] for t in fake_llm.requests[0].body["tools"]]
    assert [n for n in offered if n.startswith("mcp__")] == [
        "mcp__time__get_current_time", "mcp__time__convert_time"]
    shown = warnings(daemon)
    broken = next(m for m in shown if "'broken'" in m)
    assert "it exited before completing the MCP handshake" in broken
    assert "edge: cannot open the database at /nonexistent/db" in broken  # its stderr tail
    assert any("'missing'" in m and "/nonexistent/mcp" in m for m in shown)
    assert not any("'off'" in m for m in shown)


async def test_cancel_during_an_mcp_call(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply(tool_calls=[Call("mcp__edge__sleep", {"seconds": 30}, id="s")]),
                     Reply(tool_calls=[Call("mcp__edge__echo", {"text": "still here"})]),
                     Reply("done")])
    daemon = await daemon_for(start, fake_llm, workspace, {"edge": edge()})
    run = asyncio.ensure_future(daemon.run(prompt="sleep"))
    await daemon.wait_for(lambda n: n["kind"] == "tool_started")
    session_id = daemon.progress[0]["sessionId"]
    started = time.monotonic()
    assert await daemon.request("agent/cancel", {"sessionId": session_id}) == {"cancelled": True}
    assert time.monotonic() - started < 5
    with pytest.raises(JsonRpcRequestCancelled):
        await run
    notes = [n for n in daemon.progress if n["kind"] == "tool_failed"]
    assert [n["reason"] for n in notes] == ["cancelled"]
    again = await daemon.run(prompt="echo", sessionId=session_id)  # the server still serves
    assert again["status"] == "completed"
    assert list(tool_results(fake_llm).values())[-1] == "still here"


async def test_shutdown_leaves_no_mcp_process(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    lingering = {"EDGE_PID_FILE": str(pids), "EDGE_LINGER": "1"}  # survives its stdin closing
    servers = {"a": edge(env=lingering), "b": edge(env=lingering)}
    daemon = await daemon_for(start, fake_llm, workspace, servers)
    await daemon.request("agent/tools", {})
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2 and all(alive(p) for p in started)
    await daemon.request("shutdown", None)  # stopped when `shutdown` is answered, before `exit`
    assert not any(alive(p) for p in started)
    daemon.client.protocol.notify("exit", None)


async def test_a_killed_daemon_leaves_no_mcp_process(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    lingering = {"EDGE_PID_FILE": str(pids), "EDGE_LINGER": "1"}  # survives its stdin closing
    daemon = await daemon_for(start, fake_llm, workspace, {"a": edge(env=lingering)})
    await daemon.request("agent/tools", {})
    (pid,) = [int(p) for p in pids.read_text().split()]
    server = daemon.client._server  # the daemon's subprocess, as pytest-lsp started it
    assert server is not None
    server.kill()
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not alive(pid)
