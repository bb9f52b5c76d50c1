"""Case `diagnostics`: what asking the editor for an edit's problems adds beyond the language
server's own latency.

Two daemons on the same fake LLM run the same one-edit prompts (`write_file` of a new file):
one whose client announces `experimental.harness9.diagnostics` and answers each
`harness9/diagnostics` after `LATENCY` seconds (the language server checking the file; asked
before the edit it answers at once, as an editor does with what it has), and one whose client
does not. Figure: the run's time with the capability minus `LATENCY`, against the run without
it (the floor); the target is at most 50 ms more. Then the same for the language servers the
daemon runs itself (`own_servers`).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from benchmarks.core import Config, Row, interleave, margin_row, median
from benchmarks.daemon import CHECKPOINTS_OFF, Daemon, llm_env, started, workspace
from benchmarks.fake_llm import fake_llm
from benchmarks.own_servers import run as run_own_servers

LATENCY = 0.1
MARGIN_MS = 50.0
CAPABILITY = {"experimental": {"harness9": {"diagnostics": True}}}


async def _answer(method: str, params: Any) -> Any:
    """The editor's problems: none, after the language server's latency when asked to wait."""
    if method != "harness9/diagnostics":
        return None
    if params.get("timeoutMs", 0) > 0:
        await asyncio.sleep(LATENCY)
    return {"diagnostics": [], "version": params.get("version")}


async def _edit(daemon: Daemon, count: list[int]) -> float:
    """Seconds one run of one edit takes."""
    count[0] += 1
    outcome = await daemon.run(f"bench write new_{count[0]}.py")
    if outcome.result["status"] != "completed":
        raise RuntimeError(f"the run ended {outcome.result['status']}")
    return outcome.seconds


async def run(config: Config) -> list[Row]:
    """Time one-edit runs with and without the editor's problems."""
    reps = config.size(15, 3, 1)
    with workspace() as with_root, workspace() as plain_root:
        async with fake_llm() as fake:
            env = llm_env(os.environ, fake.url)
            async with started(env, with_root, settings=CHECKPOINTS_OFF,
                               capabilities=CAPABILITY) as asking, \
                    started(env, plain_root, settings=CHECKPOINTS_OFF) as plain:
                asking.client.on_request = _answer
                counts = [0], [0]
                await _edit(asking, counts[0])  # warm-up: the engine and the SDK load
                await _edit(plain, counts[1])
                timed, floor = await interleave(
                    reps, lambda: _edit(asking, counts[0]), lambda: _edit(plain, counts[1]))
    ours = (median(timed) - LATENCY) * 1000
    base = median(floor) * 1000
    row = margin_row("diagnostics: an edit's run, beyond the language server's latency",
                     ours, base, "ms", MARGIN_MS)
    row.notes.append(f"with the editor's problems {median(timed) * 1000:.1f} ms "
                     f"(language server {LATENCY * 1000:.0f} ms), without {base:.1f} ms; "
                     f"median of {reps}")
    return [row, *await run_own_servers(config)]
