"""The interactive session while it is busy, driven in-process against a real daemon: the
lines a user hands over while a run streams (steers, queued prompts), and a steer that came too
late, each shown in the transcript of a recording console in the order the runs happened."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness9.client.conversation import Conversation
from harness9.client.daemon_session import CtrlC
from harness9.client.input_line import Typed
from harness9.client.process import spawn_daemon
from harness9.client.rpc import DaemonClient
from harness9.client.views import ViewSlot

pytestmark = pytest.mark.timeout(60)

SLOW_TOOL = [
    {"text": "Looking.", "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 1"}}]},
    {"text": "Over to you."},
]


class Session:
    """A daemon, a client and a conversation whose views record to `console`."""

    def __init__(self, client: DaemonClient, slot: ViewSlot, console: Console) -> None:
        self.client, self.slot, self.console = client, slot, console
        self.ctrl_c = CtrlC(client, slot.current)
        self.conversation = Conversation(client, slot, self.ctrl_c, {"provider": "replay"}, None)

    def transcript(self) -> str:
        return self.console.export_text(clear=False)


@pytest.fixture
async def session(workspace: Path, replay: Any, tmp_path: Path) -> AsyncIterator[Session]:
    script = replay(SLOW_TOOL)
    process = await spawn_daemon(dict(os.environ), None)  # its log: the test's captured stderr
    console = Console(record=True, file=io.StringIO(), width=100, force_terminal=False)
    slot = ViewSlot(False, console)
    client = DaemonClient(slot.progress, slot.log)
    client.attach(process)
    options = {"provider": "replay", "replayFile": str(script)}
    try:
        await client.initialize(workspace, options)
        yield Session(client, slot, console)
    finally:
        await client.close()


async def until(what: str, holds: Callable[[], bool], seconds: float = 20) -> None:
    """Wait for `holds()`; fail naming `what`."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not holds():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def _order(text: str, *pieces: str) -> None:
    """`pieces` appear in `text` in this order."""
    at = -1
    for piece in pieces:
        found = text.find(piece, at + 1)
        assert found > at, f"{piece!r} is not after the pieces before it in:\n{text}"
        at = found


async def test_a_steer_joins_the_run_and_a_queued_prompt_runs_after_it(session: Session) -> None:
    conversation = session.conversation
    busy = asyncio.ensure_future(conversation.run({"prompt": "first", "provider": "replay"}))
    await until("the first turn's text", lambda: "Looking." in session.transcript())
    conversation.typed(Typed("steer", "look at b.txt too"))
    conversation.typed(Typed("queue", "second"))
    outcome = await asyncio.wait_for(busy, 30)
    assert outcome is not None and outcome.status == "completed"
    text = session.transcript()
    _order(
        text,
        "● turn 1",
        "Looking.",
        "⏵ queued: second",
        "↪ you: look at b.txt too",
        "● turn 2",
        "✓ completed",
        "» second",
        "● turn 1",
        "✓ completed",
    )
    assert text.count("✓ completed") == 2


async def test_a_steer_too_late_for_its_run_runs_next_on_its_own(session: Session) -> None:
    conversation = session.conversation
    busy = asyncio.ensure_future(conversation.run({"prompt": "first", "provider": "replay"}))
    await until("the first run", lambda: conversation.running is not None)
    first = conversation.running
    assert first is not None
    conversation.typed(Typed("queue", "second"))
    await until("the second run", lambda: conversation.running not in (None, first))
    conversation.steer(first, "a late word")  # the first run is over: this runs after
    outcome = await asyncio.wait_for(busy, 30)
    assert outcome is not None and outcome.status == "completed"
    text = session.transcript()
    _order(
        text,
        "✓ completed",
        "» second",
        "↪ the run ended before it could read that",
        "✓ completed",
        "» a late word",
        "✓ completed",
    )
    assert "↪ you: a late word" not in text
    assert conversation.session_id is not None


async def test_unqueue_takes_the_newest_prompt_back_and_ctrl_c_leaves_the_queue_going(
    session: Session,
) -> None:
    conversation = session.conversation
    busy = asyncio.ensure_future(conversation.run({"prompt": "first", "provider": "replay"}))
    await until("the first run", lambda: conversation.running is not None)
    conversation.typed(Typed("queue", "second"))
    conversation.typed(Typed("queue", "third"))
    await until("both in the queue", lambda: conversation.queued == ["second", "third"])
    conversation.typed(Typed("steer", "/unqueue"))
    await until("the newest taken back", lambda: conversation.queued == ["second"])
    session.ctrl_c()  # what SIGINT calls: cancels the run on screen only
    outcome = await asyncio.wait_for(busy, 30)
    assert outcome is not None and outcome.status == "completed"
    text = session.transcript()
    _order(text, "✗ removed from the queue: third", "■ cancelled", "» second", "✓ completed")
    assert "» third" not in text
