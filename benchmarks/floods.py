"""Case 6: tools that produce far more than the model may see must not swell the daemon.

`bash` printing 50 MB and `read_file` of a 1 GB sparse file, each through a fresh daemon: its
peak RSS (VmHWM) may grow by at most 20 MB and the tool must finish within 1 s (first
`tool_started` to `tool_completed`/`tool_failed`, as the client sees them). Floors, for
information: the same command with its output sent to /dev/null, and reading the file's first
4 KB directly. For bash, the live output (`tool_output`) the client got: at most 10 notifications
a second (over the call's duration, at least 1 s) and 64 KiB of text.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from benchmarks.core import Config, Row, limit_row, now
from benchmarks.daemon import NOTES, RunOutcome, llm_env, started, workspace
from benchmarks.fake_llm import fake_llm

RSS_LIMIT_MB = 20.0
TIME_LIMIT_S = 1.0


def tool_seconds(out: RunOutcome) -> float:
    """Client-side duration of the run's single tool call, which must have completed."""
    completed = out.progress("tool_completed")
    if not completed:
        failed = [n.params.get("output") for n in out.progress("tool_failed")]
        raise RuntimeError(f"the flood's tool did not complete: {failed}")
    return completed[0].at - out.progress("tool_started")[0].at


async def through_daemon(root: Path, url: str, prompt: str) -> tuple[RunOutcome, float]:
    """Run `prompt` on a fresh, warmed-up daemon; its outcome and its VmHWM growth in MB."""
    async with started(llm_env(os.environ, url), root) as daemon:
        # Warm up the same paths (SDK import, bash, read_file) so only the flood is measured.
        await daemon.run(f"bench read {NOTES}")
        await daemon.run("bench bash echo warm")
        before = daemon.mb("VmHWM")
        out = await daemon.run(prompt)
        return out, daemon.mb("VmHWM") - before


async def bash_floor(command: str, root: Path) -> float:
    """Seconds for `command` with its output discarded."""
    started_at = now()
    proc = await asyncio.create_subprocess_exec(
        "bash", "-c", command, cwd=root, stdout=asyncio.subprocess.DEVNULL)
    await proc.wait()
    return now() - started_at


def read_floor(path: Path) -> float:
    """Seconds to read the file's first 4097 bytes."""
    started_at = now()
    with path.open("rb") as f:
        f.read(4097)
    return now() - started_at


def _rows(name: str, out: RunOutcome, growth: float, floor_s: float) -> list[Row]:
    seconds = tool_seconds(out)
    done = out.progress("tool_completed")[0].params
    time_row = limit_row(f"{name}: tool time", seconds, floor_s, "s", TIME_LIMIT_S)
    time_row.notes.append(f"tool reported {done.get('bytes')} bytes, "
                          f"truncated={done.get('truncated')}, {len(done['output'])} chars kept")
    rows = [time_row, limit_row(f"{name}: peak RSS growth", growth, None, "MB", RSS_LIMIT_MB)]
    live = out.progress("tool_output")
    if live:  # bash's live output: at most 10 notifications a second and 64 KiB in all
        sent = sum(len(str(n.params.get("text", "")).encode()) for n in live)
        per_second = len(live) / max(seconds, 1.0)
        row = limit_row(f"{name}: live output notifications/s", per_second, None, "/s", 10.0)
        row.notes.append(f"{len(live)} tool_output notifications, {sent} bytes of text")
        rows.append(row)
    return rows


async def run(config: Config) -> list[Row]:
    """The bash flood, then the sparse-file read, each on its own daemon."""
    out_mb, file_gb = config.size(50, 5, smoke=1), config.size(1024, 100, smoke=10) / 1024
    command = f"yes harness9-flood | head -c {out_mb * 1024 * 1024}"
    rows = []
    with workspace() as root:
        big = root / "big.bin"
        with big.open("wb") as f:
            f.truncate(int(file_gb * 1024**3))
        async with fake_llm() as fake:
            out, growth = await through_daemon(root, fake.url, f"bench bash {command}")
            rows += _rows(f"flood: bash {out_mb} MB", out, growth,
                          await bash_floor(command, root))
            out, growth = await through_daemon(root, fake.url, "bench read big.bin")
            rows += _rows(f"flood: read_file {file_gb:g} GB sparse", out, growth,
                          read_floor(big))
    return rows
