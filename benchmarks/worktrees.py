"""Case: background tasks in git worktrees (`agent/run {isolation: "worktree"}`).

- Start: a task in a repository of 1,000 files and of 10,000 files (4 KB each), with
  uncommitted state (one tracked file in 20 changed, as many untracked files added): from the
  `agent/run` request to its `run_started` (the worktree made, the state carried and committed).
  Floor (information): `git worktree add` of the same repository, a bare checkout of HEAD
  (interleaved). Targets: ≤ 1 s and ≤ 3 s.
- Apply: `agent/applyTask` of a task that changed 20 files of the 1,000-file repository
  (one bash call appending a line to each), request → answer; between rounds the workspace is
  put back and the task discarded. Floor (information): `git apply` of the same changes as a
  patch. Target: ≤ 300 ms.
- Three at once: the time per turn of three tasks running together (each `read_file` turns,
  model answering in 50 ms, from each run's second turn to its last) against one task alone
  (interleaved). Target: ≤ 1.2× floor.

The daemon runs with its defaults (checkpoints on) but without its own language servers.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

from benchmarks.checkpoints import make_workspace
from benchmarks.core import (
    Config,
    Row,
    error_row,
    interleave,
    limit_row,
    median,
    ratio_row,
)
from benchmarks.daemon import NOTES, Daemon, RunOutcome, llm_env, started
from benchmarks.fake_llm import fake_llm

FILE_BYTES = 4096
START_LIMITS = {1_000: 1.0, 10_000: 3.0}
APPLY_LIMIT_MS = 300.0
APPLIED_FILES = 20
TOGETHER = 3
TOGETHER_LIMIT = 1.2


def _env(url: str) -> dict[str, str]:
    """The daemon's environment: the fake LLM, and no language servers of its own (they would
    start on each worktree's Python files, and are measured by `own_servers`)."""
    return {**llm_env(os.environ, url), "HARNESS9_LANGUAGE_SERVERS": "{}"}


def git(root: Path, *args: str) -> str:
    """`git args` in `root`; its output."""
    done = subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=root,
                          capture_output=True, text=True, check=True, timeout=300)
    return done.stdout


