"""Working with the agent while it runs, in `harness9 run` on a real terminal (a pty, its screen
emulated) against the real daemon: steering, queueing, and the plan."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.client.conftest import run_harness9
from tests.client.terminal import Terminal

pytestmark = pytest.mark.timeout(60)

SLOW_TOOL = [
    {"text": "Looking.", "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 2"}}]},
    {"text": "Over to you."},
]
PLAN_TURNS = [
    {
        "text": "Planning.",
        "tool_calls": [
            {
                "name": "update_plan",
                "arguments": {
                    "items": [
                        {"text": "write x.txt", "status": "in_progress"},
                        {"text": "say so", "status": "pending"},
                    ]
                },
            },
            {"name": "write_file", "arguments": {"path": "x.txt", "content": "x\n"}},
        ],
    },
    {
        "text": "Written.",
        "tool_calls": [
            {
                "name": "update_plan",
                "arguments": {
                    "items": [
                        {"text": "write x.txt", "status": "done"},
                        {"text": "say so", "status": "done"},
                    ]
                },
            }
        ],
    },
    {"text": "Done."},
]


def _interactive(workspace: Path, script: Path) -> Terminal:
    term = Terminal(["run", "--workspace", str(workspace), "--replay", str(script)])
    term.wait_for(lambda screen: screen.endswith("›"))  # readline drops keys typed earlier
    return term


def test_enter_while_a_run_streams_steers_it(workspace: Path, replay: Any) -> None:
    term = _interactive(workspace, replay(SLOW_TOOL))
    try:
        term.type(b"look around\r")
        term.wait_for(lambda screen: "running `sleep 2`" in screen)
        term.type(b"check b.txt too")
        live = term.wait_for(lambda screen: "› check b.txt too" in screen)
        assert "Enter steers the run" in live
        term.type(b"\r")
        term.wait_for(lambda screen: "✓ completed" in screen)
        term.type(b"\x04")
        assert term.finish() == 0
    finally:
        term.kill()
    screen = term.transcript()
    ran = screen.index("✓ ran `sleep 2`")
    steered = screen.index("↪ you: check b.txt too")
    assert ran < steered < screen.index("● turn 2") < screen.index("Over to you."), screen
    assert "Enter steers the run" not in screen  # the live region is gone
    assert screen.count("✓ completed") == 1


def test_tab_while_a_run_streams_queues_the_next_prompt(workspace: Path, replay: Any) -> None:
    term = _interactive(workspace, replay(SLOW_TOOL))
    try:
        term.type(b"first\r")
        term.wait_for(lambda screen: "running `sleep 2`" in screen)
        term.type(b"second\t")
        live = term.wait_for(lambda screen: "⏵ queued 1: second" in screen)
        assert "running `sleep 2`" in live
        term.wait_for(lambda screen: screen.count("✓ completed") == 2, timeout=30)
        term.type(b"\x04")
        assert term.finish() == 0
    finally:
        term.kill()
    screen = term.transcript()
    first_done = screen.index("✓ completed")
    second = screen.index("» second")
    assert first_done < second < screen.rindex("✓ completed"), screen
    assert screen.count("● turn 1") == 2  # the queued prompt ran on its own, after the first


def test_a_plan_run_changes_nothing_and_execute_plan_carries_it_out(
    workspace: Path, replay: Any
) -> None:
    script = replay(PLAN_TURNS)
    planned = run_harness9(
        "run", "--plan", "write x.txt", "--workspace", str(workspace), "--replay", str(script)
    )
    assert planned.code == 0, planned.err
    assert "plan · 2/2 done\n  ✓ write x.txt\n  ✓ say so" in planned.out, planned.out
    assert not (workspace / "x.txt").exists()
    assert "✗ write_file · " in planned.out  # refused before it ran: no arguments to name
    hint = re.search(r"carry it out: harness9 run --resume (\S+) --execute-plan", planned.out)
    assert hint, planned.out
    done = run_harness9(
        "run",
        "--resume",
        hint[1],
        "--execute-plan",
        "--workspace",
        str(workspace),
        "--replay",
        str(script),
    )
    assert done.code == 0, done.err
    assert (workspace / "x.txt").read_text() == "x\n"
    # the recap of the resumed session shows the stored plan before the run
    assert done.out.index("plan · 2/2 done") < done.out.index("● turn 1"), done.out


def test_plan_and_go_at_the_interactive_prompt(workspace: Path, replay: Any) -> None:
    term = _interactive(workspace, replay(PLAN_TURNS))
    try:
        term.type(b"/plan write x.txt\r")
        term.wait_for(lambda screen: "/go carries out the plan" in screen)
        assert not (workspace / "x.txt").exists()
        term.wait_for(lambda screen: screen.endswith("›"))
        term.type(b"/go\r")
        term.wait_for(lambda screen: screen.count("✓ completed") == 2)
        term.type(b"\x04")
        assert term.finish() == 0
    finally:
        term.kill()
    assert (workspace / "x.txt").read_text() == "x\n"
    assert "plan · 2/2 done" in term.transcript()


def test_a_line_typed_but_not_sent_waits_on_the_next_prompt(workspace: Path, replay: Any) -> None:
    term = _interactive(workspace, replay(SLOW_TOOL))
    try:
        term.type(b"first\r")
        term.wait_for(lambda screen: "running `sleep 2`" in screen)
        term.type(b"half typed")
        term.wait_for(lambda screen: screen.endswith("› half typed"))
        term.type(b" then sent\r")
        term.wait_for(lambda screen: screen.count("✓ completed") == 2)
        term.type(b"\x04")
        assert term.finish() == 0
    finally:
        term.kill()
    assert "› half typed then sent\n" in term.transcript()


def test_a_plan_run_that_wrote_no_plan_offers_none_to_carry_out(
    workspace: Path, replay: Any
) -> None:
    script = replay([{"text": "Nothing to plan: it is already done."}])
    done = run_harness9(
        "run", "--plan", "tidy", "--workspace", str(workspace), "--replay", str(script)
    )
    assert done.code == 0, done.err
    assert "already done" in done.out
    assert "--execute-plan" not in done.out
