"""`harness9 run` against the real daemon, real tools and a scripted model."""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.client.conftest import HARNESS9, Completed, run_harness9

CONSOLE_SCRIPT = Path(sys.executable).parent / "harness9"


def _kinds(lines: list[dict[str, Any]]) -> list[str]:
    return [line["kind"] for line in lines if "kind" in line]


@pytest.mark.timeout(40)
def test_demo_fixes_the_bug_and_reports_every_step_as_json(tmp_path: Path) -> None:
    assert CONSOLE_SCRIPT.exists(), "the harness9 console script is not installed next to python"
    started = time.monotonic()
    proc = subprocess.run(
        [str(CONSOLE_SCRIPT), "run", "--demo", "--json"],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    elapsed = time.monotonic() - started
    done = Completed(proc.returncode, proc.stdout, proc.stderr)
    assert done.code == 0, done.err
    lines = done.json_lines()
    notes, result = lines[:-1], lines[-1]["result"]
    assert [n["seq"] for n in notes] == list(range(1, len(notes) + 1))
    kinds = _kinds(notes)
    assert kinds[0] == "run_started"
    assert kinds[-1] == "run_finished"
    assert [k for k in kinds if k in ("turn_started", "assistant_message")] == [
        "turn_started",
        "assistant_message",
    ] * 4
    assert "text_delta" in kinds
    assert "tool_failed" not in kinds
    tools = [n["tool"] for n in notes if n["kind"] == "tool_completed"]
    assert sorted(tools[:3]) == ["bash", "read_file", "read_file"]
    assert sorted(tools[3:5]) == ["edit_file", "write_file"]
    assert tools[5:] == ["bash"]
    first_run = next(n for n in notes if n["kind"] == "tool_completed" and n["tool"] == "bash")
    assert "FAILED (failures=2)" in first_run["output"]
    assert notes[-1]["status"] == "completed"
    assert (result["status"], result["turns"], result["toolCalls"]) == ("completed", 4, 6)
    workspace = Path(notes[0]["workspaceRoot"])
    assert workspace.is_relative_to(tmp_path)
    assert f"workspace: {workspace}" in done.err
    assert "start = (number - 1) * size" in (workspace / "pager.py").read_text()
    assert (workspace / "test_pager_bounds.py").is_file()
    rerun = subprocess.run(
        [sys.executable, "-m", "unittest"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert rerun.returncode == 0, rerun.stderr
    assert "Ran 6 tests" in rerun.stderr
    assert elapsed < 20  # ~4 s on a quiet 2-core machine; loose for loaded CI hosts


@pytest.mark.timeout(30)
def test_live_view_shows_text_tools_and_status(workspace: Path, replay: Any) -> None:
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    script = replay(
        [
            {
                "text": "Reading the notes.",
                "tool_calls": [
                    {"name": "read_file", "arguments": {"path": "notes.txt"}},
                    {"name": "bash", "arguments": {"command": "echo out; exit 3"}},
                    {"name": "read_file", "arguments": {"path": "missing.txt"}},
                ],
            },
            {"text": "The notes say alpha and beta."},
        ]
    )
    done = run_harness9(
        "run", "read the notes", "--workspace", str(workspace), "--replay", str(script)
    )
    assert done.code == 0, done.err + done.out
    out = done.out
    assert "● turn 1" in out
    assert "Reading the notes." in out
    assert "✓ read notes.txt · 2 lines" in out
    assert "│ alpha" not in out  # the file's text is the model's, not the transcript's
    assert "✗ ran `echo out; exit 3` · exit 3 · " in out  # it exited non-zero: a failed row
    assert "│ out" in out
    assert "exit status 3" not in out  # said once, in the row
    assert "✗ read missing.txt · error" in out
    assert "│ Error: file not found: missing.txt" in out
    assert "The notes say alpha and beta." in out
    assert "✓ completed · 2 turns · 3 tool calls" in out
    assert "daemon log: " in out


def test_piped_output_keeps_each_line_whole_and_unpadded(workspace: Path, replay: Any) -> None:
    long_line = "This sentence is long enough to wrap at eighty columns " * 3
    answer = f"### Result\n\n{long_line.strip()}\n\n| file | lines |\n|---|---|\n| a.py | 3 |"
    script = replay([{"tool_calls": [{"name": "bash", "arguments": {"command": "echo made"}}]},
                     {"text": answer}])
    done = run_harness9("run", "go", "--workspace", str(workspace), "--replay", str(script))
    assert done.code == 0, done.err + done.out
    lines = done.out.splitlines()
    assert [line for line in lines if line != line.rstrip()] == []  # no padding
    assert f"  {long_line.strip()}" in lines  # one line, as the model wrote it
    assert "  | a.py | 3 |" in lines
    assert any(re.fullmatch(r"✓ completed · 2 turns · 1 tool call · .* · [\d.]+ m?s", line)
               for line in lines), done.out


@pytest.mark.timeout(30)
def test_live_view_lists_the_files_each_bash_call_changed(workspace: Path, replay: Any) -> None:
    (workspace / "old.txt").write_text("old\n")
    (workspace / "edit.txt").write_text("1\n")
    command = "echo new > new.txt; echo 2 >> edit.txt; rm old.txt"
    script = replay([
        {"text": "", "tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
        {"text": "Done."},
    ])
    done = run_harness9(
        "run", "change files", "--workspace", str(workspace), "--replay", str(script)
    )
    assert done.code == 0, done.err + done.out
    lines = [line.strip() for line in done.out.splitlines()]
    assert {"+ new.txt", "~ edit.txt", "- old.txt"} <= set(lines)


@pytest.mark.timeout(30)
def test_max_turns_exits_3(workspace: Path, replay: Any) -> None:
    call = {"name": "bash", "arguments": {"command": "true"}}
    script = replay([{"text": "a", "tool_calls": [call]}, {"text": "b", "tool_calls": [call]}])
    done = run_harness9(
        "run",
        "go",
        "--workspace",
        str(workspace),
        "--replay",
        str(script),
        "--max-turns",
        "1",
        "--json",
    )
    assert done.code == 3, done.err
    lines = done.json_lines()
    assert lines[-1]["result"]["status"] == "max_turns"
    assert lines[-2]["kind"] == "run_finished"
    assert lines[-2]["status"] == "max_turns"


@pytest.mark.timeout(30)
def test_a_refused_run_exits_1_with_the_daemons_error(workspace: Path, replay: Any) -> None:
    script = replay([{"text": "never"}])
    done = run_harness9(
        "run",
        "go",
        "--workspace",
        str(workspace),
        "--replay",
        str(script),
        "--session",
        "s-unknown",
        "--json",
    )
    assert done.code == 1, done.err
    error = done.json_lines()[-1]["error"]
    assert error["code"] == -32602
    assert "sessionId" in error["message"]


def _processes_with(argument: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argument.encode() in args:
            found.append(int(entry.name))
    return found


def _start_sleeping_run(
    workspace: Path, replay: Any
) -> tuple[subprocess.Popen[str], str, list[str]]:
    """A `--json` run whose only tool call sleeps; returns once the sleep process exists."""
    seconds = f"{random.randint(30, 39)}.{random.randint(100000, 999999)}"
    script = replay(
        [
            {
                "text": "Waiting.",
                "tool_calls": [{"name": "bash", "arguments": {"command": f"sleep {seconds}"}}],
            },
            {"text": "never reached"},
        ]
    )
    proc = subprocess.Popen(
        [
            *HARNESS9,
            "run",
            "wait",
            "--workspace",
            str(workspace),
            "--replay",
            str(script),
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    for line in proc.stdout:
        lines.append(line)
        if '"kind": "tool_started"' in line:
            break
    deadline = time.monotonic() + 10
    while not _processes_with(seconds) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(seconds), "the sleep never started"
    return proc, seconds, lines


def _finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """The rest of stdout and stderr (reading the pipes, as their buffers already hold lines)."""
    assert proc.stdout is not None
    assert proc.stderr is not None
    with proc.stdout, proc.stderr:
        rest, err = proc.stdout.read(), proc.stderr.read()
    proc.wait(timeout=20)
    return rest, err


@pytest.mark.timeout(40)
def test_ctrl_c_cancels_the_run_and_kills_the_tool(workspace: Path, replay: Any) -> None:
    proc, seconds, lines = _start_sleeping_run(workspace, replay)
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    rest, err = _finish(proc)
    cancel_ms = (time.monotonic() - started) * 1000
    assert proc.returncode == 130, err
    done = Completed(130, "".join(lines) + rest, err)
    parsed = done.json_lines()
    assert parsed[-1]["error"]["code"] == -32800
    kinds = _kinds(parsed)
    assert kinds[-2:] == ["tool_failed", "run_finished"]
    assert parsed[-3]["reason"] == "cancelled"
    assert parsed[-2]["status"] == "cancelled"
    assert _processes_with(seconds) == []
    assert cancel_ms < 5000
    print(f"Ctrl-C to exit: {cancel_ms:.0f} ms", file=sys.stderr)


@pytest.mark.timeout(40)
def test_a_second_ctrl_c_stops_at_once_and_leaves_no_tool_behind(
    workspace: Path, replay: Any
) -> None:
    proc, seconds, _ = _start_sleeping_run(workspace, replay)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    rest, err = _finish(proc)
    assert proc.returncode == 130, err
    assert Completed(130, rest, err).json_lines()[-1]["error"]["code"] == -32800
    deadline = time.monotonic() + 5
    while _processes_with(seconds) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(seconds) == []


@pytest.mark.timeout(40)
def test_interactive_prompts_continue_one_session(workspace: Path, replay: Any) -> None:
    script = replay([{"text": "Noted."}])
    proc = subprocess.run(
        [*HARNESS9, "run", "-i", "--json", "--workspace", str(workspace), "--replay", str(script)],
        input="first\n\nsecond\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    lines = Completed(0, proc.stdout, proc.stderr).json_lines()
    results = [line["result"] for line in lines if "result" in line]
    assert [r["status"] for r in results] == ["completed", "completed"]
    assert results[0]["sessionId"] == results[1]["sessionId"]
    sizes = [line["messages"] for line in lines if line.get("kind") == "turn_started"]
    assert sizes[1] > sizes[0]  # the second prompt saw the first conversation