def repository(root: Path, files: int) -> Path:
    """A repository of `files` committed files (and `notes.txt`), with uncommitted state: one
    file in 20 changed, and as many untracked files."""
    root.mkdir()
    make_workspace(root, files, files * FILE_BYTES)
    (root / NOTES).write_text("".join(f"line {i}: some notes\n" for i in range(40)))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    tracked = sorted(root.glob("pkg*/sub*/mod*.py"))
    for path in tracked[::20]:
        path.write_text(path.read_text() + "# changed, not committed\n")
    (root / "new").mkdir()
    for i in range(files // 20):
        (root / "new" / f"untracked{i}.py").write_text(f"value = {i}\n")
    return root


async def _task(daemon: Daemon, prompt: str) -> RunOutcome:
    out = await daemon.run(prompt, isolation="worktree")
    if out.result.get("status") != "completed":
        raise RuntimeError(f"the task ended with {out.result}")
    return out


async def _discard(daemon: Daemon, out: RunOutcome) -> None:
    await daemon.client.request("agent/discardTask", {"sessionId": out.result["sessionId"]})


async def _start_s(daemon: Daemon) -> float:
    """Seconds from a task's request to its `run_started` (the task then discarded)."""
    out = await _task(daemon, "bench hello")
    [first] = out.progress("run_started")
    if "worktree" not in first.params:
        raise RuntimeError("the run did not start in a worktree")
    await _discard(daemon, out)
    return first.at - out.started


async def _checkout_s(root: Path) -> float:
    """Seconds `git worktree add` of HEAD takes (the worktree then removed)."""
    target = Path(tempfile.mkdtemp(prefix="h9bench-floor-")) / "tree"
    began = time.perf_counter()
    await asyncio.to_thread(git, root, "worktree", "add", "-q", "--detach", str(target), "HEAD")
    seconds = time.perf_counter() - began
    await asyncio.to_thread(git, root, "worktree", "remove", "--force", str(target))
    os.rmdir(target.parent)
    return seconds


async def _starts(config: Config, files: int) -> Row:
    reps = max(config.reps, 3) if not config.quick else 1
    with tempfile.TemporaryDirectory(prefix="h9bench-") as folder:
        root = await asyncio.to_thread(repository, Path(folder) / "ws", files)
        async with fake_llm(0.0) as fake, started(_env(fake.url), root) as daemon:
            await _start_s(daemon)  # imports the SDK, warms git's caches
            ours, floor = await interleave(reps, lambda: _start_s(daemon),
                                           lambda: _checkout_s(root))
    limit = START_LIMITS.get(files, 1.0)
    row = limit_row(f"worktree task start, {files:,} files, uncommitted state carried",
                    median(ours), median(floor), "s", limit)
    row.notes.append(f"{files // 20} changed and {files // 20} untracked files carried; "
                     "floor: git worktree add alone")
    return row


def _applied_names() -> list[str]:
    """The 20 files the applied task changes."""
    return [f"pkg{i % 50}/sub{i % 7}/mod{i}.py" for i in range(1, 2 * APPLIED_FILES, 2)]


async def _apply_ms(daemon: Daemon, root: Path) -> float:
    """Milliseconds `agent/applyTask` takes for a task that changed 20 files."""
    names = " ".join(_applied_names())
    out = await _task(daemon, f"bench bash 'for f in {names}; do echo \"# task\" >> $f; done'")
    began = time.perf_counter()
    applied = await daemon.client.request("agent/applyTask",
                                          {"sessionId": out.result["sessionId"]})
    ms = (time.perf_counter() - began) * 1000
    if len(applied["files"]) != APPLIED_FILES:
        raise RuntimeError(f"the task applied {applied}")
    await _discard(daemon, out)
    await asyncio.to_thread(_put_back, root, names.split())
    return ms


def _put_back(root: Path, names: list[str]) -> None:
    """Each file as it was before the task: its last line (the task's) dropped."""
    for name in names:
        path = root / name
        path.write_text(path.read_text().removesuffix("# task\n"))


def _write_ms(root: Path, names: list[str]) -> float:
    """Milliseconds reading the same 20 files and writing each one's new content atomically
    (a temporary file renamed over it): the least an apply does. Then put back."""
    began = time.perf_counter()
    for name in names:
        path = root / name
        partial = path.with_suffix(".partial")
        partial.write_text(path.read_text() + "# task\n")
        os.replace(partial, path)
    ms = (time.perf_counter() - began) * 1000
    _put_back(root, names)
    return ms


async def _apply(config: Config) -> Row:
    reps = max(config.reps, 3) if not config.quick else 1
    with tempfile.TemporaryDirectory(prefix="h9bench-") as folder:
        files = config.size(1_000, 200, 50)
        root = await asyncio.to_thread(repository, Path(folder) / "ws", files)
        async with fake_llm(0.0) as fake, started(_env(fake.url), root) as daemon:
            await _apply_ms(daemon, root)
            ours, floor = await interleave(
                reps, lambda: _apply_ms(daemon, root),
                lambda: asyncio.to_thread(_write_ms, root, _applied_names()))
    row = limit_row(f"worktree task apply, {APPLIED_FILES} files of {files:,}",
                    median(ours), median(floor), "ms", APPLY_LIMIT_MS)
    row.notes.append("floor: the same files read and written atomically, in one process")
    return row


def _per_turn_s(out: RunOutcome) -> float:
    """A run's seconds per turn, from its second turn's start to its last's."""
    times = [n.at for n in out.progress("turn_started")]
    if len(times) < 3:
        raise RuntimeError(f"the run made {len(times)} turns: {out.result}")
    return (times[-1] - times[1]) / (len(times) - 2)


async def _together_s(daemon: Daemon, k: int, turns: int) -> float:
    """The mean seconds per turn of `k` tasks of `turns` turns running at once."""
    outs = await asyncio.gather(*(_task(daemon, f"bench runs t{i} {turns} {NOTES}")
                                  for i in range(k)))
    for out in outs:
        await _discard(daemon, out)
    return sum(_per_turn_s(out) for out in outs) / k


async def _together(config: Config) -> Row:
    reps = max(config.reps, 3) if not config.quick else 1
    turns = config.size(12, 4)
    with tempfile.TemporaryDirectory(prefix="h9bench-") as folder:
        files = config.size(1_000, 200, 50)
        root = await asyncio.to_thread(repository, Path(folder) / "ws", files)
        async with fake_llm(0.05) as fake, started(_env(fake.url), root) as daemon:
            await _together_s(daemon, 1, turns)
            three, one = await interleave(reps, lambda: _together_s(daemon, TOGETHER, turns),
                                          lambda: _together_s(daemon, 1, turns))
    row = ratio_row(f"{TOGETHER} worktree tasks at once, time per turn, 50 ms model",
                    median(three), median(one), "s", TOGETHER_LIMIT)
    row.notes.append(f"beyond the model: {(median(one) - 0.05) * 1000:.1f} ms a turn alone, "
                     f"{(median(three) - 0.05) * 1000:.1f} ms with {TOGETHER} at once")
    return row


async def run(config: Config) -> list[Row]:
    """Starting a task at two sizes, applying one, and three running at once (a figure that
    fails is its row's error; the others are still measured)."""
    sizes = (config.size(1_000, 200, 50), config.size(10_000, 500, 100))
    figures: list[tuple[str, Callable[[], Awaitable[Row]]]] = [
        *((f"worktree task start, {files:,} files", partial(_starts, config, files))
          for files in sizes),
        ("worktree task apply", partial(_apply, config)),
        (f"{TOGETHER} worktree tasks at once", partial(_together, config))]
    rows = []
    for name, measure in figures:
        try:
            rows.append(await measure())
        except Exception as exc:
            rows.append(error_row(name, exc))
    return rows
