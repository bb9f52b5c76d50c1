"""What the interactive prompt shows on a real terminal (a pty, its screen emulated) against
the real daemon and the fake LLM service: typed-ahead prompts, `/help`, `/clear`, `/undo`."""

from __future__ import annotations

import re
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client.terminal import Terminal
from tests.fakellm import FakeLLM, Reply
from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm"]

pytestmark = pytest.mark.timeout(60)

CTRL_D = b"\x04"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM) -> None:
    """The processes the test starts use the fake LLM and a state folder of their own."""
    monkeypatch.setenv("HARNESS9_STATE_DIR", str(tmp_path / "state"))
    for name, value in fake_llm.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARNESS9_PROVIDER", "openai")


@pytest.fixture
def term(workspace: Path, env: None) -> Iterator[Terminal]:
    """`harness9 run` on the workspace, just started."""
    started = Terminal(["run", "--workspace", str(workspace)])
    yield started
    started.kill()


def _prompt_back(term: Terminal, runs: int) -> str:
    return term.wait_for(lambda screen: screen.count("✓ completed") == runs
                         and screen.endswith("›"))


def _quit(term: Terminal) -> str:
    term.type(CTRL_D)
    assert term.finish() == 0
    return term.transcript()


def test_a_prompt_typed_while_the_daemon_starts_shows_once(
    term: Terminal, fake_llm: FakeLLM
) -> None:
    fake_llm.script([Reply("Counted.")])
    deadline = time.monotonic() + 20
    # Typed as soon as harness9 has the terminal (it turns the echo of control keys off
    # first), before the prompt is drawn.
    while termios.tcgetattr(term.fd)[3] & termios.ECHOCTL:
        assert time.monotonic() < deadline, "harness9 never took the terminal"
        time.sleep(0.01)
    term.type(b"count the files\r")
    _prompt_back(term, 1)
    screen = _quit(term)
    assert screen.count("count the files") == 1, screen
    assert "› count the files" in screen


def test_help_lists_each_command_once(term: Terminal, fake_llm: FakeLLM) -> None:
    _prompt_back(term, 0)
    term.type(b"/help\r")
    term.wait_for(lambda screen: "/undo" in screen and screen.endswith("›"))
    screen = _quit(term)
    for name in ("/plan", "/model", "/help", "/undo", "/clear"):
        listed = re.findall(rf"^ +{name}\b", screen, re.MULTILINE)
        assert len(listed) == 1, (name, screen)
    assert fake_llm.requests == []


def test_clear_says_where_the_session_went_without_a_turn_count(
    term: Terminal, fake_llm: FakeLLM
) -> None:
    fake_llm.script([Reply("Hello.")])
    _prompt_back(term, 0)
    term.type(b"hello\r")
    _prompt_back(term, 1)
    term.type(b"/clear\r")
    _prompt_back(term, 2)
    screen = _quit(term)
    cleared = screen[screen.index("› /clear"):]
    assert re.search(r"✓ completed · /clear · \d+ ms", cleared), cleared
    assert "0 turns" not in cleared
    assert re.search(r"continuing in session s-\w+", cleared), cleared
