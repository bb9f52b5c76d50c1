"""Case: the daemon's own cost per turn does not grow with the session's history.

A stored session of N messages (a system prompt, a prompt, then read_file calls of `notes.txt`
with their results) is continued for 40 turns of the same kind, N = 10 and N = 1,000, a fresh
copy of the session for every run (so loading it from disk is counted too). The floor of each
is the same requests made directly with the SDK (encoded and posted as the daemon posts them),
with a conversation of the same length. What the daemon adds per turn (its CPU time minus the
floor client's: steadier than wall time on a busy machine, and both sides encode the same
request the same way) at 1,000 messages is compared with what it adds at 10.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.core import Config, Row, interleave, median, ratio_row
from benchmarks.daemon import CHECKPOINTS_OFF, NOTES, Daemon, llm_env, started, workspace
from benchmarks.direct import DirectLoop
from benchmarks.fake_llm import fake_llm
from harness9.service.state import workspace_key

PROMPT = f"bench loop {NOTES}"
SIZES = (10, 1_000)
LIMIT = 1.5


def _session_lines(size: int, output: str) -> str:
    """A stored session of `size` messages, as the daemon writes them."""
    records = [{"role": "system", "content": "You are harness9."},
               {"role": "user", "content": PROMPT}]
    for k in range((size - 2) // 2):
        records.append({"role": "assistant", "content": "", "toolCalls": [
            {"id": f"h{k}", "name": "read_file", "arguments": json.dumps({"path": NOTES})}]})
        records.append({"role": "user", "content": output, "toolCallId": f"h{k}"})
    return "".join(json.dumps({"type": "message", "message": r}) + "\n" for r in records)


class _Sessions:
    """Fresh stored sessions of a given size, one per run."""

    def __init__(self, state: Path, root: Path, output: str) -> None:
        self.folder = state / "sessions" / workspace_key(str(root))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.lines = {size: _session_lines(size, output) for size in SIZES}
        self.count = 0

    def new(self, size: int) -> str:
        self.count += 1
        session_id = f"s-bench{self.count:05d}"
        (self.folder / f"{session_id}.jsonl").write_text(self.lines[size])
        meta = {"session_id": session_id, "workspace_root": "", "created_at": time.time(),
                "updated_at": time.time()}
        (self.folder / f"{session_id}.meta.json").write_text(json.dumps(meta))
        return session_id


@dataclass(slots=True)
class _Figures:
    """ms per turn of one session size: wall and CPU time, ours and the floor's."""

    wall: tuple[float, float]
    cpu: tuple[float, float]
    added: float  # what the daemon adds per turn in CPU time: the median of paired differences


async def _overhead(daemon: Daemon, direct: DirectLoop, sessions: _Sessions, size: int,
                    output: str, turns: int, reps: int) -> _Figures:
    """Ours and the floor for a session of `size` messages."""
    cpu: tuple[list[float], list[float]] = ([], [])

    async def ours() -> float:
        session_id = sessions.new(size)
        before = daemon.cpu_seconds()
        out = await daemon.run(PROMPT, sessionId=session_id, maxTurns=turns,
                               provider="openai", stream=False, contextWindow=10_000_000)
        cpu[0].append(daemon.cpu_seconds() - before)
        if out.result["toolCalls"] != turns:
            raise RuntimeError(f"expected {turns} tool calls, got {out.result}")
        return out.seconds

    async def floor() -> float:
        before = time.process_time()
        seconds = await direct.run(PROMPT, turns, (size - 2) // 2, output)
        cpu[1].append(time.process_time() - before)
        return seconds

    await ours()
    await floor()
    cpu[0].clear()
    cpu[1].clear()
    mine, base = await interleave(reps, ours, floor)

    def per_turn(values: list[float]) -> float:
        return median(values) / turns * 1000

    # Each round's ours and floor ran back to back: their difference cancels the machine's
    # drifting load better than the difference of the two medians.
    added = median([a - b for a, b in zip(cpu[0], cpu[1], strict=True)]) / turns * 1000
    return _Figures((per_turn(mine), per_turn(base)), (per_turn(cpu[0]), per_turn(cpu[1])),
                    added)


async def run(config: Config) -> list[Row]:
    """The daemon's added ms per turn at 1,000 messages against 10."""
    from harness9.tools.read_file import ReadFileTool

    # Enough CPU per run that the clock's 10 ms ticks blur little (a smoke run only runs it).
    turns = config.size(40, 10, smoke=3)
    with workspace() as root, tempfile.TemporaryDirectory() as state:
        read = await ReadFileTool(str(root)).execute(json.dumps({"path": NOTES}))
        output = read if isinstance(read, str) else read.text
        sessions = _Sessions(Path(state), root, output)
        async with fake_llm() as fake, started(
            llm_env(os.environ, fake.url), root, settings=CHECKPOINTS_OFF, state=Path(state)
        ) as daemon:
            direct = DirectLoop("openai", fake.url, False, str(root), raw=True)
            try:
                reps = config.reps if config.quick else max(config.reps, 9)
                small = await _overhead(daemon, direct, sessions, SIZES[0], output, turns, reps)
                big = await _overhead(daemon, direct, sessions, SIZES[1], output, turns, reps)
            finally:
                await direct.close()
    row = ratio_row("daemon's own CPU per turn, 1,000 vs 10 messages", big.added,
                    small.added, "ms/turn", LIMIT)
    for size, fig in zip(SIZES, (small, big), strict=True):
        row.notes.append(
            f"{size} messages: CPU ours {fig.cpu[0]:.2f}, floor {fig.cpu[1]:.2f} ms/turn; "
            f"wall ours {fig.wall[0]:.2f}, floor {fig.wall[1]:.2f} ms/turn")
    return [row]
