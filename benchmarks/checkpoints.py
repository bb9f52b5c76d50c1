"""Case: what a checkpoint costs, on workspaces of 1,000 files / 20 MB and of 10,000 files.

Each size gets a fresh shadow repository. "First" is the first snapshot (every file copied into
git); "after a turn" is a snapshot after a bash-like turn changed ten files; "unchanged" is a
snapshot when nothing changed (a status pass over the files and nothing written); "restore" puts
the ten files back. Targets: a turn's snapshot ≤ 150 ms at 1,000 files and ≤ 1 s at 10,000.
The floor is `git status --porcelain` over the same workspace with a repository of its own:
the least any change detection costs.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from benchmarks.core import Config, Row, info_row, limit_row, median
from harness9.service.checkpoints.shadow_git import ShadowGit, git_executable
from harness9.service.checkpoints.snapshots import Limits, ShadowRepo


def make_workspace(root: Path, files: int, total_bytes: int) -> None:
    size = max(1, total_bytes // files)
    line = b"x = 'some source text of a typical line'\n"
    body = (line * (size // len(line) + 1))[:size]
    for i in range(files):
        folder = root / f"pkg{i % 50}" / f"sub{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_bytes(body[:-8] + f"{i:07d}\n".encode())


def _touch_ten(root: Path, round_: int) -> None:
    for i in range(10):
        path = root / f"pkg{i % 50}" / f"sub{i % 7}" / f"mod{i}.py"
        path.write_bytes(path.read_bytes() + f"# turn {round_}\n".encode())


async def _timed(action: object) -> float:
    started = time.perf_counter()
    await action  # type: ignore[misc]
    return (time.perf_counter() - started) * 1000


async def _floor(root: Path, reps: int) -> float:
    executable = git_executable()
    assert executable is not None
    git = ShadowGit(executable, root.parent / "floor.git", str(root))
    await git.init([], root.parent)
    await git.run("add", "-A")
    return median([await _timed(git.run("status", "--porcelain")) for _ in range(reps)])


async def _measure(files: int, total_bytes: int, reps: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        root.mkdir()
        await asyncio.to_thread(make_workspace, root, files, total_bytes)
        repo = await ShadowRepo.open(str(root), Path(folder) / "state",
                                     Limits(max_files=files * 2, max_bytes=total_bytes * 2))
        first = await _timed(repo.snapshot("first", force=True))
        turn, unchanged, restore = [], [], []
        for round_ in range(reps):
            before = await repo.snapshot("before", force=True)
            assert before is not None
            _touch_ten(root, round_)
            turn.append(await _timed(repo.snapshot("after a turn")))
            unchanged.append(await _timed(repo.snapshot("unchanged")))
            restore.append(await _timed(repo.restore(before.id)))
        floor = await _floor(root, reps)
        return {"first": first, "turn": median(turn), "unchanged": median(unchanged),
                "restore": median(restore), "floor": floor, "files": files}


async def run(config: Config) -> list[Row]:
    """Snapshot and restore figures for the two workspace sizes."""
    if git_executable() is None:
        raise RuntimeError("git is not installed")
    reps = 1 if config.smoke else max(3, config.reps)
    sizes = [(config.size(1_000, 200, smoke=20), 20 << 20, 150.0),
             (config.size(10_000, 1_000, smoke=50), 40 << 20, 1000.0)]
    rows: list[Row] = []
    for files, total, limit in sizes:
        figures = await _measure(files, total, reps)
        label = f"{files} files / {total >> 20} MB"
        rows += [
            limit_row(f"checkpoint after a turn, {label}", figures["turn"], figures["floor"],
                      "ms", limit),
            limit_row(f"checkpoint, nothing changed, {label}", figures["unchanged"],
                      figures["floor"], "ms", limit),
            info_row(f"checkpoint, first, {label}", figures["first"], None, "ms"),
            info_row(f"restore 10 files, {label}", figures["restore"], None, "ms"),
        ]
    return rows
