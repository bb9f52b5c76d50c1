"""Checkpoints on real temp workspaces with real git: what changed, restoring every byte, and
never touching the user's own repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness9.service.checkpoints.shadow_git import GitError
from harness9.service.checkpoints.snapshots import ChangedFile, CheckpointsOff, Limits, ShadowRepo

pytestmark = pytest.mark.timeout(60)


def bash(workspace: Path, command: str) -> None:
    subprocess.run(["bash", "-c", command], cwd=workspace, check=True, timeout=30)


def git_status(workspace: Path) -> bytes:
    done = subprocess.run(["git", "status", "--porcelain"], cwd=workspace, capture_output=True,
                          check=True, timeout=30)
    return done.stdout


def tree_bytes(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root` (but .git) with its bytes and mode."""
    files = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.split("/")[0] == ".git" or not path.is_file() or path.is_symlink():
            continue
        files[relative] = (path.read_bytes(), path.stat().st_mode & 0o7777)
    return files


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "keep.txt").write_text("keep\n")
    (root / "edit.txt").write_bytes(b"line one\r\nline two\r\n")
    (root / "gone.txt").write_text("to be deleted\n")
    (root / "old_name.txt").write_text("renamed later\n")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 64)
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    return root


async def repo_for(workspace: Path, tmp_path: Path, **limits: int) -> ShadowRepo:
    return await ShadowRepo.open(str(workspace), tmp_path / "state", Limits(**limits))


async def test_a_bash_command_s_changes_are_named(workspace: Path, tmp_path: Path) -> None:
    repo = await repo_for(workspace, tmp_path)
    first = await repo.snapshot("before", force=True)
    assert first is not None and first.files == ()
    assert await repo.snapshot("nothing happened") is None
    bash(workspace, "printf 'line one\\r\\nLINE TWO\\r\\n' > edit.txt && rm gone.txt && "
                    "mv old_name.txt new_name.txt && mkdir -p sub && echo new > sub/added.txt")
    after = await repo.snapshot("after")
    assert after is not None
    assert sorted(after.files, key=lambda f: f.path) == [
        ChangedFile("edit.txt", "modified"),
        ChangedFile("gone.txt", "deleted"),
        ChangedFile("new_name.txt", "added"),
        ChangedFile("old_name.txt", "deleted"),
        ChangedFile("sub/added.txt", "added"),
    ]


async def test_restore_brings_back_every_byte_and_removes_added_files(
    workspace: Path, tmp_path: Path
) -> None:
    before = tree_bytes(workspace)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await repo.snapshot("before", force=True)
    assert checkpoint is not None
    bash(workspace, "printf 'x' > edit.txt && rm gone.txt blob.bin && mv old_name.txt n.txt && "
                    "chmod 644 run.sh && mkdir -p deep/er && echo new > deep/er/added.txt && "
                    "head -c 5000 /dev/urandom > noise.bin")
    restored = await repo.restore(checkpoint.id)
    assert tree_bytes(workspace) == before
    assert not (workspace / "deep").exists()  # folders the agent made and left empty go too
    assert set(restored.paths) >= {"edit.txt", "gone.txt", "blob.bin", "n.txt", "noise.bin"}


async def test_a_restore_can_itself_be_undone(workspace: Path, tmp_path: Path) -> None:
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await repo.snapshot("before", force=True)
    assert checkpoint is not None
    bash(workspace, "echo agent > edit.txt && echo agent > made.txt")
    after_agent = tree_bytes(workspace)
    restored = await repo.restore(checkpoint.id)
    assert (await repo.checkpoint_ids())[-1] == restored.undo
    await repo.restore(restored.undo)
    assert tree_bytes(workspace) == after_agent


async def test_the_user_s_repository_is_never_touched(workspace: Path, tmp_path: Path) -> None:
    bash(workspace, "git init -q && git add keep.txt edit.txt && "
                    "git -c user.name=u -c user.email=u@x commit -qm init && "
                    "echo staged >> keep.txt && git add keep.txt && echo unstaged >> edit.txt")
    status = git_status(workspace)
    git_files = {p: p.read_bytes() for p in (workspace / ".git").rglob("*") if p.is_file()}
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await repo.snapshot("before", force=True)
    assert checkpoint is not None
    bash(workspace, "echo agent > new.txt && echo agent >> gone.txt")
    await repo.snapshot("after")
    await repo.restore(checkpoint.id)
    assert {p: p.read_bytes() for p in (workspace / ".git").rglob("*") if p.is_file()} == git_files
    assert git_status(workspace) == status


async def test_ignored_files_are_not_tracked_nor_restored(workspace: Path, tmp_path: Path) -> None:
    (workspace / ".gitignore").write_text("*.log\n")
    (workspace / "node_modules").mkdir()
    (workspace / "node_modules" / "dep.js").write_text("dep\n")
    (workspace / "app.log").write_text("old log\n")
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await repo.snapshot("before", force=True)
    assert checkpoint is not None
    bash(workspace, "echo new log >> app.log && echo changed > node_modules/dep.js && "
                    "echo x > node_modules/more.js")
    assert await repo.snapshot("after") is None  # nothing tracked changed
    await repo.restore(checkpoint.id)
    assert (workspace / "app.log").read_text() == "old log\nnew log\n"
    assert (workspace / "node_modules" / "more.js").exists()


