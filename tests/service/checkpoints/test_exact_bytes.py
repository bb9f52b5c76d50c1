"""Snapshots store, and restores give back, a file's exact bytes whatever the workspace's
`.gitattributes` ask of git (line endings, `ident`, encodings, filter drivers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness9.service.checkpoints.snapshots import Limits, ShadowRepo

pytestmark = pytest.mark.timeout(60)


async def repo_for(workspace: Path, tmp_path: Path) -> ShadowRepo:
    return await ShadowRepo.open(str(workspace), tmp_path / "state", Limits())


CASES = [
    ("* text=auto\n", b"one\r\ntwo\r\n"),  # normalized to LF when stored
    ("* text eol=lf\n", b"one\r\ntwo\r\n"),
    ("* eol=crlf\n", b"one\ntwo\n"),  # CRLF when checked out
    ("* ident\n", b"$Id$\nand $Id: 0123456789 $\n"),  # expanded, and collapsed when stored
    ("* working-tree-encoding=UTF-16\n", "h\u00e9llo\n".encode("utf-16")),
    ("[attr]mine text eol=crlf\n* mine\n", b"one\ntwo\r\n"),
]


@pytest.mark.parametrize(("attributes", "data"), CASES)
async def test_bytes_are_stored_and_restored_as_they_are(
    tmp_path: Path, attributes: str, data: bytes
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".gitattributes").write_text(attributes)
    (workspace / "file.txt").write_bytes(data)
    repo = await repo_for(workspace, tmp_path)
    checkpoint = await repo.snapshot("before", force=True)
    assert checkpoint is not None
    stored = await repo.git.run("cat-file", "blob", f"{checkpoint.id}:file.txt")
    assert stored == data
    (workspace / "file.txt").write_bytes(b"changed\n")
    await repo.restore(checkpoint.id)
    assert (workspace / "file.txt").read_bytes() == data


async def test_a_filter_driver_named_in_gitattributes_never_runs(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    ran = tmp_path / "the filter ran"
    (workspace / ".gitattributes").write_text("* filter=shout\n")
    (workspace / "file.txt").write_bytes(b"quiet\n")
    repo = await repo_for(workspace, tmp_path)
    # Even a driver the shadow repository knew (none by default) must not be applied.
    for key, command in [("clean", "tr a-z A-Z"), ("smudge", "tr a-z A-Z")]:
        await repo.git.run("config", f"filter.shout.{key}", f"touch '{ran}'; {command}")
    checkpoint = await repo.snapshot("before", force=True)
    assert checkpoint is not None
    assert await repo.git.run("cat-file", "blob", f"{checkpoint.id}:file.txt") == b"quiet\n"
    (workspace / "file.txt").write_bytes(b"changed\n")
    await repo.restore(checkpoint.id)
    assert (workspace / "file.txt").read_bytes() == b"quiet\n"
    assert not ran.exists()


async def test_a_shadow_index_made_before_is_read_again_once(tmp_path: Path) -> None:
    """A shadow repository that stored a file converted (before the attributes were set)
    stores its exact bytes from the next snapshot on, though the file did not change."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".gitattributes").write_text("* text=auto\n")
    (workspace / "file.txt").write_bytes(b"one\r\n")
    repo = await repo_for(workspace, tmp_path)
    (repo.git.git_dir / "info" / "attributes").unlink()  # as a repository of an older version
    await repo.git.run("add", "--all")
    converted = await repo.git.run("rev-parse", ":file.txt")
    assert await repo.git.run("cat-file", "blob", converted.decode().strip()) == b"one\n"
    repo = await repo_for(workspace, tmp_path)  # opened again by a daemon of this version
    checkpoint = await repo.snapshot("now", force=True)
    assert checkpoint is not None
    assert await repo.git.run("cat-file", "blob", f"{checkpoint.id}:file.txt") == b"one\r\n"
