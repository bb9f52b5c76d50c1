"""The state directory: where sessions and checkpoints live."""

from __future__ import annotations

from pathlib import Path

from harness9.service.state import state_dir, workspace_key


def test_the_state_directory_follows_the_environment() -> None:
    assert state_dir({"HARNESS9_STATE_DIR": "/s", "XDG_STATE_HOME": "/x"}) == Path("/s")
    assert state_dir({"XDG_STATE_HOME": "/x"}) == Path("/x/harness9")
    assert state_dir({}) == Path.home() / ".local" / "state" / "harness9"


def test_tests_never_write_state_to_the_real_home() -> None:
    assert not state_dir().is_relative_to(Path.home() / ".local")


def test_a_workspace_key_is_stable_and_tells_workspaces_apart(tmp_path: Path) -> None:
    a, b = tmp_path / "proj a", tmp_path / "other" / "proj a"
    a.mkdir()
    b.mkdir(parents=True)
    assert workspace_key(str(a)) == workspace_key(str(a) + "/")
    assert workspace_key(str(a)) != workspace_key(str(b))
    assert workspace_key(str(a)).startswith("proj_a-")
