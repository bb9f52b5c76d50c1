"""MCP servers a client gives with `session/new` / `session/load`: started for that session,
their tools offered to it alone, stopped when the agent exits; other kinds said unsupported."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer

from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Reply
from tests.support.processes import alive

pytestmark = pytest.mark.timeout(60)

EDGE = str(Path(__file__).resolve().parents[1] / "mcp" / "edge_server.py")
TIME = McpServerStdio(
    name="time", command=sys.executable,
    args=["-m", "mcp_server_time", "--local-timezone", "UTC"], env=[],
)



def offered(fake: FakeLLM, request: int) -> set[str]:
    """The tool names offered to the model in one request."""
    return {tool["function"]["name"] for tool in fake.requests[request].body["tools"]}


async def test_a_sessions_stdio_servers_serve_that_session_alone(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm))
    web = HttpMcpServer(type="http", name="web", url="http://127.0.0.1:9/mcp", headers=[])
    session = (await agent.conn.new_session(
        cwd=str(workspace), mcp_servers=[TIME, web]
    )).session_id
    call = Call("mcp__time__get_current_time", {"timezone": "UTC"}, id="t")
    fake_llm.script([Reply("", [call]), Reply("it is late")])
    assert (await agent.prompt(session, "what time is it?")).stop_reason == "end_turn"
    assert {"mcp__time__get_current_time", "read_file"} <= offered(fake_llm, 0)
    [result] = [m for m in fake_llm.requests[1].messages if m.get("role") == "tool"]
    assert '"timezone": "UTC"' in result["content"]
    assert agent.client.tool_updates(session, "t")[-1]["status"] == "completed"
    said = agent.client.text(session)
    # An http server is reached, not started: nothing listens at this one, and the user is told.
    assert "MCP server 'web' at http://127.0.0.1:9/mcp" in said
    assert said.endswith("it is late")

    other = await agent.new_session(workspace)
    fake_llm.script([Reply("no clock here")])
    await agent.prompt(other, "and here?")
    assert not any(name.startswith("mcp__") for name in offered(fake_llm, -1))
    assert "not started" not in agent.client.text(other)


async def test_the_sessions_servers_stop_when_the_agent_exits(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    edge = McpServerStdio(name="edge", command=sys.executable, args=[EDGE],
                          env=[EnvVariable(name="EDGE_PID_FILE", value=str(pids))])
    agent = await start(env=openai_env(fake_llm))
    session = (await agent.conn.new_session(cwd=str(workspace), mcp_servers=[edge])).session_id
    fake_llm.script([Reply("", [Call("mcp__edge__echo", {"text": "hi"}, id="e")]),
                     Reply("done")])
    await agent.prompt(session, "echo")
    [pid] = [int(line) for line in pids.read_text().split()]
    assert alive(pid)
    agent.process.stdin.close()
    async with asyncio.timeout(10):
        await agent.process.wait()
        while alive(pid):
            await asyncio.sleep(0.05)


async def test_a_session_loaded_again_starts_the_servers_it_is_given_now(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    fake_llm.script([Reply("no tools yet")])
    await agent.prompt(session, "one")
    assert not any(name.startswith("mcp__") for name in offered(fake_llm, -1))
    await agent.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[TIME])
    fake_llm.script([Reply("a clock now")])
    await agent.prompt(session, "two")
    assert "mcp__time__convert_time" in offered(fake_llm, -1)


async def test_a_server_that_fails_to_start_is_told_and_the_turn_goes_on(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    broken = McpServerStdio(name="broken", command=sys.executable, args=[EDGE, "fail-start"],
                            env=[])
    agent = await start(env=openai_env(fake_llm))
    session = (await agent.conn.new_session(
        cwd=str(workspace), mcp_servers=[broken]
    )).session_id
    fake_llm.script([Reply("fine without it")])
    assert (await agent.prompt(session, "go")).stop_reason == "end_turn"
    said = agent.client.text(session)
    assert said.startswith("⚠ harness9: ") and "broken" in said
    assert said.endswith("fine without it")


def test_servers_become_configs_and_repeats_notes() -> None:
    from harness9.acp.session_mcp import session_servers

    env = [EnvVariable(name="B", value="2"), EnvVariable(name="A", value="1")]
    first = McpServerStdio(name="s", command="/bin/s", args=["-x"], env=env)
    again = McpServerStdio(name="s", command="/bin/other", args=[], env=[])
    sse = SseMcpServer(type="sse", name="feed", url="http://127.0.0.1:9/sse", headers=[])
    web = HttpMcpServer(type="http", name="web", url="https://mcp.example/mcp",
                        headers=[HttpHeader(name="Authorization", value="Bearer t")])
    servers = session_servers([first, again, sse, web])
    config, feed, remote = servers.configs
    assert (config.name, config.command, config.args) == ("s", "/bin/s", ("-x",))
    assert config.env == (("A", "1"), ("B", "2"))
    assert (feed.transport, feed.url) == ("sse", "http://127.0.0.1:9/sse")
    assert (remote.transport, remote.headers) == ("http", (("Authorization", "Bearer t"),))
    assert servers.notes == ("MCP server 's' is given twice; the second one is not started",)
    assert session_servers(None) == session_servers([])
