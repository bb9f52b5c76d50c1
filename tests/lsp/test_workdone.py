"""`$/progress` reports of a run: held while the client lags, only the newest sent after."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pygls.lsp.server import LanguageServer

from harness9.engine.events import ToolStarted
from harness9.lsp.workdone import WorkDoneProgress
from harness9.schema import ToolCall, ToolKind


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


async def test_reports_are_held_while_the_client_lags() -> None:
    ls = LanguageServer("t", "0")
    writer = Collect()
    ls.protocol.set_writer(writer)
    lagging = [True]
    task = asyncio.ensure_future(asyncio.sleep(10))
    work = await WorkDoneProgress.open(ls, "tok", task, "prompt", lambda: lagging[0])
    assert work is not None
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
    ls = LanguageServer("t", "0")
    writer = Collect()
    ls.protocol.set_writer(writer)
    task = asyncio.ensure_future(asyncio.sleep(10))
    work = await WorkDoneProgress.open(ls, "tok", task, "prompt", lambda: True)
    assert work is not None
    work(ToolStarted(1, ToolCall("c", "bash", "{}"), ToolKind.EXECUTE))
    work.end("completed")
    await asyncio.sleep(0.1)
    kinds = [b["params"]["value"]["kind"] for b in writer.bodies if b.get("method") == "$/progress"]
    assert kinds == ["begin", "end"]
    task.cancel()
