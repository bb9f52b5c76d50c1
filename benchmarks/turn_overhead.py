"""Case 2: what the daemon adds to each turn, on top of the model and the tool.

A run of N turns, each one `read_file` call, against the instant fake LLM, for both providers,
streaming and not, with checkpoints on (the user's default; a batch that only reads needs no
snapshot), and once with them off. Floor: the same N requests made directly with the same SDK to
the same fake server (the daemon's system prompt included, as it sends it), plus N direct
`read_file` calls (`benchmarks.direct`).

Then what checkpoints add to a turn: runs of N turns, each a bash call appending to a file,
with checkpoints on and off on the same daemon and workspace (a checkpoint before the first
batch, a tree before and after each bash call, a checkpoint after each batch); and the same for
read turns and bash turns in workspaces of 1,000 and 10,000 files.
"""

from __future__ import annotations

import os
import time

from benchmarks.checkpoints import make_workspace
from benchmarks.core import Config, Row, interleave, limit_row, margin_row, median
from benchmarks.daemon import CHECKPOINTS_OFF, NOTES, Daemon, llm_env, started, workspace
from benchmarks.direct import DirectLoop
from benchmarks.fake_llm import fake_llm

BUDGET_MS = 2.0
CHECKPOINT_BUDGET_MS = 150.0  # the target for a snapshot on 1,000 files
LARGE_CHECKPOINT_BUDGET_MS = 1000.0  # and on 10,000 files
PROMPT = f"bench loop {NOTES}"
# Quick mode runs the first two: both SDKs, both modes.
COMBOS = (("openai", False), ("anthropic", True), ("openai", True), ("anthropic", False))


async def measure(daemon: Daemon, url: str, provider: str, stream: bool,
                  turns: int, reps: int, checkpoints: bool = True) -> Row:
    """One provider/stream combination: ms per turn, ours and floor."""
    direct = DirectLoop(provider, url, stream, str(daemon.workspace), system=True)
    cpu: tuple[list[float], list[float]] = ([], [])

    async def ours() -> float:
        started_cpu = daemon.cpu_seconds()
        out = await daemon.run(PROMPT, provider=provider, stream=stream, maxTurns=turns,
                               checkpoints=checkpoints)
        cpu[0].append(daemon.cpu_seconds() - started_cpu)
        if (out.result["turns"], out.result["toolCalls"]) != (turns, turns):
            raise RuntimeError(f"expected {turns} turns and tool calls, got {out.result}")
        return out.seconds

    async def floor() -> float:
        started_cpu = time.process_time()
        seconds = await direct.run(PROMPT, turns)
        cpu[1].append(time.process_time() - started_cpu)
        return seconds

    try:
        await ours()  # the first run imports the provider's SDK: not a per-turn cost
        await floor()
        cpu[0].clear()
        cpu[1].clear()
        mine, base = await interleave(reps, ours, floor)
    finally:
        await direct.close()
    mode = "stream" if stream else "no stream"
    mode += "" if checkpoints else ", checkpoints off"
    row = margin_row(f"turn overhead, {provider}, {mode}", median(mine) / turns * 1000,
                     median(base) / turns * 1000, "ms/turn", BUDGET_MS)
    row.notes.append(f"{turns} turns, median of {reps} rounds: ours {median(mine):.3f} s, "
                     f"floor {median(base):.3f} s; "
                     f"CPU per turn (steadier on a busy machine): ours "
                     f"{median(cpu[0]) / turns * 1000:.2f} ms, floor "
                     f"{median(cpu[1]) / turns * 1000:.2f} ms")
    return row


async def checkpoint_overhead(daemon: Daemon, turns: int, reps: int, *,
                              label: str = "checkpoint overhead, bash turn",
                              budget_ms: float = CHECKPOINT_BUDGET_MS) -> Row:
    """ms per turn that checkpoints add to a turn whose bash call changes a file."""
    prompt = f"bench append {NOTES}"

    async def timed(on: bool) -> float:
        out = await daemon.run(prompt, checkpoints=on, maxTurns=turns, provider="openai")
        if out.result["toolCalls"] != turns:
            raise RuntimeError(f"expected {turns} tool calls, got {out.result}")
        if on and len(out.progress("checkpoint")) != turns + 1:
            raise RuntimeError(f"expected {turns + 1} checkpoints, got {out.result}")
        return out.seconds

    await timed(True)  # opens the shadow repository: once per workspace, not per turn
    await timed(False)
    with_them, without = await interleave(reps, lambda: timed(True), lambda: timed(False))
    per_turn = (median(with_them) - median(without)) / turns * 1000
    row = limit_row(label, per_turn, median(without) / turns * 1000, "ms/turn", budget_ms)
    row.notes.append(f"{turns} turns: on {median(with_them):.3f} s, off {median(without):.3f} s "
                     "(floor: a turn without checkpoints)")
    return row


