"""Case 8: memory at rest — an idle daemon, and no leak over 100 completed runs.

Idle: VmRSS after `initialize`, against the bare pygls server (information). Leak: VmRSS after
100 more runs minus VmRSS after the warm-up runs (which import the provider SDK and fill the
caches once); growth must stay ≤ 10 MB.
"""

from __future__ import annotations

import asyncio
import os

from benchmarks.core import Config, Row, info_row, limit_row
from benchmarks.daemon import BARE, CHECKPOINTS_OFF, NOTES, Daemon, llm_env, started, workspace
from benchmarks.fake_llm import fake_llm

GROWTH_LIMIT_MB = 10.0
WARM_UP = 10


async def _settled_rss(daemon: Daemon) -> float:
    await asyncio.sleep(0.3)  # let the last notifications and connection teardown finish
    return daemon.mb("VmRSS")


async def run(config: Config) -> list[Row]:
    """Idle figures, then the growth over many runs."""
    runs, warm_up = config.size(100, 10, smoke=2), config.size(WARM_UP, 2, smoke=1)
    with workspace() as root:
        async with fake_llm() as fake:
            env = llm_env(os.environ, fake.url)
            async with started(env, root, BARE) as bare:
                bare_idle = await _settled_rss(bare)
            async with started(env, root, settings=CHECKPOINTS_OFF) as daemon:
                idle = await _settled_rss(daemon)
                for i in range(warm_up):
                    await daemon.run(f"bench runs w{i} 1 {NOTES}")
                warm = await _settled_rss(daemon)
                for i in range(runs):
                    out = await daemon.run(f"bench runs m{i} 1 {NOTES}")
                    if out.result.get("text") != f"answer m{i}":
                        raise RuntimeError(f"run {i} ended with {out.result}")
                after = await _settled_rss(daemon)
    idle_row = info_row("memory: idle after initialize", idle, bare_idle, "MB")
    warm_row = info_row(f"memory: after {warm_up} warm-up runs", warm, idle, "MB")
    leak = limit_row(f"memory: growth over {runs} runs", after - warm, None, "MB",
                     GROWTH_LIMIT_MB)
    leak.notes.append(f"VmRSS {warm:.1f} → {after:.1f} MB")
    return [idle_row, warm_row, leak]
