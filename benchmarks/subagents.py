"""Child agents (`task`): several at once, and what a task adds to its child's own run.

- Concurrency: one run whose model asks for 4 `task` calls at once, each an `explore` child of
  5 `read_file` turns, against a fake LLM answering in 50 ms: from the first task's
  `tool_started` to the last one's `tool_completed`, against the same span of a run with one
  such task (the floor, interleaved). Target: ≤ 1.5× floor (serialized would be 4×).
- Overhead: the `durationMs` of one task whose child makes those 5 turns, instant model, against
  an `agent/run` of the same 5 turns on its own (request → answer; interleaved). Target: the
  task ≤ its child's own run + 5 ms.
- Memory (information): the daemon's peak RSS while 4 children run minus its peak while one
  does, per extra child (after warm-up runs, on a model slow enough to hold them all running).
"""

from __future__ import annotations

import asyncio
import os

from benchmarks.core import Config, Row, info_row, interleave, margin_row, median, ratio_row
from benchmarks.daemon import CHECKPOINTS_OFF, NOTES, Daemon, RunOutcome, llm_env, started
from benchmarks.daemon import workspace as bench_workspace
from benchmarks.fake_llm import fake_llm

LIMIT = 1.5
MARGIN_MS = 5.0
CHILDREN = 4


def _tasks_span(out: RunOutcome, k: int) -> float:
    """Seconds from the first task's start to the last task's end, as the client saw them."""
    started = [n.at for n in out.progress("tool_started") if n.params["tool"] == "task"
               and "parentToolCallId" not in n.params]
    ended = [n for n in out.progress("tool_completed") if n.params["tool"] == "task"
             and "parentToolCallId" not in n.params]
    if len(started) != k or len(ended) != k or out.result.get("text") != "done":
        raise RuntimeError(f"the {k} tasks did not all complete: {out.result}")
    answers = sorted(n.params["output"] for n in ended)
    if answers != [f"answer c{i}" for i in range(k)]:
        raise RuntimeError(f"the children answered {answers}")
    return max(n.at for n in ended) - min(started)


async def _tasks(daemon: Daemon, k: int, turns: int) -> float:
    return _tasks_span(await daemon.run(f"bench tasks {k} {turns} {NOTES}"), k)


async def _task_ms(daemon: Daemon, turns: int) -> float:
    """The durationMs of one task of `turns` child turns."""
    out = await daemon.run(f"bench tasks 1 {turns} {NOTES}")
    _tasks_span(out, 1)
    done = next(n for n in out.progress("tool_completed") if n.params["tool"] == "task"
                and "parentToolCallId" not in n.params)
    return float(done.params["durationMs"])


async def _alone_ms(daemon: Daemon, turns: int) -> float:
    """The same child's turns as a run of its own, request → answer."""
    out = await daemon.run(f"bench runs c0 {turns} {NOTES}")
    if out.result.get("text") != "answer c0":
        raise RuntimeError(f"the run ended with {out.result}")
    return out.seconds * 1000


async def _peak_mb(daemon: Daemon, k: int, turns: int) -> float:
    """The daemon's highest VmRSS while a run of `k` tasks goes on (sampled every 10 ms)."""
    running = asyncio.ensure_future(daemon.run(f"bench tasks {k} {turns} {NOTES}"))
    peak = daemon.mb()
    while not running.done():
        peak = max(peak, daemon.mb())
        await asyncio.sleep(0.01)
    _tasks_span(running.result(), k)
    return peak


async def _concurrency(config: Config, turns: int) -> Row:
    reps = max(config.reps, 3) if not config.quick else 1
    with bench_workspace() as root:
        async with fake_llm(0.05) as fake, started(llm_env(os.environ, fake.url), root,
                                                   settings=CHECKPOINTS_OFF) as daemon:
            await _tasks(daemon, 1, turns)  # imports the SDK, warms the caches
            four, one = await interleave(reps, lambda: _tasks(daemon, CHILDREN, turns),
                                         lambda: _tasks(daemon, 1, turns))
    row = ratio_row(f"{CHILDREN} explore children × {turns} turns, 50 ms model",
                    median(four), median(one), "s", LIMIT)
    row.notes.append(f"serialized would take {CHILDREN * median(one):.2f} s")
    return row


async def _overhead(config: Config, turns: int) -> Row:
    reps = config.tight_reps if not config.quick else 1
    with bench_workspace() as root:
        async with fake_llm(0.0) as fake, started(llm_env(os.environ, fake.url), root,
                                                  settings=CHECKPOINTS_OFF) as daemon:
            await _task_ms(daemon, turns)
            await _alone_ms(daemon, turns)
            task, alone = await interleave(reps, lambda: _task_ms(daemon, turns),
                                           lambda: _alone_ms(daemon, turns))
    return margin_row(f"a task of {turns} child turns over the same run alone, instant model",
                      median(task), median(alone), "ms", MARGIN_MS)


async def _memory(turns: int) -> Row:
    with bench_workspace() as root:
        async with fake_llm(0.2) as fake, started(llm_env(os.environ, fake.url), root,
                                                  settings=CHECKPOINTS_OFF) as daemon:
            for _ in range(2):
                await _peak_mb(daemon, CHILDREN, turns)
            one = await _peak_mb(daemon, 1, turns)
            four = await _peak_mb(daemon, CHILDREN, turns)
    row = info_row("memory per running child (peak RSS, 4 children − 1) / 3",
                   (four - one) / (CHILDREN - 1), None, "MB")
    row.notes.append(f"peak VmRSS with 1 child {one:.1f} MB, with {CHILDREN} {four:.1f} MB")
    return row


async def run(config: Config) -> list[Row]:
    """The concurrency figure, the per-task overhead, and the memory per child."""
    turns = config.size(5, 2)
    return [await _concurrency(config, turns), await _overhead(config, turns),
            await _memory(turns)]
