"""`$/progress` reports of a run: held while the client lags, only the newest sent after."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from pygls.lsp.server import LanguageServer

from harness9.engine.events import ChildEvent, ToolFinished, ToolStarted
from harness9.lsp.workdone import WorkDoneProgress
from harness9.schema import ProcessExit, ToolCall, ToolKind, ToolResult


class Collect:
    """A pygls writer that keeps the JSON bodies it is given."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.bodies.append(json.loads(data.partition(b"\r\n\r\n")[2]))

    def close(self) -> None:
        pass


def reports(writer: Collect) -> list[Any]:
    return [b["params"]["value"].get("message") for b in writer.bodies
            if b.get("method") == "$/progress" and b["params"]["value"]["kind"] == "report"]


async def progress(congested: Callable[[], bool]
                   ) -> tuple[WorkDoneProgress, Collect, asyncio.Future[None]]:
    """A run's reports on a server whose writes `Collect` keeps; the run's task to cancel."""
    ls = LanguageServer("t", "0")
    writer = Collect()
    ls.protocol.set_writer(writer)
    task = asyncio.ensure_future(asyncio.sleep(10))
    work = await WorkDoneProgress.open(ls, "tok", task, "prompt", congested)
    assert work is not None
    return work, writer, task


async def test_reports_are_held_while_the_client_lags() -> None:
    lagging = [True]
    work, writer, task = await progress(lambda: lagging[0])
    for i in range(20):
        call = ToolCall(f"c{i}", "bash", json.dumps({"command": f"step {i}"}))
        work(ToolStarted(1, call, ToolKind.EXECUTE))
    await asyncio.sleep(0.1)
    assert reports(writer) == []
    lagging[0] = False
    await asyncio.sleep(0.1)
    assert reports(writer) == ["turn 1 · bash: step 19"]
    work.end("completed")
    task.cancel()


async def test_end_drops_a_held_report() -> None:
    work, writer, task = await progress(lambda: True)
    work(ToolStarted(1, ToolCall("c", "bash", "{}"), ToolKind.EXECUTE))
    work.end("completed")
    await asyncio.sleep(0.1)
    kinds = [b["params"]["value"]["kind"] for b in writer.bodies if b.get("method") == "$/progress"]
    assert kinds == ["begin", "end"]
    task.cancel()


async def test_a_command_that_exited_non_zero_is_reported_failed() -> None:
    work, writer, task = await progress(lambda: False)
    call = ToolCall("c", "bash", json.dumps({"command": "npm test"}))
    for ended in (ProcessExit(254), ProcessExit(signal="SIGKILL"), ProcessExit(0)):
        result = ToolResult("c", "out", exit=ended, duration_ms=12)
        work(ToolFinished(1, call, result, ToolKind.EXECUTE))
    await asyncio.sleep(0.05)
    assert reports(writer) == ["turn 1 · bash ✗ exit 254 12 ms", "turn 1 · bash ✗ SIGKILL 12 ms",
                               "turn 1 · bash ✓ 12 ms"]
    work.end("completed")
    task.cancel()


async def test_a_child_agents_calls_are_reported_under_its_name() -> None:
    work, writer, task = await progress(lambda: False)
    call = ToolCall("k1", "read_file", json.dumps({"path": "notes.md"}))
    work(ChildEvent("t1", "explore", ToolStarted(2, call, ToolKind.READ)))
    result = ToolResult("k1", "text", duration_ms=3)
    work(ChildEvent("t1", "explore", ToolFinished(2, call, result, ToolKind.READ)))
    await asyncio.sleep(0.05)
    assert reports(writer) == ["↳ explore · turn 2 · read_file: notes.md",
                               "↳ explore · turn 2 · read_file ✓ 3 ms"]
    work.end("completed")
    task.cancel()
