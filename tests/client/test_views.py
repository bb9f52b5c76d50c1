"""The live view's transcript, recorded by rich (`Console(record=True)`), from the notifications
of a real daemon run (`harness9 run --json`) and, for the fields the daemon adds in other work,
from notifications written as the protocol defines them. SVG captures are kept next to the test's
files (`transcript.svg`) for a look at the colors."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness9.client.live import LiveView
from harness9.client.outcome import Outcome
from harness9.client.tool_row import ToolRow
from tests.client.conftest import run_harness9

pytestmark = pytest.mark.timeout(30)

CJK = re.compile(r"[\u3400-\u9fff]")


def record(notes: list[dict[str, Any]], outcome: Outcome, svg: Path) -> str:
    """Play `notes` into a live view on a recording console; its transcript as text."""
    console = Console(record=True, file=io.StringIO(), width=100, color_system="truecolor",
                      force_terminal=False, force_interactive=False)
    view = LiveView(console)
    for note in notes:
        view.progress(note)
    view.finished(outcome, [])
    text = console.export_text(clear=False)
    svg.write_text(console.export_svg(title="harness9 run"), encoding="utf-8")
    return text


def test_rows_speak_english_and_answers_are_markdown(
    workspace: Path, replay: Any, tmp_path: Path
) -> None:
    (workspace / "pager.py").write_text("def page(n):\n    return n * 10\n")
    calls = [
        {"name": "read_file", "arguments": {"path": "pager.py"}},
        {"name": "edit_file", "arguments": {"path": "pager.py", "source_text": "n * 10",
                                            "target_text": "(n - 1) * 10"}},
        {"name": "write_file", "arguments": {"path": "notes.md", "content": "one\ntwo\n"}},
        {"name": "bash", "arguments": {"command": "echo ran; exit 1"}},
    ]
    answer = "Fixed **the off-by-one** in `page()`:\n\n- pages start at 1\n- tests added"
    script = replay([{"text": "Looking.", "tool_calls": calls}, {"text": answer}])
    done = run_harness9("run", "fix", "--workspace", str(workspace), "--replay", str(script),
                        "--json")
    assert done.code == 0, done.err
    lines = done.json_lines()
    notes, result = lines[:-1], lines[-1]["result"]
    edit = next(n for n in notes if n.get("tool") == "edit_file" and n["kind"] == "tool_completed")
    assert edit["output"].startswith("Edited ")  # what the model reads
    text = record(notes, Outcome("completed", result=result), tmp_path / "transcript.svg")
    assert "✓ read pager.py · 2 lines" in text
    assert "✓ edited pager.py +1 −1" in text
    assert "✓ wrote notes.md +2 −0" in text
    # A non-zero exit is a failed row (the model got a normal result): ✗, its exit code.
    assert re.search(r"✗ ran `echo ran; exit 1` · exit 1 · \d+ ms · not sandboxed\n\s+│ ran\n",
                     text), text
    assert not CJK.search(text), text
    assert "the off-by-one" in text and "**" not in text and "`page()`" not in text
    assert "• pages start at 1" in text
    assert re.search(r"✓ completed · 2 turns · 4 tool calls · .* · context \d+% of 128k", text)


def test_the_summary_line_shows_the_runs_cost(tmp_path: Path) -> None:
    usage = {"kind": "usage", "turn": 1, "inputTokens": 10_000, "outputTokens": 1_000,
             "contextTokens": 10_000, "contextWindow": 200_000, "costUsd": 0.045}
    result = {"turns": 1, "toolCalls": 0, "usage": {"inputTokens": 10_000,
                                                      "outputTokens": 1_000}}
    text = record([usage], Outcome("completed", result=result), tmp_path / "cost.svg")
    assert re.search(r"✓ completed · 1 turn · 0 tool calls · .* · context 5% of 200k · \$0\.0450",
                     text), text


def _edit_completed(diff: str, added: int, removed: int) -> dict[str, Any]:
    return {"kind": "tool_completed", "turn": 1, "toolCallId": "c1", "tool": "edit_file",
            "toolKind": "edit", "output": "Edited app.py", "bytes": 30, "truncated": False,
            "durationMs": 4.2,
            "path": "app.py", "diff": diff, "added": added, "removed": removed, "via": "disk"}


def _run(*middle: dict[str, Any]) -> list[dict[str, Any]]:
    started = {"kind": "tool_started", "turn": 1, "toolCallId": "c1", "tool": "edit_file",
               "toolKind": "edit",
               "arguments": {"path": "app.py", "source_text": "x", "target_text": "y"}}
    return [
        {"kind": "run_started", "provider": "replay", "model": "m", "workspaceRoot": "/ws"},
        {"kind": "turn_started", "turn": 1, "messages": 2},
        {"kind": "assistant_message", "turn": 1, "text": "Editing.", "toolCalls": []},
        started, *middle,
        {"kind": "run_finished", "status": "completed", "turns": 1, "toolCalls": 1},
    ]


def test_an_edit_shows_its_diff_in_color_and_a_long_one_collapses(tmp_path: Path) -> None:
    short = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
    text = record(_run(_edit_completed(short, 1, 1)), Outcome("completed"), tmp_path / "s.svg")
    assert "✓ edited app.py +1 −1" in text
    assert "-    return 1" in text and "+    return 2" in text
    assert "--- a/app.py" not in text  # the row already names the file
    svg = (tmp_path / "s.svg").read_text()
    assert "return" in svg
    long = "@@ -1,30 +1,30 @@\n" + "".join(f"-old {i}\n+new {i}\n" for i in range(30))
    text = record(_run(_edit_completed(long, 30, 30)), Outcome("completed"), tmp_path / "l.svg")
    assert "✓ edited app.py +30 −30" in text
    assert "+new 4" in text and "-old 6" not in text
    assert "… 49 more diff lines" in text


def test_a_call_asked_about_has_a_row_before_it_starts_and_when_it_never_does(
    workspace: Path, replay: Any, tmp_path: Path
) -> None:
    calls = [{"name": "bash", "arguments": {"command": "touch planted"}}]
    script = replay([{"tool_calls": calls}, {"text": "Gave up."}])
    done = run_harness9("run", "x", "--workspace", str(workspace), "--replay", str(script),
                        "--json", env={**os.environ, "HARNESS9_APPROVALS": "ask"})
    assert done.code == 0, done.err
    lines = done.json_lines()
    notes, result = lines[:-1], lines[-1]["result"]
    kinds = [n["kind"] for n in notes if n["kind"].startswith(("tool_", "approval_"))]
    assert kinds == ["approval_requested", "approval_resolved", "tool_failed"]  # never started
    asked = next(n for n in notes if n["kind"] == "approval_requested")
    assert asked["arguments"] == {"command": "touch planted"}
    # while the question is open the row shows the call waiting, not running
    row = ToolRow(asked["tool"], asked["toolKind"], asked["arguments"], asked=True)
    shown = Console(file=io.StringIO(), width=100)
    with shown.capture() as capture:
        shown.print(row)
    assert "? bash `touch planted` · waiting for approval" in capture.get()
    text = record(notes, Outcome("completed", result=result), tmp_path / "refused.svg")
    assert "✗" in text and "touch planted" in text


def test_a_command_row_says_where_it_ran(tmp_path: Path) -> None:
    notes = []
    for n, (sandbox, command) in enumerate([("bwrap", "make"), ("none", "npm install")]):
        call = {"turn": 1, "toolCallId": f"b{n}", "tool": "bash", "toolKind": "execute"}
        notes += [{"kind": "tool_started", **call, "arguments": {"command": command},
                   "sandbox": sandbox},
                  {"kind": "tool_completed", **call, "output": "ok", "bytes": 2,
                   "truncated": False, "durationMs": 3.0, "exitCode": 0, "sandbox": sandbox}]
    text = record([
        {"kind": "run_started", "provider": "replay", "model": "m", "workspaceRoot": "/ws"},
        {"kind": "turn_started", "turn": 1, "messages": 2}, *notes,
        {"kind": "run_finished", "status": "completed", "turns": 1, "toolCalls": 2},
    ], Outcome("completed"), tmp_path / "sandbox.svg")
    [built] = [line for line in text.splitlines() if "make" in line]
    [installed] = [line for line in text.splitlines() if "npm install" in line]
    assert built.rstrip().endswith("· sandboxed (bwrap)")
    assert installed.rstrip().endswith("· not sandboxed")
