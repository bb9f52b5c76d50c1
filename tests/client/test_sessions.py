"""`harness9 sessions` and `harness9 run --resume [SESSION]` against the real daemon's stored
sessions (each test has its own HARNESS9_STATE_DIR), and `harness9 --version`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness9 import __version__
from harness9.client.stored_sessions import NO_SESSIONS_METHOD
from tests.client.conftest import run_harness9

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def listed(workspace: Path) -> Any:
    """`listed()`: the workspace's sessions from `harness9 sessions --json`; the test is skipped
    when the daemon does not announce `agent/sessions` in its capabilities."""

    def sessions() -> list[dict[str, Any]]:
        done = run_harness9("sessions", "--workspace", str(workspace), "--json")
        if done.code == 2 and done.err == NO_SESSIONS_METHOD:
            pytest.skip("the daemon's capabilities do not list agent/sessions yet")
        assert done.code == 0, done.err
        found: list[dict[str, Any]] = done.json_lines()[0]["sessions"]
        return found

    return sessions


def _run(workspace: Path, script: Path, prompt: str, *extra: str) -> tuple[dict[str, Any], str]:
    done = run_harness9("run", prompt, "--workspace", str(workspace), "--replay", str(script),
                        "--json", *extra)
    assert done.code == 0, done.err
    return done.json_lines()[-1]["result"], done.err


def test_sessions_lists_the_workspaces_sessions_newest_first(
    workspace: Path, replay: Any, listed: Any
) -> None:
    assert listed() == []
    script = replay([{"text": "Noted."}])
    first, _ = _run(workspace, script, "first task")
    second, _ = _run(workspace, script, "second task")
    sessions = listed()
    assert [s["sessionId"] for s in sessions] == [second["sessionId"], first["sessionId"]]
    assert [s["title"] for s in sessions] == ["second task", "first task"]
    table = run_harness9("sessions", "--workspace", str(workspace))
    assert table.code == 0, table.err
    assert "first task" in table.out and second["sessionId"] in table.out
    assert "harness9 run --resume SESSION" in table.out


def test_resume_continues_the_newest_session_and_recalls_it(
    workspace: Path, replay: Any, listed: Any
) -> None:
    listed()
    older, _ = _run(workspace, replay([{"text": "Old answer."}]), "older task")
    newer, _ = _run(workspace, replay([{"text": "The answer is 42.\n\nMore below."}]), "newer")
    script = replay([{"text": "Still 42."}])
    resumed, err = _run(workspace, script, "and now?", "--resume")
    assert resumed["sessionId"] == newer["sessionId"]
    assert f"resuming {newer['sessionId']} · newer · 1 run" in err
    assert "The answer is 42." in err and "More below." in err
    again, _ = _run(workspace, script, "back to the old one", "--resume", older["sessionId"])
    assert again["sessionId"] == older["sessionId"]
    runs = {s["sessionId"]: s["runs"] for s in listed()}
    assert runs == {older["sessionId"]: 2, newer["sessionId"]: 2}


def test_the_readmes_resume_form_takes_its_value_as_the_prompt(
    workspace: Path, replay: Any, listed: Any
) -> None:
    listed()
    first, _ = _run(workspace, replay([{"text": "Found three lint errors."}]), "lint it")
    done = run_harness9("run", "--resume", "now the lint errors", "--workspace", str(workspace),
                        "--replay", str(replay([{"text": "Fixed."}])), "--json")
    assert done.code == 0, done.err
    assert done.json_lines()[-1]["result"]["sessionId"] == first["sessionId"]
    stored = next(Path(os.environ["HARNESS9_STATE_DIR"]).rglob(f"{first['sessionId']}.jsonl"))
    prompts = [json.loads(line)["message"]["content"] for line in stored.read_text().splitlines()
               if '"role":"user"' in line]
    assert [p.endswith(text) for p, text in zip(prompts, ["lint it", "now the lint errors"],
                                                 strict=True)] == [True, True]
    # A value shaped like a session id is one: an unknown one is an error, not a prompt.
    wrong = run_harness9("run", "--resume", "s-0123456789ab", "go on", "--workspace",
                         str(workspace), "--replay", str(replay([{"text": "never"}])))
    assert wrong.code == 1 and "cannot resume s-0123456789ab" in wrong.out


def test_the_live_view_shows_the_recap_above_the_run(
    workspace: Path, replay: Any, listed: Any
) -> None:
    listed()
    _run(workspace, replay([{"text": "First answer."}]), "remember this")
    done = run_harness9("run", "go on", "--workspace", str(workspace), "--replay",
                        str(replay([{"text": "Going on."}])), "--resume")
    assert done.code == 0, done.err
    recap = done.out.index("resuming s-")
    assert "· remember this · 1 run" in done.out
    assert recap < done.out.index("First answer.") < done.out.index("● turn 1")


def test_nothing_to_resume_is_a_clear_error(workspace: Path, replay: Any, listed: Any) -> None:
    listed()
    done = run_harness9("run", "x", "--workspace", str(workspace), "--replay",
                        str(replay([{"text": "never"}])), "--resume")
    assert done.code == 1
    assert f"no earlier session in {workspace} to resume" in " ".join(done.out.split())


def test_version() -> None:
    done = run_harness9("--version")
    assert (done.code, done.out.strip()) == (0, f"harness9 {__version__}")
