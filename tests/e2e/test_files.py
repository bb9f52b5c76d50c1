"""The file tools through the daemon: two sessions editing one file, the start-up clean-up."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from tests.e2e.daemon import StartDaemon
from tests.fakellm import Call, FakeLLM, Reply, Request

pytestmark = pytest.mark.timeout(60)

EDITS_PER_SESSION = 20


def edits_for(session: int) -> list[Call]:
    """Session 0 edits the even lines, session 1 the odd ones, all in one turn."""
    return [
        Call("edit_file", {"path": "p.txt", "source_text": f"line_{i} = {i}\n",
                           "target_text": f"line_{i} = -{i}\n"})
        for i in range(session, 2 * EDITS_PER_SESSION, 2)
    ]


def responder(request: Request) -> Reply:
    """One turn of edits for the session the prompt names, then a final answer."""
    if any(message.get("role") == "tool" for message in request.messages):
        return Reply("done")
    session = 1 if "session one" in json.dumps(request.messages) else 0
    return Reply(tool_calls=edits_for(session))


async def test_two_sessions_editing_one_file_lose_no_edit(
    start: StartDaemon, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    # Large enough that each edit takes a while, so unserialized edits would overlap.
    lines = [f"line_{i} = {i}" for i in range(40_000)]
    (workspace / "p.txt").write_text("\n".join(lines) + "\n")
    fake_llm.responder = responder
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai"}
    daemon = await start(workspace, env=env)
    results = await asyncio.gather(
        daemon.run(prompt="session zero: edit"), daemon.run(prompt="session one: edit")
    )
    assert {r["sessionId"] for r in results} and len({r["sessionId"] for r in results}) == 2
    assert [r["toolCalls"] for r in results] == [EDITS_PER_SESSION, EDITS_PER_SESSION]
    completed = [
        n for r in results for n in daemon.of_run(r["runId"]) if n["kind"] == "tool_completed"
    ]
    assert len(completed) == 2 * EDITS_PER_SESSION  # every edit reported success
    text = (workspace / "p.txt").read_text()
    missing = [i for i in range(2 * EDITS_PER_SESSION) if f"line_{i} = -{i}\n" not in text]
    assert missing == []


async def test_stale_temp_files_are_removed_when_the_daemon_starts(
    start: StartDaemon, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "deep" / "er").mkdir(parents=True)
    stale = workspace / "deep" / "er" / ".main.py.0badf00d.h9tmp"
    fresh = workspace / ".main.py.0c0ffee0.h9tmp"
    for path in (stale, fresh):
        path.write_text("half a file")
    past = time.time() - 3600
    os.utime(stale, (past, past))
    await start(workspace)
    deadline = time.monotonic() + 10
    while stale.exists():
        assert time.monotonic() < deadline, "the stale temporary file was not removed"
        await asyncio.sleep(0.05)
    assert fresh.exists()  # a minute old at most: maybe a write in progress
