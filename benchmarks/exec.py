"""Case `exec`: `harness9 exec` cold start, from spawning the command to the arrival of its
first model request at the fake LLM (and, for information, to its exit).

Floor: `python -c "import openai"` spawned the same way, to its exit: the least a headless run
on the OpenAI wire costs before it can send anything (an interpreter and the SDK).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from benchmarks.core import PYTHON, REPO, Config, Row, info_row, interleave, limit_row, median, now
from benchmarks.daemon import Resident, llm_env, resident
from benchmarks.fake_llm import FakeProcess, fake_llm

TARGET_MS = 1000.0
FLOOR = (PYTHON, "-c", "import openai")


async def _spawn(argv: tuple[str, ...], env: dict[str, str]) -> tuple[float, int]:
    """Start `argv` on the shared clock; (the start time, its exit status)."""
    started = now()
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL, env=env, cwd=REPO,
    )
    return started, await proc.wait()


async def exec_once(fake: FakeProcess, workspace: Path, state: Path,
                    through: Resident | None = None) -> tuple[float, float]:
    """One `harness9 exec` (handed to `through` when given): seconds to its first model
    request, and to its exit."""
    env = {**llm_env(os.environ, fake.url), "HARNESS9_STATE_DIR": str(state)}
    if through is not None:
        env = through.env(env)
    await fake.arrivals()  # forget earlier requests
    argv = (PYTHON, "-m", "harness9", "exec", "bench hello", "--workspace", str(workspace),
            "--json")
    started, code = await _spawn(argv, env)
    ended = now()
    arrivals = await fake.arrivals()
    if code != 0 or not arrivals:
        raise RuntimeError(f"harness9 exec exited {code} after {len(arrivals)} model requests")
    return arrivals[0] - started, ended - started


async def run(config: Config) -> list[Row]:
    """Interleave `harness9 exec` runs, on their own and through a resident, with the floor;
    compare the medians."""
    firsts: dict[str, list[float]] = {"own": [], "resident": []}
    wholes: dict[str, list[float]] = {"own": [], "resident": []}
    with tempfile.TemporaryDirectory() as tmp, resident() as warm:
        workspace, state = Path(tmp) / "ws", Path(tmp) / "state"
        workspace.mkdir()
        async with fake_llm() as fake:

            def ours(way: str) -> Callable[[], Awaitable[float]]:
                async def once() -> float:
                    first, whole = await exec_once(fake, workspace, state,
                                                   warm if way == "resident" else None)
                    firsts[way].append(first)
                    wholes[way].append(whole)
                    return first
                return once

            async def floor() -> float:
                started, code = await _spawn(FLOOR, dict(os.environ))
                if code != 0:
                    raise RuntimeError(f"{' '.join(FLOOR)} exited {code}")
                return now() - started

            if not config.quick:
                await floor()  # warm the page cache for both, as cold_start does
                await ours("own")()
            await warm.ready(ours("resident"))
            for way in firsts:
                firsts[way].clear()
                wholes[way].clear()
            mine, warmed, base = await interleave(config.reps, ours("own"), ours("resident"),
                                                  floor)
    return _rows(mine, warmed, base, wholes)


def _rows(mine: list[float], warmed: list[float], base: list[float],
          wholes: dict[str, list[float]]) -> list[Row]:
    row = limit_row("exec: spawn → first model request", median(mine) * 1000,
                    median(base) * 1000, "ms", TARGET_MS)
    row.notes.append(f"ours {_spread(mine)}; floor (python -c 'import openai') {_spread(base)}")
    through = limit_row("exec: spawn → first model request, through a resident",
                        median(warmed) * 1000, median(base) * 1000, "ms", TARGET_MS)
    through.notes.append(f"a resident had the libraries loaded (HARNESS9_RESIDENT, the "
                         f"default): ours {_spread(warmed)}")
    whole = info_row("exec: spawn → exit (one model call)", median(wholes["own"]) * 1000,
                     None, "ms")
    return [row, through, whole]


def _spread(samples: list[float]) -> str:
    return "min–max " + "–".join(f"{v * 1000:.0f}" for v in (min(samples), max(samples))) + " ms"
