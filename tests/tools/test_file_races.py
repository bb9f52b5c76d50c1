"""The file tools under attack and bad luck: swapped folders, concurrent sessions, a deleted root,
and the leftovers of a killed write."""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from harness9.schema import ToolError
from harness9.tools.edit_file import EditFileTool
from harness9.tools.read_file import ReadFileTool
from harness9.tools.write_file import WriteFileTool
from harness9.workspace.atomic_write import STALE_SECONDS, sweep_tree
from harness9.workspace.file_lock import held_locks

SECRET = "SECRET-OUTSIDE"


_LIBC = ctypes.CDLL(None, use_errno=True)
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(a: Path, b: Path) -> None:
    """Swap two directory entries in one step (renameat2 RENAME_EXCHANGE)."""
    if _LIBC.renameat2(_AT_FDCWD, bytes(a), _AT_FDCWD, bytes(b), _RENAME_EXCHANGE) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), str(a))


class Swapper:
    """Swaps `ws/d` between a real folder and a link to a folder outside, as fast as it can.

    Each swap is atomic, so `d` always exists: a tool sees either the folder or the link.
    """

    def __init__(self, workspace: Path, outside: Path) -> None:
        self.folder = workspace / "d"
        self.link = workspace / "d.link"
        self.link.symlink_to(outside, target_is_directory=True)
        self.stop = threading.Event()
        self.swaps = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            exchange(self.folder, self.link)
            self.swaps += 1

    def __enter__(self) -> Swapper:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        if self.folder.is_symlink():
            exchange(self.folder, self.link)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "f.txt").write_text(f"{SECRET}\nkeep = 1\n")
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


async def attempt(tool: object, arguments: dict[str, str]) -> str:
    try:
        return str(await tool.execute(json.dumps(arguments)))  # type: ignore[attr-defined]
    except (ToolError, OSError) as exc:  # the registry turns both into results for the model
        return str(exc)


@pytest.mark.timeout(30)
async def test_a_folder_swapped_for_a_link_never_lets_a_tool_out(
    workspace: Path, outside: Path
) -> None:
    (workspace / "d").mkdir()
    (workspace / "d" / "f.txt").write_text("inside\nkeep = 1\n")
    before = snapshot(outside)
    reader, writer, editor = ReadFileTool(workspace), WriteFileTool(workspace), EditFileTool(
        workspace
    )
    outputs: list[str] = []
    with Swapper(workspace, outside) as swapper:
        deadline = time.monotonic() + 2.0
        round_ = 0
        while time.monotonic() < deadline:
            round_ += 1
            outputs += await asyncio.gather(
                attempt(reader, {"path": "d/f.txt"}),
                attempt(writer, {"path": f"d/new{round_}.txt", "content": "planted"}),
                attempt(writer, {"path": "d/f.txt", "content": f"inside\nkeep = {round_}\n"}),
                attempt(editor, {"path": "d/f.txt", "source_text": "keep", "target_text": "kept"}),
            )
    assert swapper.swaps > 100, "the swapper did not get to run"
    assert round_ > 20
    assert not [out for out in outputs if SECRET in out]
    assert snapshot(outside) == before


async def test_two_sessions_editing_one_file_lose_nothing(workspace: Path) -> None:
    # A file large enough that each edit takes a while: two unserialized edits then overlap.
    lines = [f"line_{i} = {i}" for i in range(40_000)]
    (workspace / "p.txt").write_text("\n".join(lines) + "\n")
    sessions = [EditFileTool(workspace), EditFileTool(workspace)]  # each run builds its own

    def edit(tool: EditFileTool, i: int) -> object:
        arguments = {"path": "p.txt", "source_text": f"line_{i} = {i}\n",
                     "target_text": f"line_{i} = -{i}\n"}
        return tool.execute(json.dumps(arguments))

    edited = range(0, 400, 10)
    calls = [edit(sessions[n % 2], i) for n, i in enumerate(edited)]  # 20 edits per session
    results = await asyncio.gather(*calls)
    assert all(r.text.startswith("Edited ") for r in results)
    text = (workspace / "p.txt").read_text()
    missing = [i for i in edited if f"line_{i} = -{i}\n" not in text]
    assert missing == []
    assert held_locks() == 0


async def test_a_deleted_workspace_root_is_not_recreated(workspace: Path) -> None:
    writer = WriteFileTool(workspace)
    shutil.rmtree(workspace)
    for tool, arguments in [
        (writer, {"path": "a/b.txt", "content": "x"}),
        (ReadFileTool(workspace), {"path": "a.txt"}),
        (EditFileTool(workspace), {"path": "a.txt", "source_text": "x", "target_text": "y"}),
    ]:
        assert f"the workspace root {workspace} no longer exists" in await attempt(tool, arguments)
    assert workspace.name not in os.listdir(workspace.parent)


@pytest.fixture
def stale_files(workspace: Path) -> dict[str, Path]:
    """Leftovers of killed writes (two old, one fresh) and look-alikes that are not ours."""
    (workspace / "sub").mkdir()
    files = {
        "old": workspace / ".a.txt.1f2e3d4c.h9tmp",
        "old_mkstemp": workspace / "sub" / ".b.py.k_3xz9q1.h9tmp",
        "fresh": workspace / ".c.txt.0a0b0c0d.h9tmp",
        "not_ours": workspace / "notes.h9tmp",
        "old_folder_file": workspace / ".d.txt.12345678.h9tmp.bak",
    }
    for path in files.values():
        path.write_text("partial")
    past = time.time() - STALE_SECONDS - 5
    for key in ("old", "old_mkstemp", "not_ours", "old_folder_file"):
        os.utime(files[key], (past, past))
    return files


async def test_a_write_removes_stale_temp_files_in_its_folder(
    workspace: Path, stale_files: dict[str, Path]
) -> None:
    await WriteFileTool(workspace).execute(json.dumps({"path": "x.txt", "content": "x"}))
    assert not stale_files["old"].exists()
    assert stale_files["old_mkstemp"].exists()  # another folder: left to its own next write
    for kept in ("fresh", "not_ours", "old_folder_file"):
        assert stale_files[kept].exists(), kept


def test_the_start_up_sweep_covers_the_tree(
    workspace: Path, stale_files: dict[str, Path]
) -> None:
    assert sweep_tree([str(workspace)]) == 2
    assert not stale_files["old"].exists()
    assert not stale_files["old_mkstemp"].exists()
    for kept in ("fresh", "not_ours", "old_folder_file"):
        assert stale_files[kept].exists(), kept
