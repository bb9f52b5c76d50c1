"""The block log's tool blocks reach the editor's log view as `window/logMessage` (Info): the
blocks of a moment in one message, redacted, whatever the level of the stderr log."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.raw import Spawn, spawn
from tests.fakellm import Call, FakeLLM, Reply

__all__ = ["spawn"]  # the fixture
pytestmark = pytest.mark.timeout(30)


async def blocks_logged(daemon: Daemon, count: int) -> tuple[list[int], list[str]]:
    """The types of the log messages with tool blocks and their blocks, once `count` are in
    (they come a moment after the run, from the log's thread)."""
    async with asyncio.timeout(10):
        while True:
            logged = [m for m in daemon.client.log_messages if "│ tool=" in m.message]
            blocks = [b for m in logged for b in m.message.split("\n") if "│ tool=" in b]
            if len(blocks) >= count:
                return [m.type for m in logged], blocks
            await asyncio.sleep(0.02)


async def test_tool_starts_and_ends_are_logged_to_the_editor(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "echo hi"}, id="c1")]), Reply("ok")])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    daemon = await start(workspace, env=env)
    await daemon.run(prompt="go")
    types, blocks = await blocks_logged(daemon, 2)
    assert set(types) == {3}  # Info
    assert "Tool start" in blocks[0] and "id=c1" in blocks[0]
    assert "Tool done" in blocks[1] and "tool=bash" in blocks[1]
    assert any("hi" in m.message for m in daemon.client.log_messages)


async def test_a_quick_runs_blocks_come_together_redacted_with_stderr_quiet(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("see https://me:hunter2secret@example.com\n")
    reads = [Call("read_file", {"path": "a.txt"}, id=f"r{n}") for n in range(3)]
    fake_llm.script([Reply("", reads), Reply("ok")])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test",
           "HARNESS9_LOG_LEVEL": "WARNING"}
    daemon = await start(workspace, env=env)
    await daemon.run(prompt="go")
    types, blocks = await blocks_logged(daemon, 6)
    assert len(blocks) == 6 and len(types) < 6  # fewer messages than blocks
    assert "Tool start" in blocks[0] and "id=r0" in "".join(blocks)
    text = "\n".join(m.message for m in daemon.client.log_messages)
    assert "hunter2secret" not in text and "https://me:[redacted]@example.com" in text


def test_no_log_message_follows_the_shutdown_answer(spawn: Spawn, tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    # The call's start is logged in one batch, its end (0.2 s later) waits for the next.
    calls = [{"name": "bash", "arguments": {"command": "sleep 0.2"}}]
    script.write_text(json.dumps({"turns": [{"text": "go", "tool_calls": calls},
                                            {"text": "done"}]}))
    daemon = spawn(env={"HARNESS9_PROVIDER": "replay"})
    daemon.initialize(tmp_path)
    daemon.send({"id": 5, "method": "agent/run",
                 "params": {"prompt": "go", "replayFile": str(script)}})
    daemon.until_id(5)
    # At once: the call's end is still waiting for the log's next batch.
    daemon.send({"id": 6, "method": "shutdown"})
    daemon.until_id(6)
    time.sleep(0.3)  # long enough for that batch
    daemon.send({"method": "exit"})
    assert daemon.rest() == b""
    assert daemon.exit_code() == 0
