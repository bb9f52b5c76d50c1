"""Live tool output: a running bash call's output reaches observers as coalesced, capped events."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness9.engine import AgentEngine, Event, EventBus
from harness9.engine.events import ToolFinished, ToolOutputShown
from harness9.engine.live_output import LiveOutput
from harness9.schema import Message, ToolCall
from harness9.tools import default_registry
from tests.engine.scripted import Reply, ScriptedProvider

pytestmark = pytest.mark.timeout(30)

CALL = ToolCall(id="c1", name="bash", arguments="{}")


def collector() -> tuple[EventBus, list[ToolOutputShown]]:
    shown: list[ToolOutputShown] = []
    return EventBus(lambda e: shown.append(e) if isinstance(e, ToolOutputShown) else None), shown


async def test_the_first_piece_goes_at_once_and_later_ones_are_merged_per_interval() -> None:
    bus, shown = collector()
    live = LiveOutput(bus, 1, CALL, interval=0.2)
    live.feed(b"a")
    assert [e.text for e in shown] == ["a"]
    live.feed(b"b")
    live.feed(b"c")
    assert len(shown) == 1  # within the interval: held
    await asyncio.sleep(0.3)
    assert [e.text for e in shown] == ["a", "bc"]
    live.feed(b"d")  # the interval has passed: at once
    live.close()
    live.feed(b"late")
    assert [e.text for e in shown] == ["a", "bc", "d"]
    assert all(e.turn == 1 and e.call is CALL and not e.truncated for e in shown)


async def test_closing_sends_what_is_pending_and_stops_the_timer() -> None:
    bus, shown = collector()
    live = LiveOutput(bus, 2, CALL, interval=0.2)
    live.feed(b"one\n")
    live.feed(b"two\n")
    live.close()
    await asyncio.sleep(0.3)
    assert [e.text for e in shown] == ["one\n", "two\n"]


async def test_a_character_split_between_reads_stays_whole() -> None:
    bus, shown = collector()
    live = LiveOutput(bus, 1, CALL, interval=0.05)
    data = "é€𝄞".encode()
    for byte in data:
        live.feed(bytes([byte]))
        await asyncio.sleep(0.06)
    live.close()
    text = "".join(e.text for e in shown)
    assert text == "é€𝄞"
    assert "\ufffd" not in text


async def test_the_cap_cuts_on_a_character_and_marks_the_last_piece_once() -> None:
    bus, shown = collector()
    live = LiveOutput(bus, 1, CALL, interval=0.05, cap=10)
    live.feed(b"abcdefgh")
    live.feed("ééé".encode())  # 6 bytes: only one é fits the 2 left
    live.feed(b"more")
    await asyncio.sleep(0.1)
    live.feed(b"even more")
    live.close()
    assert "".join(e.text for e in shown) == "abcdefghé"
    assert [e.truncated for e in shown] == [False, True]


async def test_a_bash_call_streams_its_output_before_it_finishes_and_the_model_sees_the_same(
    tmp_path: Path,
) -> None:
    command = "for i in 1 2 3 4 5 6; do echo out $i; echo err $i >&2; sleep 0.1; done"
    calls = [("bash", json.dumps({"command": command}))]
    events: list[Event] = []
    provider = ScriptedProvider([Reply("", calls), Reply("done")])
    engine = AgentEngine(provider, default_registry(tmp_path), bus=EventBus(events.append))
    history: list[Message] = []
    await engine.run("print", history)
    shown = [e for e in events if isinstance(e, ToolOutputShown)]
    finished = next(i for i, e in enumerate(events) if isinstance(e, ToolFinished))
    assert 3 <= len(shown) < 12  # several, yet fewer than the 12 writes
    assert all(events.index(e) < finished for e in shown)
    expected = "".join(f"out {i}\nerr {i}\n" for i in range(1, 7))
    assert "".join(e.text for e in shown) == expected
    assert history[-2].content == expected  # the model's observation is the plain output
