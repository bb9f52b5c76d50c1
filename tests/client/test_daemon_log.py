"""`harness9 run`'s daemon log: in a folder of the user's alone under the shared temp folder,
never one another user made first or a link left there, and readable by the user alone."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from harness9.client.runner import open_log

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shared temp folder (as /tmp: anyone may make names in it)."""
    folder = tmp_path / "shared-tmp"
    folder.mkdir()
    folder.chmod(0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def opened(temp: Path) -> Path:
    handle, path = open_log(verbose=False)
    assert handle is not None and path is not None
    with handle:
        handle.write("a daemon's line\n")
    assert path.is_relative_to(temp) and path.read_text().endswith("a daemon's line\n")
    return path


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_the_log_and_its_folder_are_the_user_s_alone(temp: Path) -> None:
    path = opened(temp)
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700 and path.parent.parent == temp
    assert opened(temp).parent == path.parent  # the same folder for the next run


def test_a_folder_of_ours_left_open_is_tightened(temp: Path) -> None:
    first = opened(temp).parent
    first.chmod(0o755)
    assert opened(temp).parent == first and mode(first) == 0o700


def test_a_folder_another_user_made_first_is_not_used(temp: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another user takes root")
    planted = []
    for name in ("harness9-logs", f"harness9-logs-{os.geteuid()}"):
        folder = temp / name
        folder.mkdir(mode=0o777)
        folder.chmod(0o777)
        os.chown(folder, 65534, 65534)
        planted.append(folder)
    path = opened(temp)
    assert path.parent not in planted and all(os.listdir(f) == [] for f in planted)
    assert path.parent.stat().st_uid == os.geteuid() and mode(path.parent) == 0o700


def test_a_link_left_in_its_place_is_not_followed(temp: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name in ("harness9-logs", f"harness9-logs-{os.geteuid()}"):
        (temp / name).symlink_to(elsewhere)
    path = opened(temp)
    assert os.listdir(elsewhere) == []
    assert not path.parent.is_symlink() and mode(path.parent) == 0o700
