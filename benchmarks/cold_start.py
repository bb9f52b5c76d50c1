"""Case 1: cold start — spawn the daemon until `initialize` is answered.

Floor: the bare pygls server of `bare_server.py`, spawned the same way by the same client.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from benchmarks.core import REPO, Config, Row, interleave, median, now, ratio_row
from benchmarks.daemon import BARE, DAEMON, llm_env, started
from benchmarks.rpc import RpcClient, initialize_params

TARGET = 1.3
# Native modules both SDKs load (through pydantic and their JSON parser) and pygls does not.
SDK_MARKERS = ("pydantic_core", "jiter")


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
        loaded = await sdk_loaded_at_rest(workspace)
    row = ratio_row("cold start", median(mine) * 1000, median(base) * 1000, "ms", TARGET)
    row.notes.append(f"ours {_spread(mine)}; floor {_spread(base)}")
    row.notes.append(f"provider SDK loaded by the start-up itself: {'yes' if loaded else 'no'} "
                     "(it is loaded in the background right after initialize)")
    row.passed = row.passed and not loaded
    return [row]


async def sdk_loaded_at_rest(workspace: Path) -> bool:
    """Whether an idle daemon has loaded a provider SDK by itself (their native parts show in
    its maps), without the warm-up that loads it on purpose after `initialize`."""
    env = {**llm_env(os.environ, "http://127.0.0.1:9"), "HARNESS9_WARM_UP": "0"}
    async with started(env, workspace) as daemon:
        await asyncio.sleep(0.3)
        return daemon.has_loaded(*SDK_MARKERS)


def _spread(samples: list[float]) -> str:
    return "min–max " + "–".join(f"{v * 1000:.0f}" for v in (min(samples), max(samples))) + " ms"
