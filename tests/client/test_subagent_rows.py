"""A task's child agent in the terminal: its rows indented under the task's row while it runs,
folded to one line once the task ended (the daemon real, the model scripted per conversation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.client.terminal import Terminal
from tests.fakellm import Call, FakeLLM, Reply
from tests.fakellm.router import Router


@pytest.mark.timeout(60)
def test_a_childs_rows_show_under_its_task_then_fold_to_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("alpha\n")
    router = Router({
        "look": [Reply("", [Call("task", {"description": "find alpha",
                                          "prompt": "CHILD find alpha"}, id="t1")]),
                 Reply("It is in a.txt.")],
        "CHILD": [Reply("Reading the file.", [Call("read_file", {"path": "a.txt"})]),
                  Reply("alpha: a.txt line 1", first_byte_delay=2.0)],
    })
    with FakeLLM(responder=router) as fake:
        for name, value in {**fake.env(), "HARNESS9_PROVIDER": "openai",
                            "HARNESS9_MODEL": "gpt-4o", "HARNESS9_LANGUAGE_SERVERS": "{}"
                            }.items():
            monkeypatch.setenv(name, value)
        term = Terminal(["run", "look", "--workspace", str(workspace)])
        try:
            live = term.wait_for(lambda screen: "✓ read a.txt" in screen)
            task_row = next(line for line in live.splitlines() if "explore: find alpha" in line)
            child_row = next(line for line in live.splitlines() if "✓ read a.txt" in line)
            assert child_row.index("✓") > task_row.index("task")  # indented under the task
            assert "Reading the file." in live
            assert term.finish() == 0
        finally:
            term.kill()
    screen = term.transcript()
    assert "↳ explore: 1 call · " in screen, screen
    assert "✓ read a.txt" not in screen.split("↳ explore")[1]  # folded once done
    assert "It is in a.txt." in screen


def _task_lines(screen: str) -> list[str]:
    """The task's row and its folded child line, as the screen shows them."""
    lines = screen.splitlines()
    at = next(i for i, line in enumerate(lines) if "explore: find alpha" in line)
    return [line.strip() for line in lines[at:at + 2]]


@pytest.mark.timeout(90)
def test_a_resumed_sessions_recap_shows_its_task_as_it_ended_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("alpha\n")
    router = Router({
        "look": [Reply("", [Call("task", {"description": "find alpha",
                                          "prompt": "CHILD find alpha"}, id="t1")]),
                 Reply("It is in a.txt."), Reply("Still a.txt.")],  # the last: resumed
        "CHILD": [Reply("Reading.", [Call("read_file", {"path": "a.txt"}),
                                     Call("read_file", {"path": "missing.txt"})]),
                  Reply("alpha: a.txt line 1")],
    })
    with FakeLLM(responder=router) as fake:
        for name, value in {**fake.env(), "HARNESS9_PROVIDER": "openai",
                            "HARNESS9_MODEL": "gpt-4o", "HARNESS9_LANGUAGE_SERVERS": "{}"
                            }.items():
            monkeypatch.setenv(name, value)
        for argv in (["run", "look"], ["run", "--resume", "again"]):
            term = Terminal([*argv, "--workspace", str(workspace)])
            try:
                assert term.finish() == 0, term.transcript()
            finally:
                term.kill()
            if argv[1] == "look":
                live = _task_lines(term.transcript())
    recap = term.transcript().split("● turn 1")[0]
    assert live[1].startswith("↳ explore: 2 calls · "), live
    assert _task_lines(recap) == live
