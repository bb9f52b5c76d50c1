"""The replay provider plays its script: turns, tool calls, thinking, deltas, exhaustion."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from harness9.provider.factory import ProviderSettings, create_provider
from harness9.provider.replay import (
    DEFAULT_THINKING,
    EXHAUSTED,
    ReplayProvider,
    load_script,
    parse_script,
)
from harness9.schema import Message, ToolCall, Usage
from tests.provider.conftest import TOOLS, ask

SCRIPT: dict[str, Any] = {
    "turns": [
        {"thinking": "First I should read the code.",
         "text": "I'll look at the code.",
         "tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}},
                        {"id": "mine", "name": "bash", "arguments": '{"command": "pytest -q'}],
         "usage": {"input_tokens": 120, "output_tokens": 30}},
        {"text": "Fixed."},
    ],
    "delta_chars": 4,
}
PROMPT = [Message.user("Fix calc.py, please.")]


def provider(script: dict[str, Any] = SCRIPT) -> ReplayProvider:
    return ReplayProvider(parse_script(script))


async def test_turns_in_order_then_exhaustion(stream: bool) -> None:
    replay = provider()
    first = await ask(replay, PROMPT, stream=stream)
    assert first.message.content == "I'll look at the code."
    assert first.message.tool_calls == (
        ToolCall("call_1_0", "read_file", '{"path": "calc.py"}'),
        ToolCall("mine", "bash", '{"command": "pytest -q'),  # raw strings are kept as written
    )
    assert first.usage == Usage(120, 30)
    second = await ask(replay, PROMPT, stream=stream)
    assert (second.message.content, second.message.tool_calls) == ("Fixed.", ())
    for _ in range(2):
        ended = await ask(replay, PROMPT, stream=stream)
        assert (ended.message.content, ended.message.tool_calls) == (EXHAUSTED, ())


async def test_thinking_answers_without_consuming_a_turn(stream: bool) -> None:
    replay = provider()
    thought = await ask(replay, PROMPT, None, stream=stream)
    assert thought.message.content == "First I should read the code."
    assert thought.message.tool_calls == ()
    assert (await ask(replay, PROMPT, TOOLS, stream=stream)).message.content.startswith("I'll")
    assert (await ask(replay, PROMPT, None, stream=stream)).message.content == DEFAULT_THINKING
    assert (await ask(replay, PROMPT, [], stream=stream)).message.content == "Fixed."


async def test_stream_yields_small_deltas() -> None:
    answer = await ask(provider(), PROMPT, stream=True)
    assert answer.deltas == ["I'll", " loo", "k at", " the", " cod", "e."]


async def test_stream_delay_between_deltas() -> None:
    replay = provider({"turns": [{"text": "abcdefgh"}], "delta_chars": 2, "delta_delay_ms": 40})
    started = time.monotonic()
    answer = await ask(replay, PROMPT, stream=True)
    assert answer.deltas == ["ab", "cd", "ef", "gh"]
    assert time.monotonic() - started >= 0.12  # three waits between four pieces


async def test_usage_is_estimated_when_not_scripted() -> None:
    replay = provider({"turns": [{"text": "x" * 40}]})
    answer = await ask(replay, [Message.user("y" * 400)], stream=False)
    assert answer.usage == Usage(input_tokens=100, output_tokens=10)


async def test_each_instance_replays_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(SCRIPT))
    settings = ProviderSettings(provider="replay", replay_file=str(path), env={})
    one, two = create_provider(settings), create_provider(settings)
    assert (await ask(one, PROMPT, stream=False)).message.content == "I'll look at the code."
    assert (await ask(two, PROMPT, stream=False)).message.content == "I'll look at the code."


def test_bundled_demo_script_is_valid() -> None:
    demo = Path(__file__).parents[2] / "server" / "harness9" / "demo" / "replay.json"
    if not demo.exists():
        pytest.skip("no demo script in this tree")
    script = load_script(demo)
    assert script.turns
    assert script.turns[-1].tool_calls == ()