async def read_turn_overhead(daemon: Daemon, turns: int, reps: int, label: str) -> Row:
    """ms that checkpoints add to each read-only turn after a run's first (which keeps the
    run's checkpoint): runs of `turns` and of 1 turn, each with checkpoints on and off."""
    prompt = f"bench loop {NOTES}"

    async def timed(on: bool, n: int) -> float:
        out = await daemon.run(prompt, checkpoints=on, maxTurns=n, provider="openai")
        if out.result["toolCalls"] != n or (on and len(out.progress("checkpoint")) != 1):
            raise RuntimeError(f"expected {n} reads and one checkpoint, got {out.result}")
        return out.seconds

    variants = [(True, turns), (False, turns), (True, 1), (False, 1)]
    for on, n in variants:
        await timed(on, n)  # the first opens the shadow repository
    seconds: dict[tuple[bool, int], list[float]] = {v: [] for v in variants}
    for _ in range(reps):
        for on, n in variants:
            seconds[(on, n)].append(await timed(on, n))
    m = {v: median(times) for v, times in seconds.items()}
    first = m[(True, 1)] - m[(False, 1)]  # the run's first snapshot
    per_turn = (m[(True, turns)] - m[(False, turns)] - first) / (turns - 1) * 1000
    row = limit_row(label, per_turn, m[(False, turns)] / turns * 1000, "ms/turn", BUDGET_MS)
    row.notes.append(f"{turns} read turns: on {m[(True, turns)]:.3f} s, off "
                     f"{m[(False, turns)]:.3f} s; the run's first snapshot {first * 1000:.1f} ms "
                     "(not per turn: a read-only batch after the first keeps none)")
    return row


async def large_workspaces(config: Config) -> list[Row]:
    """What checkpoints add to a turn in workspaces of 1,000 and 10,000 files (2 KB each): a
    batch that only reads, and a bash call that changes one file."""
    rows = []
    turns = config.size(10, 3, smoke=2)
    reads = config.size(20, 5, smoke=3)
    sizes = ((config.size(1_000, 200, smoke=20), CHECKPOINT_BUDGET_MS),
             (config.size(10_000, 1_000, smoke=40), LARGE_CHECKPOINT_BUDGET_MS))
    for files, change_budget in sizes:
        with workspace() as root:
            make_workspace(root, files, files * 2_000)
            async with fake_llm() as fake, started(
                llm_env(os.environ, fake.url), root, settings=CHECKPOINTS_OFF
            ) as daemon:
                rows.append(await read_turn_overhead(
                    daemon, reads, config.reps,
                    f"checkpoint overhead, read turn, {files:,} files"))
                rows.append(await checkpoint_overhead(
                    daemon, turns, config.reps, budget_ms=change_budget,
                    label=f"checkpoint overhead, bash turn, {files:,} files"))
    return rows


async def run(config: Config) -> list[Row]:
    """All four combinations on one daemon and one fake LLM."""
    turns = config.size(50, 5, smoke=2)
    rows = []
    with workspace() as root:
        async with fake_llm() as fake, started(
            llm_env(os.environ, fake.url), root, settings=CHECKPOINTS_OFF
        ) as daemon:
            for provider, stream in COMBOS[:2] if config.quick else COMBOS:
                rows.append(await measure(daemon, fake.url, provider, stream, turns,
                                          config.tight_reps))
            rows.append(await measure(daemon, fake.url, *COMBOS[0], turns, config.tight_reps,
                                      checkpoints=False))
            rows.append(await checkpoint_overhead(daemon, config.size(20, 5, smoke=2),
                                                     config.reps))
    return rows + await large_workspaces(config)
