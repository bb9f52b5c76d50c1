"""What the terminal shows of steering, queueing and the plan, from notifications written as
the protocol defines them, and the keys of the line typed while a run streams."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness9.cli import build_parser
from harness9.client.input_line import LineEditor, Typed
from harness9.client.interactive import prompt_params
from harness9.client.live import LiveView
from harness9.client.outcome import Outcome
from harness9.client.run_config import options_from_args

pytestmark = pytest.mark.timeout(30)

STARTED = {"kind": "run_started", "provider": "replay", "model": "m", "workspaceRoot": "/ws"}


def record(notes: list[dict[str, Any]], status: str = "completed") -> str:
    """Play `notes` into a live view on a recording console; its transcript as text."""
    console = Console(record=True, file=io.StringIO(), width=100, force_terminal=False)
    view = LiveView(console)
    for note in notes:
        view.progress(note)
    view.finished(Outcome(status), [])
    return console.export_text()


def _plan(turn: int, *statuses: str, note: str | None = None) -> list[dict[str, Any]]:
    steps = ["read the parser", "fix the off-by-one", "add a test"]
    items = [
        {"text": text, "status": status} for text, status in zip(steps, statuses, strict=False)
    ]
    call = {"turn": turn, "toolCallId": f"p{turn}", "tool": "update_plan", "toolKind": "think"}
    return [
        {"kind": "turn_started", "turn": turn, "messages": 2 * turn},
        {"kind": "assistant_message", "turn": turn, "text": "", "toolCalls": []},
        {"kind": "tool_started", **call, "arguments": {"items": items}},
        {
            "kind": "tool_completed",
            **call,
            "output": "plan updated",
            "bytes": 12,
            "truncated": False,
            "durationMs": 0.1,
        },
        {"kind": "plan", "turn": turn, "items": items, **({"note": note} if note else {})},
        {"kind": "observation", "turn": turn, "toolCallIds": [f"p{turn}"], "messages": 3},
    ]


def test_the_plan_is_a_checklist_then_a_line_per_update_then_whole_at_the_end() -> None:
    text = record(
        [
            STARTED,
            *_plan(1, "in_progress", "pending", "pending", note="small change"),
            *_plan(2, "done", "in_progress", "pending"),
            *_plan(3, "done", "done", "in_progress"),
            {"kind": "run_finished", "status": "completed", "turns": 3, "toolCalls": 3},
        ]
    )
    first = text.index("plan · 0/3 done")
    assert text[first:].startswith(
        "plan · 0/3 done\n  ▸ read the parser\n  ○ fix the off-by-one\n  ○ add a test\n"
        "  small change\n"
    ), text
    assert "plan · 1/3 done · ▸ fix the off-by-one" in text
    assert "plan · 2/3 done · ▸ add a test" in text
    last = text.rindex("plan · 2/3 done\n")
    assert text[last:].startswith(
        "plan · 2/3 done\n  ✓ read the parser\n  ✓ fix the off-by-one\n  ▸ add a test\n"
    ), text
    assert text.index("✓ completed") > last
    assert "update_plan" not in text  # the plan stands for its tool calls


def test_a_steer_shows_where_the_run_took_it_in() -> None:
    text = record(
        [
            STARTED,
            {"kind": "turn_started", "turn": 1, "messages": 2},
            {"kind": "assistant_message", "turn": 1, "text": "Reading.", "toolCalls": []},
            {"kind": "steered", "turn": 2, "text": "use the v2 API\x1b[2J instead"},
            {"kind": "turn_started", "turn": 2, "messages": 5},
            {"kind": "assistant_message", "turn": 2, "text": "Switched to v2.", "toolCalls": []},
            {"kind": "run_finished", "status": "completed", "turns": 2, "toolCalls": 0},
        ]
    )
    steered = text.index("↪ you: use the v2 API")
    assert text.index("Reading.") < steered < text.index("● turn 2"), text
    assert "\x1b" not in text


def test_enter_steers_tab_queues_and_the_editing_keys_edit() -> None:
    editor = LineEditor()
    assert editor.feed(b"use pytest") == []
    assert editor.text == "use pytest"
    assert editor.feed(b"\x7f" * 7) == [] and editor.text == "use"
    editor.feed(b" the new one\x17\x17")  # Ctrl-W: a word back, twice
    assert editor.text == "use the "
    editor.feed(b"\x1b[Dx\x1bOA")  # cursor keys type nothing
    assert editor.text == "use the x"
    assert editor.feed(b"\r") == [Typed("steer", "use the x")] and editor.text == ""
    assert editor.feed("then d\u00e9".encode()[:-1]) == []  # half a character: wait for it
    assert editor.feed("then d\u00e9".encode()[-1:] + b"ploy\t") == [Typed("queue", "then déploy")]
    assert editor.feed(b"   \r\t") == []  # nothing typed: nothing handed over
    editor.feed(b"scrap this\x15")
    assert editor.text == ""
    pasted = b"\x1b[200~first line\r\nsecond\tline\x1b[201~"
    assert editor.feed(pasted) == []  # a paste hands nothing over
    assert editor.text == "first line second line"
    assert editor.feed(b"\t") == [Typed("queue", "first line second line")]


def test_plan_and_go_are_one_run_modes_and_help_runs_nothing() -> None:
    base = {"prompt": "", "provider": "replay", "plan": True}
    assert prompt_params(base, "/plan tidy the parser", "s-1") == {
        "prompt": "tidy the parser",
        "provider": "replay",
        "sessionId": "s-1",
        "plan": True,
    }
    assert prompt_params(base, "/go", "s-1") == {
        "provider": "replay",
        "sessionId": "s-1",
        "executePlan": True,
    }
    assert prompt_params(base, "/go skip step 3", None) == {
        "provider": "replay",
        "executePlan": True,
        "prompt": "skip step 3",
    }
    assert prompt_params(base, "/help", "s-1") is None
    assert prompt_params(base, "/plan", "s-1") is None
    assert prompt_params(base, "fix it", "s-1") == {
        "prompt": "fix it",
        "provider": "replay",
        "sessionId": "s-1",
    }


def test_the_command_line_asks_for_a_plan_or_carries_it_out(workspace: Path) -> None:
    parser = build_parser()
    env = {"HARNESS9_PROVIDER": "openai"}
    args = parser.parse_args(["run", "--plan", "tidy", "--workspace", str(workspace)])
    assert options_from_args(args, "tidy", env).run_params["plan"] is True
    args = parser.parse_args(
        ["run", "--execute-plan", "--session", "s-1", "--workspace", str(workspace)]
    )
    params = options_from_args(args, "", env).run_params
    assert params["executePlan"] is True and "prompt" not in params
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "--plan", "--execute-plan", "x"])
