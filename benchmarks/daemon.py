"""Starting the daemon against a fake LLM, running prompts, and reading its memory figures."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.core import PYTHON, REPO, now
from benchmarks.rpc import Note, RpcClient, initialize_params

DAEMON = (PYTHON, "-m", "harness9", "serve")
# Set by `--profile DIR`: daemons started by `started` then run under cProfile, one file each.
PROFILE_DIR: list[Path] = []
BARE = (PYTHON, "-m", "benchmarks.bare_server")
# The cases that measure the engine and the daemon say so explicitly: what checkpoints cost per
# turn is a row of its own (turn_overhead's "checkpoint overhead").
CHECKPOINTS_OFF = {"checkpoints": False}
# HARNESS9_SANDBOX: the daemon runs bash as this machine does by default (the test suite sets
# it off for its own daemons).
_KEYS_TO_DROP = ("HARNESS9_PROVIDER", "HARNESS9_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
                 "HARNESS9_SANDBOX")


def llm_env(base: Mapping[str, str], url: str | None, provider: str = "openai") -> dict[str, str]:
    """`base` with both providers pointed at the fake LLM at `url` (or nowhere when None)."""
    env = {k: v for k, v in base.items() if k not in _KEYS_TO_DROP}
    # The checkout's own server code, whatever the environment has installed.
    env["PYTHONPATH"] = os.pathsep.join((str(REPO), str(REPO / "server")))
    env["HARNESS9_APPROVALS"] = "yolo"  # the tools run unasked: no user to wait for
    # Every start runs on its own unless a figure says it goes through a resident (`resident`).
    env["HARNESS9_RESIDENT"] = "0"
    if url is None:
        return env
    env.update(
        HARNESS9_PROVIDER=provider,
        HARNESS9_MODEL="bench-model",
        OPENAI_API_KEY="bench-key",
        OPENAI_BASE_URL=f"{url}/v1",
        ANTHROPIC_API_KEY="bench-key",
        ANTHROPIC_BASE_URL=url,
    )
    return env


def proc_status(pid: int, field: str) -> float:
    """A `VmRSS`/`VmHWM`-style field of /proc/<pid>/status, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time process `pid` has used so far (not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(slots=True)
class RunOutcome:
    """One `agent/run`: its result, its own notifications and its wall time."""

    result: dict[str, Any]
    notes: list[Note]
    started: float
    seconds: float

    def progress(self, kind: str) -> list[Note]:
        """This run's `agent/progress` notifications of one kind."""
        return [n for n in self.notes if n.params.get("kind") == kind]


class Daemon:
    """A running, initialized daemon (or the bare floor server)."""

    def __init__(self, client: RpcClient, workspace: Path) -> None:
        self.client = client
        self.workspace = workspace

    @property
    def pid(self) -> int:
        """The daemon's process id."""
        return self.client.pid

    def mb(self, field: str = "VmRSS") -> float:
        """The daemon's memory figure `field` in MB."""
        return proc_status(self.pid, field)

    def cpu_seconds(self) -> float:
        """User + system CPU time the daemon has used so far."""
        return cpu_seconds(self.pid)

    def has_loaded(self, *names: str) -> bool:
        """Whether any mapped file of the daemon's memory contains one of `names`."""
        maps = Path(f"/proc/{self.pid}/maps").read_text()
        return any(name in maps for name in names)

    async def run(self, prompt: str, timeout: float = 120.0, **params: Any) -> RunOutcome:
        """Run one prompt to its end and collect the notifications of that run."""
        started = now()
        result = await self.client.request(
            "agent/run", {"prompt": prompt, **params}, timeout=timeout
        )
        seconds = now() - started
        notes = [
            n for n in self.client.take_run_notes(result["runId"]) if n.method == "agent/progress"
        ]
        return RunOutcome(result, notes, started, seconds)


@contextlib.asynccontextmanager
async def started(
    env: Mapping[str, str],
    workspace: Path,
    argv: tuple[str, ...] = DAEMON,
    settings: dict[str, Any] | None = None,
    state: Path | None = None,
    capabilities: dict[str, Any] | None = None,
) -> AsyncIterator[Daemon]:
    """Spawn `argv`, initialize it on `workspace` with the client `settings` (and client
    `capabilities`), and shut it down afterwards. Its sessions and checkpoints go to `state`,
    else a temporary folder.

    The child's stderr goes to a temporary file, shown when the child fails to answer.
    """
    if argv == DAEMON and PROFILE_DIR:
        out = tempfile.mktemp(suffix=".prof", prefix="daemon-", dir=PROFILE_DIR[0])
        argv = (PYTHON, "-m", "cProfile", "-o", out, *DAEMON[1:])
    with tempfile.TemporaryFile() as log, tempfile.TemporaryDirectory() as temporary:
        env = {**env, "HARNESS9_STATE_DIR": str(state or temporary)}
        client = await RpcClient.spawn(argv, env, REPO, log)
        try:
            try:
                params = initialize_params(workspace, settings, capabilities)
                await client.request("initialize", params, timeout=30)
            except Exception as exc:
                raise RuntimeError(f"{' '.join(argv)} did not start: {_tail(log)}") from exc
            client.notify("initialized", {})
            yield Daemon(client, workspace)
        finally:
            await client.close()


def _tail(log: Any) -> str:
    log.seek(0)
    text: str = log.read().decode(errors="replace")
    return text[-1500:]


NOTES = "notes.txt"


@contextlib.contextmanager
def workspace() -> Iterator[Path]:
    """A temporary workspace holding a small text file, `notes.txt`, for read_file turns."""
    with tempfile.TemporaryDirectory(prefix="h9bench-") as tmp:
        root = Path(tmp).resolve()
        (root / NOTES).write_text("".join(f"line {i}: some notes\n" for i in range(40)))
        yield root


@dataclass
class Resident:
    """A resident for a figure's starts, its socket in `folder` (see `resident`)."""

    folder: Path

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` with its starts handed to this resident."""
        return {**env, "HARNESS9_RESIDENT": "1", "XDG_RUNTIME_DIR": str(self.folder)}

    async def ready(self, start: Callable[[], Awaitable[object]]) -> None:
        """Make the resident with `start` (which runs on its own), wait until it listens, then
        start once more through it (that start waits for its imports)."""
        await start()
        deadline = now() + 120
        while not any(self.folder.glob("harness9/*.pid")):
            if now() > deadline:
                raise RuntimeError(f"no resident started in {self.folder}")
            await asyncio.sleep(0.05)
        await start()


@contextlib.contextmanager
def resident() -> Iterator[Resident]:
    """A resident whose socket is in a new short folder; stopped at the end."""
    folder = Path(tempfile.mkdtemp(prefix="h9b-"))
    try:
        yield Resident(folder)
    finally:
        for pid_file in folder.glob("harness9/*.pid"):
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text()), signal.SIGTERM)
        shutil.rmtree(folder, ignore_errors=True)
