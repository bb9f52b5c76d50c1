"""Case `diagnostics`, the daemon's own language servers: what waiting for the problems of an
edit from a server the daemon runs itself (real `ruff server`) adds beyond the server's own
time to check the file.

Two daemons on the same fake LLM run the same one-edit prompts (`write_file` of a Python file,
different each time): one with `languageServers` naming ruff, one with `languageServers: {}`.
The floor is ruff itself, spoken to directly from this process (no sandbox): the time from
sending the same new text to receiving its problems. Figure: the run with the server minus the
run without it, against that floor; the target is at most 50 ms more. The first use of the
server (its start, handshake and first checks, beyond a plain run) and the memory of the idle
server are reported, and so are basedpyright's (when installed).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from benchmarks.core import REPO, Config, Row, info_row, interleave, margin_row, median, now
from benchmarks.daemon import CHECKPOINTS_OFF, Daemon, llm_env, proc_status, started, workspace
from benchmarks.fake_llm import fake_llm
from benchmarks.rpc import RpcClient
from benchmarks.script import python_text

MARGIN_MS = 50.0
BIN = str(Path(sys.executable).parent)
RUFF = shutil.which("ruff", path=BIN) or shutil.which("ruff")
PYRIGHT = shutil.which("basedpyright-langserver", path=BIN) or shutil.which(
    "basedpyright-langserver")


class DirectServer:
    """ruff's server spoken to directly: `check(text)` times one change's problems."""

    def __init__(self, client: RpcClient, uri: str) -> None:
        self.client = client
        self.uri = uri
        self.version = 1

    async def check(self, text: str) -> float:
        """Seconds from sending `text` to receiving its problems."""
        self.version += 1
        waiting = self.client.next_note("textDocument/publishDiagnostics")
        started = now()
        self.client.notify("textDocument/didChange", {
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [{"text": text}]})
        while (await waiting).params.get("version") != self.version:
            waiting = self.client.next_note("textDocument/publishDiagnostics")
        return now() - started


@contextlib.asynccontextmanager
async def direct(root: Path) -> AsyncIterator[DirectServer]:
    """ruff's server on `root`, with `app.py` open."""
    assert RUFF is not None
    client = await RpcClient.spawn([RUFF, "server"], os.environ, REPO, None)
    try:
        caps = {"textDocument": {"publishDiagnostics": {"versionSupport": True}}}
        await client.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(),
                                            "capabilities": caps}, timeout=30)
        client.notify("initialized", {})
        uri = (root / "app.py").as_uri()
        opened = client.next_note("textDocument/publishDiagnostics")
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": python_text(0)}})
        await opened
        yield DirectServer(client, uri)
    finally:
        with contextlib.suppress(Exception):
            await client.request("shutdown", None, timeout=5)
            client.notify("exit", None)
        await client.close()


async def _edit(daemon: Daemon, count: list[int]) -> float:
    """Seconds one run of one edit of `app.py` takes."""
    count[0] += 1
    outcome = await daemon.run(f"bench pywrite app.py {count[0]}")
    if outcome.result["status"] != "completed":
        raise RuntimeError(f"the run ended {outcome.result['status']}")
    return outcome.seconds


