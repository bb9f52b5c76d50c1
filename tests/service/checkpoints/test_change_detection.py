"""A snapshot finds every change, whether it takes the short way (nothing changed since the
index was written: one `ls-files` pass) or the long one, on real git and real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness9.service.checkpoints.snapshots import CheckpointsOff, Limits, ShadowRepo

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def repo(tmp_path: Path) -> ShadowRepo:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("aaaa\n")
    (root / "run.sh").write_text("echo hi\n")
    (root / "ignored").mkdir()
    (root / ".gitignore").write_text("ignored/\n")
    shadow = await ShadowRepo.open(str(root), tmp_path / "state")
    await shadow.snapshot("first", force=True)
    return shadow


def _root(repo: ShadowRepo) -> Path:
    return Path(repo.git.work_tree)


async def _changed(repo: ShadowRepo) -> list[tuple[str, str]] | None:
    taken = await repo.snapshot("now")
    return None if taken is None else [(f.path, f.status) for f in taken.files]


async def test_each_kind_of_change_is_found_and_nothing_else(repo: ShadowRepo) -> None:
    root = _root(repo)
    assert await _changed(repo) is None
    # The same size, at once: only the file's times and its bytes differ from the index's.
    (root / "a.txt").write_text("bbbb\n")
    assert await _changed(repo) == [("a.txt", "modified")]
    (root / "run.sh").chmod(0o755)
    assert await _changed(repo) == [("run.sh", "modified")]
    (root / "new" / "deep").mkdir(parents=True)
    assert await _changed(repo) is None  # an empty folder is nothing git keeps
    (root / "new" / "deep" / "b.txt").write_text("b\n")
    assert await _changed(repo) == [("new/deep/b.txt", "added")]
    (root / "ignored" / "c.txt").write_text("c\n")
    assert await _changed(repo) is None
    (root / "a.txt").unlink()
    assert await _changed(repo) == [("a.txt", "deleted")]
    os.symlink("run.sh", root / "link")
    assert await _changed(repo) == [("link", "added")]
    os.unlink(root / "link")
    os.symlink("new/deep/b.txt", root / "link")
    assert await _changed(repo) == [("link", "modified")]


async def test_a_tree_taken_between_snapshots_does_not_hide_a_change(repo: ShadowRepo) -> None:
    root = _root(repo)
    (root / "a.txt").write_text("changed\n")
    middle = await repo.current_tree()  # a bash call's "before" or "after"
    assert await repo.current_tree() == middle
    assert await _changed(repo) == [("a.txt", "modified")]


async def test_an_index_written_by_another_process_is_not_trusted(repo: ShadowRepo) -> None:
    root = _root(repo)
    (root / "a.txt").write_text("changed by the user\n")
    # Another daemon on this workspace snapshots it: the shared index now holds the change.
    await repo.git.run("add", "--all")
    assert await _changed(repo) == [("a.txt", "modified")]


async def test_the_size_limits_hold_for_files_that_grow_or_arrive_later(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(b"a" * 100)
    limits = Limits(max_files=3, max_bytes=1000)
    repo = await ShadowRepo.open(str(root), tmp_path / "state", limits)
    await repo.snapshot("first", force=True)
    (root / "a.txt").write_bytes(b"a" * 900)  # 900 bytes: still within
    assert await _changed(repo) == [("a.txt", "modified")]
    (root / "b.txt").write_bytes(b"b" * 200)  # 1,100 bytes in all
    with pytest.raises(CheckpointsOff, match="its files take"):
        await repo.snapshot("too big")
    (root / "a.txt").write_bytes(b"a")
    assert await _changed(repo) == [("a.txt", "modified"), ("b.txt", "added")]
    (root / "c.txt").write_text("c")
    (root / "d.txt").write_text("d")
    with pytest.raises(CheckpointsOff, match="4 files are more than 3"):
        await repo.snapshot("too many")


async def test_two_daemons_on_one_workspace_never_overwrite_each_others_checkpoints(
    tmp_path: Path,
) -> None:
    # Each remembers its next checkpoint number; the other may have taken it meanwhile.
    root = tmp_path / "ws"
    root.mkdir()
    first = await ShadowRepo.open(str(root), tmp_path / "state")
    second = await ShadowRepo.open(str(root), tmp_path / "state")
    taken = []
    for step, repo in enumerate([first, second, first, second, first]):
        (root / "f.txt").write_text(f"version {step}\n")
        checkpoint = await repo.snapshot(f"step {step}", force=True)
        assert checkpoint is not None
        taken.append(checkpoint.id)
    assert await first.checkpoint_ids() == taken  # all kept, in order, none overwritten


async def test_a_runs_first_checkpoint_of_an_unchanged_workspace_lists_no_files(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    repo = await ShadowRepo.open(str(root), tmp_path / "state")
    await repo.snapshot("run 1", force=True)
    again = await repo.snapshot("run 2", force=True)
    assert again is not None and again.files == ()
    (root / "a.txt").write_text("b\n")
    changed = await repo.snapshot("run 3", force=True)
    assert changed is not None and [f.path for f in changed.files] == ["a.txt"]
