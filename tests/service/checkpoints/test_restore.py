"""Restores on real workspaces with real links: a restore removes or replaces a link itself and
never what it leads to, checks everything before it writes, and leaves the workspace as it found
it when it cannot finish."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness9.service.checkpoints.snapshots import Limits, RestoreFailed, ShadowRepo

pytestmark = pytest.mark.timeout(60)

Entry = tuple[str, bytes, int]  # kind, bytes (a link: its target), mode


def entries(root: Path) -> dict[str, Entry]:
    """Every entry under `root` but `.git`, as it is on disk: links are read, never followed."""
    found: dict[str, Entry] = {}
    for folder, names, files in os.walk(root):
        names[:] = [n for n in names if n != ".git"]
        for name in names + files:
            path = Path(folder) / name
            info = path.lstat()
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[key] = ("link", os.readlink(path).encode(), 0)
            elif path.is_dir():
                found[key] = ("dir", b"", info.st_mode & 0o7777)
            else:
                found[key] = ("file", path.read_bytes(), info.st_mode & 0o7777)
    return found


def bash(workspace: Path, command: str) -> None:
    subprocess.run(["bash", "-c", command], cwd=workspace, check=True, timeout=30)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "keep.txt").write_text("keep\n")
    (root / "edit.txt").write_text("before\n")
    (root / "sub").mkdir()
    (root / "sub" / "one.txt").write_text("one\n")
    (root / "sub" / "two.txt").write_text("two\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the workspace, with files named as the workspace's."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "one.txt").write_text("outside one\n")
    (folder / "two.txt").write_text("outside two\n")
    (folder / "keep.txt").write_text("outside keep\n")
    return folder


async def repo_for(workspace: Path, tmp_path: Path) -> ShadowRepo:
    return await ShadowRepo.open(str(workspace), tmp_path / "state", Limits())


async def checkpoint_of(repo: ShadowRepo) -> str:
    checkpoint = await repo.snapshot("before", force=True)
    assert checkpoint is not None
    return checkpoint.id


async def test_a_link_added_since_is_removed_not_the_file_it_leads_to(
    workspace: Path, tmp_path: Path
) -> None:
    before = entries(workspace)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, "ln -s keep.txt lnk && echo agent > edit.txt")
    await repo.restore(checkpoint)
    assert entries(workspace) == before


async def test_a_link_to_a_folder_replaced_by_a_real_folder_comes_back_as_the_link(
    workspace: Path, tmp_path: Path
) -> None:
    bash(workspace, "ln -s sub linked")
    before = entries(workspace)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, "rm linked && mkdir linked && echo mine > linked/one.txt && "
                    "echo mine > linked/two.txt")
    await repo.restore(checkpoint)
    assert entries(workspace) == before  # sub/one.txt and sub/two.txt are still there


async def test_a_folder_swapped_for_a_link_out_of_the_workspace_comes_back(
    workspace: Path, tmp_path: Path, outside: Path
) -> None:
    before, outside_before = entries(workspace), entries(outside)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, f"echo agent > edit.txt && rm -r sub && ln -s {outside} sub")
    await repo.restore(checkpoint)
    assert entries(workspace) == before
    assert entries(outside) == outside_before


async def test_a_folder_swapped_for_a_link_inside_comes_back_and_the_target_stays(
    workspace: Path, tmp_path: Path
) -> None:
    bash(workspace, "mkdir other && echo other > other/one.txt")
    before = entries(workspace)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, "rm -r sub && ln -s other sub")
    await repo.restore(checkpoint)
    assert entries(workspace) == before


async def test_links_added_that_lead_out_are_removed_and_what_they_lead_to_stays(
    workspace: Path, tmp_path: Path, outside: Path
) -> None:
    before, outside_before = entries(workspace), entries(outside)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, f"ln -s {outside} out && ln -s {outside}/keep.txt secret && "
                    "echo agent > edit.txt && echo agent > sub/one.txt")
    await repo.restore(checkpoint)
    assert entries(workspace) == before
    assert entries(outside) == outside_before


async def test_a_checkpointed_link_comes_back_as_a_link_with_its_target_text(
    workspace: Path, tmp_path: Path, outside: Path
) -> None:
    bash(workspace, f"ln -s keep.txt near && ln -s {outside}/keep.txt far && "
                    "ln -s missing dangling")
    before = entries(workspace)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, "rm near dangling && rm far && echo file > far && mkdir dangling")
    await repo.restore(checkpoint)
    assert entries(workspace) == before


async def test_a_file_replaced_by_a_folder_and_back(workspace: Path, tmp_path: Path) -> None:
    before = entries(workspace)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, "rm edit.txt && mkdir -p edit.txt/deep && echo x > edit.txt/deep/f && "
                    "rm -r sub && echo now a file > sub")
    after = entries(workspace)
    restored = await repo.restore(checkpoint)
    assert entries(workspace) == before
    await repo.restore(restored.undo)
    assert entries(workspace) == after


async def test_modes_are_kept_and_the_exec_bit_comes_back(workspace: Path, tmp_path: Path) -> None:
    (workspace / "secret.txt").write_text("s\n")
    (workspace / "secret.txt").chmod(0o600)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, "echo changed > secret.txt && chmod 644 run.sh && echo x >> run.sh")
    await repo.restore(checkpoint)
    assert (workspace / "secret.txt").stat().st_mode & 0o777 == 0o600  # not widened
    assert (workspace / "secret.txt").read_text() == "s\n"
    assert (workspace / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (workspace / "run.sh").read_text() == "#!/bin/sh\n"


async def test_an_ignored_file_in_the_way_refuses_the_restore_before_any_write(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "notes.log").write_text("tracked while not ignored\n")
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, "rm notes.log && echo '*.log' > .gitignore && echo agent > edit.txt")
    await repo.snapshot("after")
    bash(workspace, "echo precious > notes.log")  # ignored now: no checkpoint holds it
    before = entries(workspace)
    with pytest.raises(RestoreFailed, match=r"notes\.log") as failed:
        await repo.restore(checkpoint)
    assert failed.value.conflict
    assert entries(workspace) == before


async def test_a_folder_holding_ignored_files_is_not_replaced_by_a_file(
    workspace: Path, tmp_path: Path
) -> None:
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    bash(workspace, "rm edit.txt && mkdir edit.txt && echo x > edit.txt/tracked.txt && "
                    "echo x > edit.txt/cache.pyc && echo '*.pyc' > .gitignore && "
                    "echo agent > keep.txt")
    before = entries(workspace)
    with pytest.raises(RestoreFailed, match=r"edit\.txt"):
        await repo.restore(checkpoint)
    assert entries(workspace) == before


async def test_a_failure_half_way_puts_back_what_was_already_written(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "zz.bin").write_bytes(os.urandom(1 << 20))
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await checkpoint_of(repo)
    blob = (await repo.git.run("rev-parse", f"{checkpoint}:zz.bin")).decode().strip()
    bash(workspace, "echo agent > edit.txt && echo agent > keep.txt && rm sub/one.txt && "
                    "echo new > added.txt && rm zz.bin && ln -s keep.txt lnk")
    before = entries(workspace)
    # Damage the blob's stored bytes past its header: found when checked, unreadable when read.
    loose = repo.git.git_dir / "objects" / blob[:2] / blob[2:]
    data = loose.read_bytes()
    loose.chmod(0o600)
    loose.write_bytes(data[: len(data) // 2])
    with pytest.raises(RestoreFailed, match="put back"):
        await repo.restore(checkpoint)
    assert entries(workspace) == before


async def test_names_with_spaces_newlines_and_bytes_that_are_not_utf8_come_back(
    tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    (root / "d ir").mkdir(parents=True)
    names = [b"sp ace.txt", b"new\nline.txt", b"caf\xc3\xa9.txt", b"bad\xff.txt", b"d ir/x\ty.txt"]
    for name in names:
        (root / os.fsdecode(name)).write_bytes(name)
    repo = await repo_for(root, tmp_path)
    checkpoint = await checkpoint_of(repo)
    before = entries(root)
    bash(root, "rm -r ./*")
    restored = await repo.restore(checkpoint)
    assert entries(root) == before
    assert len(restored.paths) == len(names)
