"""The files a session's calls changed: noted as its calls end, kept with its checkpoints, read
back by a new daemon; a damaged list falls back to the files the checkpoints name."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness9.service.agent_service import AgentService
from harness9.service.sessions.session import Session, SessionCheckpoint
from harness9.service.sessions.session_file import checkpoint_record, session_from
from harness9.service.sessions.session_log import LoadedSession, SessionMeta
from tests.fakellm import Call, FakeLLM, Reply
from tests.service.test_runs import Recorder, request

pytestmark = pytest.mark.timeout(30)


async def test_a_sessions_changed_files_are_noted_and_outlive_the_daemon(
    fake: FakeLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake.script([
        Reply("", [Call("bash", {"command": "echo one > one.txt"}),
                   Call("write_file", {"path": "two.txt", "content": "two\n"})]),
        Reply("", [Call("bash", {"command": "echo again > one.txt; cat two.txt"})]),
        Reply("done"),
    ])
    service = AgentService()
    outcome = await service.turns.run(request(workspace), Recorder().wire)
    session = service.sessions.known(outcome.ids.session_id)
    root = str(workspace)
    # Turn 1's files once each (its two calls ran together), then turn 2's after its checkpoint.
    assert sorted(session.touched[:2]) == [(root, "one.txt"), (root, "two.txt")]
    assert session.touched[2:] == [(root, "one.txt")]
    # Before the run, after turn 1, after turn 2: how many were noted when each was taken.
    assert [c.touched_len for c in session.checkpoints] == [0, 2, 3]
    service.close()

    again = AgentService().sessions.known(outcome.ids.session_id)
    assert again.touched == session.touched
    assert [c.touched_len for c in again.checkpoints] == [0, 2, 3]


def test_a_damaged_list_falls_back_to_the_files_the_checkpoints_name(tmp_path: Path) -> None:
    checkpoint = SessionCheckpoint("c1", "r-1", 1, 0.0, (), 0, str(tmp_path), touched_len=1)
    for damaged in ["one.txt", [["root-only"]], [[str(tmp_path), 3]], []]:
        meta = SessionMeta("s-1", str(tmp_path), checkpoints=[checkpoint_record(checkpoint)],
                           touched=damaged)  # type: ignore[arg-type]
        session = session_from("s-1", LoadedSession([], meta, 0))
        assert session.touched == []
        assert session.checkpoints[0].touched_len is None  # too long for an empty list, too


def test_a_file_is_noted_once_after_the_newest_checkpoint(tmp_path: Path) -> None:
    session = Session("s-1")
    session.note_touched("/ws", ["a.txt", "a.txt", "b.txt"])
    session.checkpoints.append(
        SessionCheckpoint("c1", "r-1", 1, 0.0, (), 0, "/ws", touched_len=2))
    session.note_touched("/ws", ["a.txt"])
    session.note_touched("/other", ["a.txt"])
    assert session.touched == [("/ws", "a.txt"), ("/ws", "b.txt"), ("/ws", "a.txt"),
                               ("/other", "a.txt")]
