"""`harness9 restore [CHECKPOINT]` against the real daemon: listing a session's checkpoints,
restoring one by the start of its id, undoing that; and `harness9` alone prints its help."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.client.conftest import run_harness9
from tests.client.terminal import Terminal

pytestmark = pytest.mark.timeout(60)

WRITE = [
    {"text": "Writing.",
     "tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "new\n"}}]},
    {"text": "Done."},
]


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state folder of the test's own: its sessions are the only ones."""
    folder = tmp_path / "state"
    monkeypatch.setenv("HARNESS9_STATE_DIR", str(folder))
    return folder


def _listed(workspace: Path) -> list[dict[str, Any]]:
    done = run_harness9("restore", "--workspace", str(workspace), "--json")
    assert done.code == 0, done.err
    [answer] = done.json_lines()
    checkpoints: list[dict[str, Any]] = answer["checkpoints"]
    return checkpoints


def test_restore_lists_checkpoints_and_puts_the_files_back(
    workspace: Path, state: Path, replay: Any
) -> None:
    ran = run_harness9("run", "write a.txt", "--workspace", str(workspace),
                       "--replay", str(replay(WRITE)))
    assert ran.code == 0, ran.err
    assert (workspace / "a.txt").read_text() == "new\n"
    listed = run_harness9("restore", "--workspace", str(workspace))
    assert listed.code == 0, listed.err
    assert "checkpoints of session s-" in listed.out
    assert "turn 1 of “write a.txt” · changed: a.txt" in listed.out
    first = _listed(workspace)[-1]["checkpointId"]  # newest first: the run's first is last
    restored = run_harness9("restore", first[:8], "--workspace", str(workspace))
    assert restored.code == 0, restored.err
    assert not (workspace / "a.txt").exists()
    assert f"restored checkpoint {first[:12]}: 1 file(s) changed\n  a.txt" in restored.out
    undo = re.search(r"undo this: harness9 restore (\w+)", restored.out)
    assert undo, restored.out
    again = run_harness9("restore", undo[1], "--workspace", str(workspace))
    assert again.code == 0, again.err
    assert (workspace / "a.txt").read_text() == "new\n"


def test_restore_says_when_there_is_nothing(workspace: Path, state: Path) -> None:
    empty = run_harness9("restore", "--workspace", str(workspace))
    assert empty.code == 0, empty.err
    assert "no sessions in" in empty.out
    unknown = run_harness9("restore", "abc123", "--workspace", str(workspace))
    assert unknown.code == 1
    assert "no checkpoint abc123 in" in unknown.err


def test_harness9_alone_prints_its_help() -> None:
    done = run_harness9()
    assert done.code == 0, done.err
    assert done.out.startswith("usage: harness9")
    for command in ("run", "sessions", "restore", "serve"):
        assert f"\n    {command} " in done.out


def test_after_undo_in_the_terminal_the_session_is_free_for_another_process(
    workspace: Path, state: Path, replay: Any
) -> None:
    """`/undo` in the interactive client lets the session go once done: `harness9 restore`
    from another process takes it while the client is still open."""
    term = Terminal(["run", "--workspace", str(workspace), "--replay", str(replay(WRITE))])
    try:
        term.wait_for(lambda screen: screen.endswith("›"))
        term.type(b"write a.txt\r")
        term.wait_for(lambda screen: "Done." in screen and screen.endswith("›"))
        term.type(b"/undo\r")
        term.wait_for(lambda screen: "Restored the files" in screen and screen.endswith("›"))
        assert not (workspace / "a.txt").exists()
        undo = re.search(r"Checkpoint\s+(\w+)\s+takes this back", term.transcript())
        assert undo, term.transcript()
        again = run_harness9("restore", undo[1], "--workspace", str(workspace))
        assert again.code == 0, again.err
        assert (workspace / "a.txt").read_text() == "new\n"
        term.type(b"\x04")
        assert term.finish() == 0
    finally:
        term.kill()
