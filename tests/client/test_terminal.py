"""`harness9 run` on a real terminal (a pty, its screen emulated): what the user sees."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.client.terminal import Terminal

pytestmark = pytest.mark.timeout(40)

RUNNING = re.compile(r"running `for i in .*`\s+(\d+ ms|\d+\.\d s)")


def test_ctrl_c_mid_stream_leaves_one_header_for_the_turn(workspace: Path, replay: Any) -> None:
    # Each streamed piece ends a full-width line: the terminal's "^C" echo then wraps.
    line = "abcdefghij" * 9 + "abcdefgh"
    script = replay(
        [
            {"text": "Look.", "tool_calls": [{"name": "bash", "arguments": {"command": "true"}}]},
            {"text": "\n\n".join([line] * 40)},
        ],
        delta_chars=len(line) + 2,
        delta_delay_ms=150,
    )
    term = Terminal(["run", "--workspace", str(workspace), "--replay", str(script)])
    try:
        term.wait_for(lambda screen: screen.endswith("›"))  # readline drops keys typed earlier
        term.type(b"go\r")
        term.wait_for(lambda screen: screen.count(line) >= 2)
        term.type(b"\x03")
        term.wait_for(lambda screen: "cancelled ·" in screen)
        term.type(b"\x04")
        assert term.finish() == 130
    finally:
        term.kill()
    screen = term.transcript()
    assert screen.count("● turn 2") == 1, screen
    assert screen.count("● turn 1") == 1, screen


def test_a_running_bash_call_shows_its_time_its_output_and_how_to_stop(
    workspace: Path, replay: Any
) -> None:
    command = "for i in $(seq 1 40); do echo compiling module $i; sleep 0.1; done"
    script = replay(
        [
            {"text": "Building.",
             "tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
            {"text": "Built."},
        ]
    )
    term = Terminal(["run", "build", "--workspace", str(workspace), "--replay", str(script)])
    try:
        # A screen caught between two frames of the live region may lack its last line: wait
        # for a whole frame that shows the output and the hint.
        live = term.wait_for(lambda screen: "compiling module" in screen
                             and "Ctrl-C to stop" in screen)
        assert RUNNING.search(live), live
        later = term.wait_for(lambda screen: "compiling module 20" in screen)
        assert "compiling module 2\n" not in later  # only the tail is shown
        assert term.finish() == 0
    finally:
        term.kill()
    screen = term.transcript()
    assert "Ctrl-C to stop" not in screen  # the live region is gone
    assert re.search(r"✓ ran `for i in .*` · exit 0 · \d\.\d s", screen), screen
    assert "│ compiling module 40" in screen
