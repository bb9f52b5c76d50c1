"""Case 4: a reply of 10,000 text deltas, through the daemon to the client.

- Throughput: the whole reply, unpaced, end to end; floor: the same stream consumed directly
  with the SDK. Every character must arrive, in order.
- Latency: the same reply paced by the fake server; each delta's delay is its arrival at the
  client (in a `text_delta` notification) minus the time the fake server sent it, both on the
  machine-wide monotonic clock. The notifications' rate is the most seen in any one second.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from benchmarks.core import Config, Row, interleave, limit_row, median, now, ratio_row
from benchmarks.daemon import Daemon, llm_env, started, workspace
from benchmarks.direct import DirectLoop
from benchmarks.fake_llm import FakeProcess, fake_llm
from benchmarks.script import DELTA_CHARS, delta_text

THROUGHPUT_LIMIT = 1.5
DELAY_LIMIT_MS = 50.0
RATE_LIMIT = 100.0
LATENCY_PROVIDER = "anthropic"
Pieces = list[tuple[float, str]]


async def through_daemon(daemon: Daemon, provider: str, deltas: int, pace: float) -> Pieces:
    """Stream through the daemon; the `text_delta` pieces with their arrival times."""
    out = await daemon.run(f"bench stream {deltas} {pace}", provider=provider, stream=True)
    pieces = [(n.at, n.params["text"]) for n in out.progress("text_delta")]
    _check("daemon", pieces, deltas)
    if out.result.get("text") != delta_text(deltas):
        raise RuntimeError("the run's final text differs from the streamed reply")
    return pieces


def _check(who: str, pieces: Pieces, deltas: int) -> None:
    text = "".join(t for _, t in pieces)
    if text != delta_text(deltas):
        raise RuntimeError(f"{who}: {len(text)} characters arrived, not the reply in order")


def worst_delay(pieces: Pieces, sent: dict[int, float]) -> float:
    """The longest time any delta took from the fake server to the consumer, in seconds."""
    worst, chars, done = 0.0, 0, 0
    for at, text in pieces:
        chars += len(text)
        while done < chars // DELTA_CHARS:
            worst = max(worst, at - sent[done])
            done += 1
    return worst


def peak_rate(times: Sequence[float], window: float = 1.0) -> float:
    """The most messages seen within any `window` seconds, per second."""
    best, start = 0, 0
    for end, at in enumerate(times):
        while at - times[start] > window:
            start += 1
        best = max(best, end - start + 1)
    return best / window


async def throughput(daemon: Daemon, url: str, provider: str, deltas: int, reps: int) -> Row:
    """End-to-end time of the unpaced reply, against the SDK consuming it directly."""
    direct = DirectLoop(provider, url, True, str(daemon.workspace))

    async def ours() -> float:
        started_at = now()
        await through_daemon(daemon, provider, deltas, 0)
        return now() - started_at

    async def floor() -> float:
        started_at = now()
        _check("sdk", await direct.stream_text(f"bench stream {deltas} 0"), deltas)
        return now() - started_at

    try:
        await ours()
        mine, base = await interleave(reps, ours, floor)
    finally:
        await direct.close()
    return ratio_row(f"stream {deltas} deltas, {provider}", median(mine), median(base), "s",
                     THROUGHPUT_LIMIT)


async def latency(
    daemon: Daemon, fake: FakeProcess, deltas: int, pace: float, reps: int
) -> list[Row]:
    """Worst delta delay and notification rate of a paced reply.

    The Anthropic wire is used because its SDK parses a delta about 3× faster than OpenAI's
    (≈ 60 µs against ≈ 200 µs here), so the floor keeps up with the pace and the delay measured
    is the daemon's, not a backlog in the SDK.
    """
    direct = DirectLoop(LATENCY_PROVIDER, fake.url, True, str(daemon.workspace))
    delays: tuple[list[float], list[float]] = ([], [])
    rates: tuple[list[float], list[float]] = ([], [])
    try:
        await fake.stamps()
        for _ in range(reps):
            floor_pieces = await direct.stream_text(f"bench stream {deltas} {pace}")
            delays[1].append(worst_delay(floor_pieces, await fake.stamps()))
            rates[1].append(peak_rate([at for at, _ in floor_pieces]))
            pieces = await through_daemon(daemon, LATENCY_PROVIDER, deltas, pace)
            delays[0].append(worst_delay(pieces, await fake.stamps()))
            rates[0].append(peak_rate([at for at, _ in pieces]))
    finally:
        await direct.close()
    name = f"stream {deltas} deltas, {LATENCY_PROVIDER}, paced {pace * 1000:g} ms"
    delay_row = limit_row(f"{name}: worst delay", median(delays[0]) * 1000,
                          median(delays[1]) * 1000, "ms", DELAY_LIMIT_MS)
    delay_row.notes.append("median over runs of each run's worst delay; runs: "
                           + ", ".join(f"{d * 1000:.0f}" for d in delays[0]) + " ms")
    rate_row = limit_row(f"{name}: notifications", max(rates[0]), max(rates[1]), "/s",
                         RATE_LIMIT)
    rate_row.notes.append(f"{len(pieces)} text_delta notifications for {deltas} deltas")
    return [delay_row, rate_row]


async def run(config: Config) -> list[Row]:
    """Throughput for both providers, then the paced latency figures."""
    deltas = config.size(10_000, 500, smoke=100)
    pace = 0.0002 if not config.quick else 0.001
    reps = min(config.reps, 3)
    rows = []
    with workspace() as root:
        async with fake_llm() as fake, started(llm_env(os.environ, fake.url), root) as daemon:
            for provider in ("openai", "anthropic")[1 if config.quick else 0:]:
                rows.append(await throughput(daemon, fake.url, provider, deltas, reps))
            rows += await latency(daemon, fake, deltas, pace, reps)
    return rows