def server_memory(daemon_pid: int, marker: str) -> float:
    """The RSS (MB) of the processes below the daemon whose command line holds `marker` (the
    server's, not bubblewrap's around it)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(f"/proc/{name}/stat").read_text()
                parents[int(name)] = int(stat.rsplit(")", 1)[1].split()[1])
    total = 0.0
    for pid in parents:
        ancestor = parents.get(pid)
        while ancestor not in (None, 0, 1, daemon_pid):
            ancestor = parents.get(ancestor)
        if ancestor != daemon_pid:
            continue
        with contextlib.suppress(OSError, KeyError):
            line = Path(f"/proc/{pid}/cmdline").read_bytes()
            if marker.encode() in line and Path(f"/proc/{pid}/exe").resolve().name != "bwrap":
                total += proc_status(pid, "VmRSS")
    return total


async def run(config: Config) -> list[Row]:
    """Time one-edit runs with and without the daemon's own ruff server."""
    if RUFF is None:
        raise RuntimeError("ruff is not installed (it is one of the test tools)")
    reps = config.size(15, 3, 1)
    ruff = {"ruff": {"command": [RUFF, "server"], "languages": ["python"]}}
    with workspace() as own_root, workspace() as plain_root, workspace() as direct_root:
        async with fake_llm() as fake:
            env = llm_env(os.environ, fake.url)
            async with started(env, own_root, settings={**CHECKPOINTS_OFF,
                                                        "languageServers": ruff}) as own, \
                    started(env, plain_root, settings={**CHECKPOINTS_OFF,
                                                       "languageServers": {}}) as plain, \
                    direct(direct_root) as server:
                counts = [0], [0]
                await own.run("bench write warm.txt")  # the engine and the SDK load
                await _edit(plain, counts[1])
                first = await _edit(own, counts[0])  # the server starts
                plain_once = await _edit(plain, counts[1])
                checks: list[int] = [0]

                async def checked() -> float:
                    checks[0] += 1
                    return await server.check(python_text(checks[0]))

                timed, floor, alone = await interleave(
                    reps, lambda: _edit(own, counts[0]), lambda: _edit(plain, counts[1]),
                    checked)
                memory = server_memory(own.pid, "ruff")
                direct_memory = proc_status(server.client.pid, "VmRSS")
                rows = _rows(timed, floor, alone, first - plain_once, memory, direct_memory,
                             reps)
                if PYRIGHT is not None:
                    rows += await _pyright(env, median(floor))
    return rows


async def _pyright(env: dict[str, str], plain: float) -> list[Row]:
    """basedpyright's first use and idle memory (a type checker on Node: the heavy one)."""
    assert PYRIGHT is not None
    servers = {"basedpyright": {"command": [PYRIGHT, "--stdio"], "languages": ["python"]}}
    with workspace() as root:
        async with started(env, root, settings={**CHECKPOINTS_OFF,
                                                "languageServers": servers}) as daemon:
            await daemon.run("bench write warm.txt")
            first = await _edit(daemon, [0])
            later = await _edit(daemon, [1])
            memory = server_memory(daemon.pid, "basedpyright")
    start = info_row("diagnostics: first use of basedpyright (start, handshake, first checks), "
                     "beyond a plain run", (first - plain) * 1000, None, "ms")
    start.notes.append(f"a later edit's run with it: {later * 1000:.0f} ms, without a server "
                       f"{plain * 1000:.0f} ms")
    return [start, info_row("diagnostics: idle memory of basedpyright (Node)", memory, None,
                            "MB")]


def _rows(timed: list[float], floor: list[float], alone: list[float], first: float,
          memory: float, direct_memory: float, reps: int) -> list[Row]:
    """The target row, the first use and the memory of ruff."""
    ours = (median(timed) - median(floor)) * 1000
    own = median(alone) * 1000
    row = margin_row("diagnostics: an edit's wait for the daemon's own server (ruff), beyond "
                     "the server's own time", ours, own, "ms", MARGIN_MS)
    row.notes.append(f"run with ruff {median(timed) * 1000:.1f} ms, without "
                     f"{median(floor) * 1000:.1f} ms; ruff alone checks the change in "
                     f"{own:.1f} ms; median of {reps}")
    rows = [row]
    rows.append(info_row("diagnostics: first use of the own server (start, handshake, first "
                         "checks), beyond a plain run", first * 1000, None, "ms"))
    memo = info_row("diagnostics: idle memory of the own server (ruff)", memory, direct_memory,
                    "MB")
    memo.notes.append("floor: the same server started directly, unsandboxed")
    rows.append(memo)
    return rows
