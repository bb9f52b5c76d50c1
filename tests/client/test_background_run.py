"""`harness9 run --background`: the run goes on as a task in a worktree after the command has
returned; `harness9 tasks` lists it and applies it."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from harness9.client.background_run import BackgroundUsage, exec_arguments
from tests.client.conftest import HARNESS9

pytestmark = pytest.mark.timeout(120)


def test_the_exec_command_line_is_runs_with_a_worktree_and_json_lines() -> None:
    assert exec_arguments(["run", "fix it", "--workspace", "w", "--background"]) == [
        "exec", "fix it", "--workspace", "w", "--worktree", "--json", "--approvals", "auto"]
    assert exec_arguments(["run", "--background", "-y", "x"]) == [
        "exec", "-y", "x", "--worktree", "--json"]
    assert exec_arguments(["run", "-", "--background"], "from stdin")[1] == "from stdin"
    for refused in ("-i", "--plan", "--execute-plan"):
        with pytest.raises(BackgroundUsage, match=re.escape(refused)):
            exec_arguments(["run", "x", refused, "--background"])


def _harness9(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HARNESS9, *args], cwd=root, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                   check=True, capture_output=True, timeout=30)


def _tasks(root: Path) -> list[dict[str, Any]]:
    done = _harness9(root, "tasks", "--json")
    assert done.returncode == 0, done.stderr
    tasks: list[dict[str, Any]] = json.loads(done.stdout)["tasks"]
    return tasks


def test_a_background_run_returns_at_once_and_leaves_a_task_to_apply(
        workspace: Path, replay: Any) -> None:
    _git(workspace, "init", "-q", "-b", "main")
    (workspace / "a.txt").write_text("one\n")
    _git(workspace, "add", "-A")
    _git(workspace, "commit", "-qm", "start")
    script = replay([
        {"tool_calls": [{"name": "write_file",
                         "arguments": {"path": "b.txt", "content": "from the task\n"}}]},
        {"text": "Wrote b.txt."}], delta_delay_ms=0)
    started = time.monotonic()
    done = _harness9(workspace, "run", "write b", "--background", "--replay", str(script))
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 30
    log = Path(re.search(r"progress: (\S+)", done.stdout)[1])  # type: ignore[index]
    deadline = time.monotonic() + 90
    while not (tasks := [t for t in _tasks(workspace) if t["status"] == "completed"]):
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.5)
    assert not (workspace / "b.txt").exists()  # untouched until applied
    records = [json.loads(line) for line in log.read_text().splitlines()
               if line.startswith("{")]
    assert records[-1]["type"] == "result" and records[-1]["status"] == "completed"
    applied = _harness9(workspace, "tasks", "apply", tasks[0]["sessionId"])
    assert applied.returncode == 0, applied.stderr
    assert (workspace / "b.txt").read_text() == "from the task\n"
