"""What the daemon keeps (sessions, checkpoints, their git objects) holds the user's files and
conversations: it is the user's alone, also when an older version made it open to others, and
another user's state folder is never used."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from harness9.engine.events import CheckpointsUnavailable
from harness9.service.agent_service import AgentService
from tests.fakellm import Call, FakeLLM, Reply
from tests.service.test_runs import Recorder, request

pytestmark = pytest.mark.timeout(60)


def open_to_others(top: Path) -> list[str]:
    """Every folder and file under `top` (and `top`) with a permission bit for the group or
    others, with its mode."""
    found = []
    for folder, names, files in os.walk(top):
        for path in [Path(folder), *(Path(folder) / name for name in files)]:
            mode = stat.S_IMODE(path.lstat().st_mode)
            if not path.is_symlink() and mode & 0o077:
                found.append(f"{path.relative_to(top.parent)} {mode:o}")
        del names  # walked by os.walk
    return sorted(set(found))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "secret.env").write_text("TOKEN=hunter2\n")
    (root / "secret.env").chmod(0o600)
    return root


async def run_once(fake: FakeLLM, workspace: Path) -> Recorder:
    fake.script([Reply("", [Call("bash", {"command": "echo MORE=1 >> secret.env"})]),
                 Reply("done")])
    front = Recorder()
    await AgentService().turns.run(request(workspace), front.wire)
    return front


async def test_sessions_and_checkpoints_are_private_to_the_user(
    fake: FakeLLM, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "made" / "state"
    monkeypatch.setenv("HARNESS9_STATE_DIR", str(state))
    await run_once(fake, workspace)
    assert list((state / "sessions").glob("*/*.jsonl"))
    assert list((state / "checkpoints").glob("*/objects/??/*"))
    assert open_to_others(state.parent) == []


async def test_what_an_older_version_left_open_is_made_private_when_next_used(
    fake: FakeLLM, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("HARNESS9_STATE_DIR", str(state))
    await run_once(fake, workspace)
    for folder, _, files in os.walk(state):  # as an older version left it
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    await run_once(fake, workspace)
    assert open_to_others(state) == []


async def test_a_state_folder_of_another_user_is_never_used(
    fake: FakeLLM, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another user takes root")
    state = tmp_path / "state"
    state.mkdir(mode=0o777)
    os.chown(state, 65534, 65534)
    monkeypatch.setenv("HARNESS9_STATE_DIR", str(state))
    front = await run_once(fake, workspace)
    assert os.listdir(state) == []  # the run went on with nothing kept there
    off = [e for e in front.events if isinstance(e, CheckpointsUnavailable)]
    assert len(off) == 1 and "another user" in off[0].message
