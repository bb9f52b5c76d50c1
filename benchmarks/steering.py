"""Case `steering`: how long after a batch ends a steer reaches the model.

A run makes one bash call (`sleep`); while it sleeps, `agent/steer` sends a message. Measured
at the fake LLM: from the arrival of the request that got the bash call to the arrival of the
next one (which carries the steer), the batch included. Floor: the same span in a run nobody
steers (same batch). The target is that a steer adds at most 5 ms to it.
"""

from __future__ import annotations

import asyncio
import os

from benchmarks.core import Config, Row, interleave, margin_row, median
from benchmarks.daemon import CHECKPOINTS_OFF, Daemon, llm_env, started, workspace
from benchmarks.fake_llm import FakeProcess, fake_llm

MARGIN_MS = 5.0


async def _gap(daemon: Daemon, fake: FakeProcess, sleep: float, steer: bool) -> float:
    """Seconds between the arrivals of the run's two model requests."""
    await fake.arrivals()  # forget earlier requests
    run = asyncio.ensure_future(daemon.run(f"bench bash sleep {sleep}"))
    if steer:
        note = await daemon.client.wait_note(
            lambda n: isinstance(n.params, dict) and n.params.get("kind") == "tool_started")
        answer = await daemon.client.request(
            "agent/steer", {"runId": note.params["runId"], "prompt": "also this"})
        if answer["delivered"] != "run":
            raise RuntimeError(f"the steer was not delivered to the run: {answer}")
    out = await run
    if steer and not out.progress("steered"):
        raise RuntimeError("no steered notification")
    arrivals = await fake.arrivals()
    if len(arrivals) != 2:
        raise RuntimeError(f"expected 2 model requests, got {len(arrivals)}")
    return arrivals[1] - arrivals[0]


async def run(config: Config) -> list[Row]:
    """Time the span from a batch's end to the next model request, steered and not."""
    sleep = 0.3 if not config.quick else 0.1
    with workspace() as root:
        async with fake_llm() as fake, started(
            llm_env(os.environ, fake.url), root, settings=CHECKPOINTS_OFF
        ) as daemon:
            await daemon.run("bench warm-up")
            steered, plain = await interleave(
                max(config.reps, 3) if not config.quick else 1,
                lambda: _gap(daemon, fake, sleep, True),
                lambda: _gap(daemon, fake, sleep, False),
            )
    ours, floor = median(steered) * 1000, median(plain) * 1000
    row = margin_row(f"steer: request → batch (sleep {sleep}) → next request", ours, floor,
                     "ms", MARGIN_MS)
    row.notes.append(f"steered {ours:.2f} ms, not steered {floor:.2f} ms")
    return [row]
