"""Case 1: cold start — spawn the daemon until `initialize` is answered.

Floor: the bare pygls server of `bare_server.py`, spawned the same way by the same client.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchmarks.core import REPO, Config, Row, interleave, median, now, ratio_row
from benchmarks.daemon import BARE, DAEMON, llm_env
from benchmarks.rpc import RpcClient, initialize_params

TARGET = 1.3


async def spawn_to_initialized(argv: tuple[str, ...], workspace: Path) -> float:
    """Seconds from spawning `argv` to its `initialize` result."""
    env = llm_env(os.environ, "http://127.0.0.1:9")
    started = now()
    client = await RpcClient.spawn(argv, env, REPO, None)
    try:
        await client.request("initialize", initialize_params(workspace), timeout=30)
        return now() - started
    finally:
        await client.close()


async def run(config: Config) -> list[Row]:
    """Interleave daemon and bare-server starts; compare the medians."""
    reps = config.reps
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)

        async def ours() -> float:
            return await spawn_to_initialized(DAEMON, workspace)

        async def floor() -> float:
            return await spawn_to_initialized(BARE, workspace)

        if not config.quick:
            await floor()  # warm the page cache for both, so the first sample is not an outlier
            await ours()
        mine, base = await interleave(reps, ours, floor)
    row = ratio_row("cold start", median(mine) * 1000, median(base) * 1000, "ms", TARGET)
    row.notes.append(f"ours {_spread(mine)}; floor {_spread(base)}")
    return [row]


def _spread(samples: list[float]) -> str:
    return "min–max " + "–".join(f"{v * 1000:.0f}" for v in (min(samples), max(samples))) + " ms"
