"""Case 7: 20 concurrent `agent/run`s (distinct sessions, 5 turns each) on one daemon.

Checkpoints are on, as users have them. Against a fake LLM taking 50 ms per answer, all must
finish with their own answers within 3× the time of one such run alone (the floor, measured
interleaved), and within 0.3 of the time the runs would take one after another. The same figures
against the instant fake LLM, where the daemon is CPU-bound, are reported for information.
"""

from __future__ import annotations

import asyncio
import os

from benchmarks.core import Config, Row, info_row, interleave, limit_row, median, now, ratio_row
from benchmarks.daemon import NOTES, Daemon, llm_env, started, workspace
from benchmarks.fake_llm import fake_llm

LIMIT = 3.0
OF_SERIAL = 0.3  # the concurrent runs' time over the time of the same runs one after another


async def alone(daemon: Daemon, turns: int) -> float:
    """Seconds for one run."""
    out = await daemon.run(f"bench runs solo {turns} {NOTES}")
    _check(out.result, "solo")
    return out.seconds


async def together(daemon: Daemon, runs: int, turns: int) -> float:
    """Seconds until the last of `runs` concurrent runs has answered."""
    started_at = now()
    outs = await asyncio.gather(
        *(daemon.run(f"bench runs r{i} {turns} {NOTES}") for i in range(runs)))
    elapsed = now() - started_at
    for i, out in enumerate(outs):
        _check(out.result, f"r{i}")
    if len({out.result["sessionId"] for out in outs}) != runs:
        raise RuntimeError("concurrent runs shared a session")
    return elapsed


def _check(result: dict[str, object], tag: str) -> None:
    if result.get("text") != f"answer {tag}" or result.get("status") != "completed":
        raise RuntimeError(f"run {tag} ended with {result}")


async def measure(latency: float, runs: int, turns: int, reps: int) -> tuple[float, float]:
    """(concurrent, alone) medians against a fake LLM of the given latency."""
    with workspace() as root:
        async with fake_llm(latency) as fake, started(llm_env(os.environ, fake.url), root) as d:
            await alone(d, turns)  # imports the SDK and warms the caches
            concurrent, single = await interleave(
                reps, lambda: together(d, runs, turns), lambda: alone(d, turns))
    return median(concurrent), median(single)


async def run(config: Config) -> list[Row]:
    """The 50 ms figure (with its target), then the instant one (information)."""
    runs, turns = config.size(20, 4), config.size(5, 2)
    reps = max(config.reps, 3) if not config.quick else 1
    slow, slow_alone = await measure(0.05, runs, turns, reps)
    name = f"{runs} concurrent runs × {turns} turns"
    first = ratio_row(f"{name}, 50 ms model", slow, slow_alone, "s", LIMIT)
    first.notes.append(f"serialized would take {runs * slow_alone:.2f} s")
    of_serial = slow / (runs * slow_alone)
    label = f"{name}, 50 ms model, of serial"
    if config.quick:  # a few runs cannot share much
        return [first, info_row(label, of_serial, None, "×")]
    share = limit_row(label, of_serial, None, "×", OF_SERIAL)
    fast, fast_alone = await measure(0.0, runs, turns, reps)
    second = info_row(f"{name}, instant model", fast, fast_alone, "s")
    second.notes.append(f"ratio {fast / fast_alone:.1f}× (CPU-bound; serialized: {runs}×)")
    return [first, share, second]
