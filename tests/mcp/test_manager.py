"""The MCP manager in-process, with the edge server as a real subprocess: names, clashes,
configuration changes."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from harness9.mcp.manager import McpManager
from harness9.mcp.server_config import McpServerConfig, parse_mcp_servers
from harness9.mcp.tool import tool_name
from harness9.process.sandbox import Mechanism, availability
from harness9.schema import ToolError
from tests.support.processes import alive

pytestmark = pytest.mark.timeout(60)

EDGE = str(Path(__file__).resolve().parent / "edge_server.py")


def edge(name: str, **extra: object) -> McpServerConfig:
    (config,) = parse_mcp_servers({name: {"command": sys.executable, "args": [EDGE], **extra}})
    return config


def test_names_fit_what_both_providers_accept() -> None:
    assert tool_name("time", "get_current_time") == "mcp__time__get_current_time"
    assert tool_name("my.server", "do it/now") == "mcp__my_server__do_it_now"
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long.startswith("mcp__" + "s" * 40)
    assert long != tool_name("s" * 40, "t" * 41)  # the hash keeps shortened names apart


def test_bad_settings_name_the_part() -> None:
    cases = [
        ([], "must be an object"),
        ({"a": {"args": []}}, "a.command must be a non-empty string"),
        ({"a": {"command": "x", "args": "y"}}, "a.args must be a list of strings"),
        ({"a": {"command": "x", "env": {"K": 1}}}, "a.env must be an object of strings"),
        ({"a": {"command": "x", "enabled": "no"}}, "a.enabled must be true or false"),
        ({"a": {"command": "x", "toolTimeoutMs": 0}}, "a.toolTimeoutMs must be an integer"),
        ({"a": {"command": "x", "cwd": "/"}}, "a: unknown key 'cwd'"),
    ]
    for value, expected in cases:
        with pytest.raises(TypeError, match=expected.replace(".", r"\.")):
            parse_mcp_servers(value)


async def test_a_clash_is_reported_and_the_later_tool_left_out() -> None:
    manager = McpManager()
    warnings: list[str] = []
    try:
        tools = await manager.tools([edge("e.x"), edge("e_x")], warnings.append)
        names = [t.name for t in tools]
        assert names.count("mcp__e_x__echo") == 1
        assert next(t for t in tools if t.name == "mcp__e_x__echo").server == "e.x"
        assert ("MCP tool 'echo' of server 'e_x' is left out: its name mcp__e_x__echo clashes "
                "with tool 'echo' of server 'e.x'") in warnings
    finally:
        await manager.shutdown()


async def test_a_changed_entry_restarts_its_server_and_a_removed_one_stops() -> None:
    manager = McpManager()
    try:
        first = await manager.tools([edge("a")], print)
        assert {t.server for t in first} == {"a"}
        connection = manager._servers["a"].connection
        assert connection is not None and connection.running
        changed = await manager.tools([edge("a", env={"X": "1"})], print)
        assert connection.closed.is_set() and changed
        assert await manager.tools([], print) == []
        assert manager._servers == {}
    finally:
        await manager.shutdown()


async def test_a_sessions_own_servers_serve_it_alone_after_the_shared_ones() -> None:
    from harness9.service.background import Background
    from harness9.service.config.settings import RunSettings
    from harness9.service.runs.mcp_servers import McpServers

    servers = McpServers(lambda _: False, Background())
    settings = RunSettings(mcp_servers=(edge("shared"), edge("same")))
    warnings: list[str] = []
    try:
        own = (edge("same"), edge("mine"))
        tools = await servers.tools(settings, warnings.append, ("s-1", own))
        named = [getattr(t, "server", None) for t in tools if t.name.endswith("__echo")]
        assert named == ["shared", "same", "mine"]  # the session's `same` left out
        assert any("server 'same' is left out" in w for w in warnings)
        other = await servers.tools(settings, warnings.append, ("s-2", ()))
        assert {getattr(t, "server", None) for t in other} == {"shared", "same"}
    finally:
        await servers.shutdown()


async def test_sessions_left_idle_give_their_servers_back_and_get_them_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from harness9.service.background import Background
    from harness9.service.config.settings import RunSettings
    from harness9.service.runs import mcp_servers

    monkeypatch.setattr(mcp_servers, "SESSION_SERVERS_KEPT", 1)
    servers = mcp_servers.McpServers(lambda _: False, Background())
    pids = tmp_path / "pids"
    own = (edge("e", env={"EDGE_PID_FILE": str(pids)}),)

    def started() -> list[int]:
        return [int(line) for line in pids.read_text().split()]

    try:
        assert await servers.tools(RunSettings(), print, ("s-1", own))
        [first] = started()
        assert await servers.tools(RunSettings(), print, ("s-2", own))
        async with asyncio.timeout(10):
            while alive(first):  # s-1 is the least recently used beyond the one kept
                await asyncio.sleep(0.05)
        assert await servers.tools(RunSettings(), print, ("s-1", own))
        assert len(started()) == 3 and alive(started()[-1])
    finally:
        await servers.shutdown()


@pytest.mark.skipif(availability().mechanism is not Mechanism.BWRAP,
                    reason="bubblewrap does not work here")
async def test_a_sandboxed_server_writes_only_where_it_may(tmp_path: Path) -> None:
    allowed, elsewhere = tmp_path / "allowed", tmp_path / "elsewhere"
    allowed.mkdir()
    elsewhere.mkdir()
    manager = McpManager()
    warnings: list[str] = []
    configs = [edge("boxed", sandbox={"writableRoots": [str(allowed)]}), edge("free")]
    try:
        tools = {t.name: t for t in await manager.tools(configs, warnings.append)}
        assert warnings == []

        async def write(tool: str, path: Path) -> str:
            output = await tools[tool].execute(f'{{"path": "{path}", "text": "x"}}')
            return output if isinstance(output, str) else output.text

        assert "wrote" in await write("mcp__boxed__write", allowed / "a")
        with pytest.raises(ToolError, match="mcp__boxed__write failed"):
            await write("mcp__boxed__write", elsewhere / "b")
        assert "wrote" in await write("mcp__free__write", elsewhere / "c")
        assert sorted(p.name for p in elsewhere.iterdir()) == ["c"]
        assert (allowed / "a").read_text() == "x"
    finally:
        await manager.shutdown()


def test_the_sandbox_entry_is_validated() -> None:
    for value, expected in [("yes", "e.sandbox must be true, false or"),
                            ({"net": True}, "e.sandbox must be true, false or"),
                            ({"network": "no"}, "e.sandbox.network must be true or false"),
                            ({"writableRoots": "/x"}, "e.sandbox.writableRoots must be a list")]:
        with pytest.raises(TypeError, match=expected.replace(".", r"\.")):
            parse_mcp_servers({"e": {"command": "x", "sandbox": value}})
    (boxed,) = parse_mcp_servers({"e": {"command": "x", "sandbox": True}})
    assert boxed.sandbox is not None and not boxed.sandbox.network


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(("transport", "path"), [("http", "/mcp"), ("sse", "/sse")])
async def test_a_server_over_http_is_reached_with_its_headers(transport: str, path: str) -> None:
    port = _free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, EDGE, transport, str(port), stderr=asyncio.subprocess.DEVNULL)
    try:
        async with asyncio.timeout(20):  # until it listens
            while True:
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                    writer.close()
                    break
                except OSError:
                    await asyncio.sleep(0.05)
        url = f"http://127.0.0.1:{port}{path}"
        (good,) = parse_mcp_servers({"web": {"type": transport, "url": url, "headers": {
            "Authorization": "Bearer edge-token"}}})
        (refused,) = parse_mcp_servers({"nokey": {"type": transport, "url": url}})
        manager = McpManager()
        warnings: list[str] = []
        try:
            tools = {t.name: t for t in await manager.tools([good, refused], warnings.append)}
            output = await tools["mcp__web__add"].execute('{"a": 2, "b": 3}')
            assert "5" in str(output)
            assert not any(name.startswith("mcp__nokey__") for name in tools)
            assert any("nokey" in w and url in w for w in warnings), warnings
        finally:
            await manager.shutdown()
    finally:
        process.terminate()
        await process.wait()


def test_http_settings_name_the_bad_part() -> None:
    cases = [
        ({"w": {"type": "http"}}, "w.url must be an http:// or https:// URL"),
        ({"w": {"url": "ftp://x"}}, "w.url must be an http:// or https:// URL"),
        ({"w": {"type": "ws", "url": "http://x"}}, "w.type must be one of stdio, http, sse"),
        ({"w": {"url": "http://x", "command": "y"}}, "w: unknown key 'command'"),
        ({"w": {"url": "http://x", "headers": {"A": 1}}}, "w.headers must be an object"),
    ]
    for value, expected in cases:
        with pytest.raises(TypeError, match=expected.replace(".", r"\.")):
            parse_mcp_servers(value)