async def test_a_nested_repository_is_left_out_and_named(workspace: Path, tmp_path: Path) -> None:
    nested = workspace / "vendor" / "lib"
    nested.mkdir(parents=True)
    bash(nested, "git init -q && echo lib > lib.txt && git add . && "
                 "git -c user.name=u -c user.email=u@x commit -qm lib")
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await repo.snapshot("before", force=True)
    assert checkpoint is not None
    assert repo.skipped == ["vendor/lib"]
    bash(workspace, "echo changed > vendor/lib/lib.txt && echo x > keep.txt")
    after = await repo.snapshot("after")
    assert after is not None and [f.path for f in after.files] == ["keep.txt"]
    await repo.restore(checkpoint.id)
    assert (nested / "lib.txt").read_text() == "changed\n"  # not ours to restore
    assert (workspace / "keep.txt").read_text() == "keep\n"


async def test_a_workspace_over_the_limits_turns_checkpoints_off(
    workspace: Path, tmp_path: Path
) -> None:
    repo = await repo_for(workspace, tmp_path, max_files=3)
    with pytest.raises(CheckpointsOff, match="files are more than 3"):
        await repo.snapshot("x", force=True)
    repo = await repo_for(workspace, tmp_path, max_bytes=10_000)
    with pytest.raises(CheckpointsOff, match="more than 0 MB"):
        await repo.snapshot("x", force=True)
    objects = tmp_path / "state"
    assert sum(1 for p in objects.rglob("objects/??/*")) == 0  # nothing was copied


async def test_a_user_git_config_cannot_change_what_is_stored(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[core]\n\tautocrlf = true\n\thooksPath = /nonexistent\n[commit]\n\tgpgsign = true\n"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await repo.snapshot("before", force=True)
    assert checkpoint is not None
    (workspace / "edit.txt").write_bytes(b"changed\n")
    await repo.restore(checkpoint.id)
    assert (workspace / "edit.txt").read_bytes() == b"line one\r\nline two\r\n"


async def test_prune_keeps_the_newest(workspace: Path, tmp_path: Path) -> None:
    repo = await repo_for(workspace, tmp_path)
    for i in range(5):
        (workspace / "keep.txt").write_text(f"{i}\n")
        await repo.snapshot(f"s{i}")
    ids = await repo.checkpoint_ids()
    assert len(ids) == 5
    assert await repo.prune(keep=2) == 3
    assert await repo.checkpoint_ids() == ids[-2:]
    commits = await repo.git.run("rev-list", "--all")
    assert sorted(commits.decode().split()) == sorted(ids[-2:])  # the pruned ones are gone
    first_blob = (await repo.git.run("hash-object", "--stdin", stdin=b"0\n")).decode().strip()
    with pytest.raises(GitError):  # and so is the content only they held
        await repo.git.run("cat-file", "-e", first_blob)


async def test_snapshots_after_pruning_keep_every_checkpoint_kept(
    workspace: Path, tmp_path: Path
) -> None:
    repo = await repo_for(workspace, tmp_path)
    for i in range(4):
        (workspace / "keep.txt").write_text(f"{i}\n")
        await repo.snapshot(f"s{i}")
    await repo.prune(keep=2)
    kept = await repo.checkpoint_ids()
    (workspace / "keep.txt").write_text("after\n")
    newest = await repo.snapshot("after the prune")
    assert newest is not None
    assert await repo.checkpoint_ids() == [*kept, newest.id]  # none was overwritten


async def test_the_current_tree_keeps_no_checkpoint(workspace: Path, tmp_path: Path) -> None:
    repo = await repo_for(workspace, tmp_path)
    first = await repo.snapshot("start", force=True)
    assert first is not None
    (workspace / "made.txt").write_text("new\n")
    tree = await repo.current_tree()
    assert await repo.checkpoint_ids() == [first.id]
    assert await repo.changes(first.tree, tree) == [ChangedFile("made.txt", "added")]


async def test_pruning_leaves_a_draft_that_is_not_kept_yet(workspace: Path, tmp_path: Path) -> None:
    repo = await repo_for(workspace, tmp_path)
    for n in range(3):
        bash(workspace, f"echo {n} > n.txt")
        await repo.snapshot(f"c{n}", force=True)
    bash(workspace, "echo draft > n.txt")
    draft = await repo.draft("before the run")
    assert await repo.prune(keep=1) == 2
    kept = await repo.keep(draft, "before turn 1")
    assert kept.id == draft.id  # not collected: named as it was drafted
    assert await repo.git.run("show", f"{kept.id}:n.txt") == b"draft\n"
    assert (await repo.checkpoint_ids())[-1] == kept.id


async def test_a_draft_another_daemon_collected_is_taken_again(
    workspace: Path, tmp_path: Path
) -> None:
    repo = await repo_for(workspace, tmp_path)
    draft = await repo.draft("before the run")
    await repo.git.run("gc", "--quiet", "--prune=now")  # as another daemon's pruning would
    bash(workspace, "echo new > new.txt")
    kept = await repo.keep(draft, "before turn 1")
    assert kept.id != draft.id
    assert await repo.checkpoint_ids() == [kept.id]
    assert await repo.git.run("show", f"{kept.id}:new.txt") == b"new\n"
