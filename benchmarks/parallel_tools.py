"""Case 3: one turn with 8 `bash` calls of `sleep 0.5` must run them at once.

Measured from the daemon's notifications: the first `tool_started` to the turn's `observation`.
Floor (for information): one direct `BashTool` call of the same `sleep`; serial execution would
take 8 times that.
"""

from __future__ import annotations

import os

from benchmarks.core import Config, Row, limit_row, median, now
from benchmarks.daemon import CHECKPOINTS_OFF, RunOutcome, llm_env, started, workspace
from benchmarks.direct import direct_tools
from benchmarks.fake_llm import fake_llm

CALLS = 8


def tool_phase(out: RunOutcome) -> float:
    """Seconds from the first `tool_started` to the first `observation` of a run."""
    first = out.progress("tool_started")[0].at
    return out.progress("observation")[0].at - first


async def run(config: Config) -> list[Row]:
    """Time the tool phase of a turn of parallel sleeps."""
    sleep = 0.5 if not config.quick else 0.1
    limit = sleep * 1.5
    with workspace() as root:
        async with fake_llm() as fake, started(
            llm_env(os.environ, fake.url), root, settings=CHECKPOINTS_OFF
        ) as daemon:
            tools = direct_tools(str(root))
            phases, floors = [], []
            await daemon.run("bench warm-up")
            for _ in range(max(config.reps, 2) if not config.quick else 1):
                out = await daemon.run(f"bench parallel {CALLS} {sleep}")
                if len(out.progress("tool_completed")) != CALLS:
                    failed = {n.params.get("output") for n in out.progress("tool_failed")}
                    raise RuntimeError(f"expected {CALLS} completed tools; failures: {failed}")
                phases.append(tool_phase(out))
                started_at = now()
                await tools["bash"].execute(f'{{"command": "sleep {sleep}"}}')
                floors.append(now() - started_at)
    ours, floor = median(phases), median(floors)
    sandbox = out.progress("tool_started")[0].params.get("sandbox", "none")
    row = limit_row(f"parallel tools, {CALLS} × sleep {sleep} (sandbox: {sandbox})", ours, floor,
                    "s", limit)
    row.notes.append(f"{CALLS * floor / ours:.1f}× faster than serial ({CALLS * floor:.2f} s)")
    return [row]
