"""Case `mcp`: what an MCP server costs, measured on the in-repo edge server (stdio).

- Start-up: a daemon with one server configured answers `initialize` as fast as one without
  (servers start when a run first needs tools); its first run pays the server's start-up
  (reported), its later runs nothing more (floor: the same runs on a daemon without servers).
- Per call: the duration the daemon reports for an MCP tool call (`tool_completed.durationMs`:
  our tool, the SDK's session, the server) over the floor, the same call made directly with the
  SDK from this process to its own instance of the same server.
"""

from __future__ import annotations

import os
from typing import TextIO

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from benchmarks.core import (
    PYTHON,
    REPO,
    Config,
    Row,
    info_row,
    margin_row,
    median,
    now,
)
from benchmarks.daemon import CHECKPOINTS_OFF, NOTES, llm_env, started, workspace
from benchmarks.fake_llm import fake_llm

EDGE = str(REPO / "tests" / "mcp" / "edge_server.py")
SERVERS = {"edge": {"command": PYTHON, "args": [EDGE]}}
CALL_BUDGET_MS = 2.0
INIT_BUDGET_MS = 100.0  # process start-up noise on a busy 2-core machine
LATER_RUN_BUDGET_MS = 5.0
READ = f"bench read {NOTES}"


async def _daemon_times(env: dict[str, str], with_server: bool) -> tuple[float, float, float]:
    """Seconds to start and initialize a daemon, its first run, and the median of its next
    five runs."""
    settings = {**CHECKPOINTS_OFF, **({"mcpServers": SERVERS} if with_server else {})}
    with workspace() as root:
        began = now()
        async with started(env, root, settings=settings) as daemon:
            ready = now() - began
            first = await daemon.run(READ)
            later = [(await daemon.run(READ)).seconds for _ in range(5)]
            if with_server and not first.result["toolCalls"]:
                raise RuntimeError(f"the run did not go as scripted: {first.result}")
    return ready, first.seconds, median(later)


async def start_up(env: dict[str, str], reps: int) -> list[Row]:
    """Rows for `initialize`, the first run and a later run, with and without a server."""
    samples: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
    for _ in range(reps):
        for with_server in (False, True):
            samples[with_server].append(await _daemon_times(env, with_server))

    def part(with_server: bool, index: int) -> float:
        return median([s[index] for s in samples[with_server]]) * 1000

    init = margin_row("mcp: start + initialize, one server configured", part(True, 0),
                      part(False, 0), "ms", INIT_BUDGET_MS)
    first = info_row("mcp: first run (starts the server)", part(True, 1), part(False, 1), "ms")
    first.notes.append(f"start-up added to the first run: {part(True, 1) - part(False, 1):.0f} ms")
    later = margin_row("mcp: later run, server running", part(True, 2), part(False, 2), "ms",
                       LATER_RUN_BUDGET_MS)
    return [init, first, later]


async def per_call(env: dict[str, str], calls: int) -> Row:
    """ms per MCP call inside the daemon over a direct SDK call to the same server."""
    settings = {**CHECKPOINTS_OFF, "mcpServers": SERVERS}
    with workspace() as root:
        async with started(env, root, settings=settings) as daemon:
            await daemon.run("bench mcp mcp__edge__echo 1")  # starts the server
            out = await daemon.run(f"bench mcp mcp__edge__echo {calls}", maxTurns=calls + 1)
            ours = [n.params["durationMs"] for n in out.progress("tool_completed")]
    if len(ours) != calls:
        raise RuntimeError(f"expected {calls} MCP calls, got {len(ours)}")
    floor = await _direct_calls(calls)
    row = margin_row("mcp: per-call overhead", median(ours), median(floor), "ms/call",
                     CALL_BUDGET_MS)
    row.notes.append(f"{calls} calls of edge's echo: daemon {median(ours):.2f} ms, direct SDK "
                     f"call {median(floor):.2f} ms (median)")
    return row


def _devnull() -> TextIO:
    return open(os.devnull, "w")


async def _direct_calls(calls: int) -> list[float]:
    """ms per `echo` call made with the SDK directly, the server started as the daemon starts
    it (the SDK's default environment)."""
    params = StdioServerParameters(command=PYTHON, args=[EDGE])
    times: list[float] = []
    with _devnull() as quiet:
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            await session.call_tool("echo", {"text": "x"})
            for _ in range(calls):
                began = now()
                await session.call_tool("echo", {"text": "x"})
                times.append((now() - began) * 1000)
    return times


async def run(config: Config) -> list[Row]:
    """Start-up rows and the per-call row, against one fake LLM."""
    async with fake_llm() as fake:
        env = llm_env(os.environ, fake.url)
        rows = await start_up(env, config.size(config.reps, 1))
        rows.append(await per_call(env, config.size(100, 10, smoke=3)))
    return rows
