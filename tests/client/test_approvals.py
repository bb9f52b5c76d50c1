"""`harness9 run` asks in the terminal before a tool call runs (in a real pseudo-terminal)."""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness9.process.sandbox import Mechanism, availability
from tests.client.conftest import HARNESS9, run_harness9

pytestmark = pytest.mark.timeout(60)

TURNS = [
    {"tool_calls": [{"name": "bash", "arguments": {"command": "touch planted && echo made"}}]},
    {"text": "Done."},
]


class Terminal:
    """`harness9 run …` on a pseudo-terminal: read what it shows, type answers."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become harness9
            os.execvpe(sys.executable, [*HARNESS9, *args], env)
        self.screen = ""

    def expect(self, text: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never appeared; the screen ends:\n{self.screen[-3000:]}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.screen += os.read(self.fd, 65536).decode("utf-8", "replace")
                except OSError:
                    break

    @property
    def text(self) -> str:
        """The screen without terminal control sequences."""
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", self.screen)

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def press(self, key: str) -> None:
        """One key, no Enter."""
        os.write(self.fd, key.encode())

    def wait(self, timeout: float = 20) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.expect_more(0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.expect_more(0.2)
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, 9)
        pytest.fail(f"harness9 run did not end; the screen ends:\n{self.screen[-3000:]}")

    def expect_more(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            with contextlib.suppress(OSError):  # the child has closed the terminal
                self.screen += os.read(self.fd, 65536).decode("utf-8", "replace")


def asking_env() -> dict[str, str]:
    env = {**os.environ, "HARNESS9_APPROVALS": "ask", "COLUMNS": "100", "TERM": "xterm"}
    return env


def run_in_terminal(workspace: Path, script: Path) -> Terminal:
    args = ["run", "make a file", "--workspace", str(workspace), "--replay", str(script)]
    return Terminal(args, asking_env())


def test_allowing_in_the_terminal_runs_the_command(workspace: Path, replay: Any) -> None:
    terminal = run_in_terminal(workspace, replay(TURNS))
    terminal.expect("allow [a]once")
    assert "harness9 asks to run bash: touch planted && echo made" in terminal.text
    terminal.type("a")
    assert terminal.wait() == 0
    assert (workspace / "planted").exists()
    assert "✓ completed" in terminal.text


def test_ctrl_c_while_asked_cancels_the_run_and_the_question(
    workspace: Path, replay: Any
) -> None:
    terminal = run_in_terminal(workspace, replay(TURNS))
    terminal.expect("allow [a]once")
    terminal.press("\x03")  # the daemon cancels the run, and its question with it
    assert terminal.wait() == 130
    assert not (workspace / "planted").exists()
    assert "■ cancelled" in terminal.text


def test_one_key_answers_without_enter(workspace: Path, replay: Any) -> None:
    terminal = run_in_terminal(workspace, replay(TURNS))
    terminal.expect("allow [a]once")
    terminal.press("s")
    terminal.expect("allowed for this session", timeout=10)
    assert terminal.wait() == 0
    assert (workspace / "planted").exists()
    assert "or [r]eject? s\r\n" in terminal.screen  # the key shows after the question


def test_rejecting_with_a_reason_reaches_the_model(workspace: Path, replay: Any) -> None:
    terminal = run_in_terminal(workspace, replay(TURNS))
    terminal.expect("allow [a]once")
    terminal.type("x")  # not a choice: asked again
    terminal.expect("please type a, s or r")
    terminal.type("r")
    terminal.expect("reason (for the model")  # the path holds "reason" too
    terminal.type("not in my home folder")
    assert terminal.wait() == 0
    assert not (workspace / "planted").exists()
    # the row says why, once; the model's text ("the user rejected …") is not repeated to the user
    row = "✗ run `touch planted && echo made` · rejected: not in my home folder"
    assert row in terminal.text
    rows = [line for line in terminal.text.splitlines() if line.lstrip().startswith("✗ ")]
    assert rows and all(line.count("rejected") == 1 for line in rows), rows
    assert "the user rejected this bash call" not in terminal.text


def test_without_a_terminal_a_question_is_a_rejection_that_says_what_to_do(
    workspace: Path, replay: Any
) -> None:
    args = ["run", "x", "--workspace", str(workspace), "--replay", str(replay(TURNS)), "--json"]
    done = run_harness9(*args, env=asking_env())
    failed = [n for n in done.json_lines() if n.get("kind") == "tool_failed"]
    assert [n["reason"] for n in failed] == ["rejected"]
    assert "rerun with --yes" in failed[0]["output"]
    assert not (workspace / "planted").exists()
    done = run_harness9(*args, "--yes", env=asking_env())
    assert [n["kind"] for n in done.json_lines() if n.get("kind") == "tool_completed"] == [
        "tool_completed"
    ]
    assert (workspace / "planted").exists()


def test_the_demo_runs_yolo_and_says_so() -> None:
    done = run_harness9("run", "--demo", env=asking_env(), timeout=60)
    assert done.code == 0, done.err + done.out
    assert done.out.startswith("demo · tool calls run without asking (approvals: yolo)")
    assert "✓ completed · 4 turns · 6 tool calls" in done.out


def test_the_terminal_shows_a_command_whole_whatever_it_holds(
    workspace: Path, replay: Any
) -> None:
    hidden = "echo ok\x1b]2;owned\x07\rtouch planted"
    turns = [{"tool_calls": [{"name": "bash", "arguments": {"command": hidden}}]},
             {"text": "Done."}]
    terminal = run_in_terminal(workspace, replay(turns))
    terminal.expect("allow [a]once")
    # The escape sequence and the carriage return are shown, not obeyed by the terminal.
    assert "\x1b]2;" not in terminal.screen and "\r" + "touch" not in terminal.screen
    shown = "echo ok\\x1b]2;owned\\x07\\rtouch planted"
    assert f"harness9 asks to run bash: {shown}" in terminal.text  # the title
    assert f"│ {shown}" in terminal.text  # the command in the question
    terminal.type("r")
    terminal.expect("reason (for the model")  # the path holds "reason" too
    terminal.type("")
    assert terminal.wait() == 0
    assert not (workspace / "planted").exists()


@pytest.mark.skipif(availability().mechanism is not Mechanism.BWRAP,
                    reason="bubblewrap does not work here")
def test_a_command_the_sandbox_stops_after_it_was_allowed_is_asked_about_again(
    workspace: Path, replay: Any
) -> None:
    """The machine's defaults (the sandbox, mode auto): a write under .git is asked about,
    allowed, stopped by bubblewrap all the same, then asked about again and run outside."""
    (workspace / ".git" / "info").mkdir(parents=True)
    command = "echo build/ >> .git/info/exclude"
    script = replay([{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
                     {"text": "Done."}])
    env = {**asking_env(), "HARNESS9_APPROVALS": "", "HARNESS9_SANDBOX": ""}
    args = ["run", "ignore build/", "--workspace", str(workspace), "--replay", str(script)]
    terminal = Terminal(args, env)
    terminal.expect("allow [a]once")
    terminal.type("a")
    terminal.expect("was stopped by the OS sandbox")
    terminal.type("a")
    assert terminal.wait() == 0
    assert (workspace / ".git" / "info" / "exclude").read_text() == "build/\n"
    assert "✓ completed" in terminal.text
