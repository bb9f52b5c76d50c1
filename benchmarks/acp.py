"""Case `acp`: the ACP front-end (`harness9 acp`) next to the LSP daemon (`harness9 serve`).

Cold start: spawn until `initialize` is answered, both ways (target ≤ 1.3× the LSP daemon's);
until ACP's `session/new` is answered too (what a client waits before it shows the session:
target ≤ 400 ms); and until the first prompt is answered (one `read_file`, an instant fake
model: target ≤ 1.5 s on the OpenAI wire; the Anthropic wire, whose SDK takes twice as long to
import, for information), the provider's SDK loaded by then; for information the agent's CPU
time by then, and the floors no start can go under: an interpreter importing the ACP SDK and
the provider's. Per-turn overhead: runs of N `read_file` turns on the same fake LLM through
each front-end, streaming, checkpoints off (target: within 1 ms of each other); and, for
information, the same turns with the client offering its file system, each read_file then a
`fs/read_text_file` round trip (floor: the ACP agent reading the disk). Other agents' ACP
adapters, when installed, are compared with in `acp_peers`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from benchmarks.core import (
    PYTHON,
    REPO,
    Config,
    Row,
    Timed,
    info_row,
    interleave,
    limit_row,
    margin_row,
    median,
    now,
    ratio_row,
)
from benchmarks.daemon import (
    CHECKPOINTS_OFF,
    DAEMON,
    NOTES,
    Resident,
    cpu_seconds,
    llm_env,
    resident,
    started,
    workspace,
)
from benchmarks.fake_llm import fake_llm
from benchmarks.rpc import RpcClient, end_process, initialize_params

ACP = (PYTHON, "-m", "harness9", "acp")
COLD_TARGET = 1.3
SESSION_MS = 400.0
FIRST_PROMPT_MS = 1500.0
TURN_MARGIN_MS = 1.0
PROMPT = f"bench loop {NOTES}"
FLOORS = ("openai", "anthropic")  # the provider SDKs, each imported with the ACP SDK


class NdjsonClient(RpcClient):
    """`RpcClient` speaking newline-delimited JSON, as ACP does."""

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    async def _read_loop(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            while line := await stdout.readline():
                self._dispatch(json.loads(line))
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("the agent closed its output"))

    async def close(self, timeout: float = 5.0) -> int:
        """Close the agent's input (ACP's way to end), then kill it if it lingers."""
        return await end_process(self.proc, self._reader, timeout)


@contextlib.asynccontextmanager
async def acp_agent(
    env: Mapping[str, str], settings: dict[str, Any] | None = None, fs: bool = False
) -> AsyncIterator[NdjsonClient]:
    """A started, initialized `harness9 acp` with its state in a temporary folder (`fs`: the
    client offers its file system, answering reads from the disk)."""
    argv = (*ACP, "--settings", json.dumps(settings)) if settings else ACP
    with tempfile.TemporaryDirectory() as state:
        client = await NdjsonClient.spawn(argv, {**env, "HARNESS9_STATE_DIR": state}, REPO, None)
        params: dict[str, Any] = {"protocolVersion": 1}
        if fs:
            params["clientCapabilities"] = {"fs": {"readTextFile": True, "writeTextFile": True}}
            client.on_request = _file_system
        try:
            await client.request("initialize", params, timeout=30)
            yield client
        finally:
            await client.close()


FS_REQUESTS: list[str] = []  # the fs/* requests the benchmark's clients answered


def _file_system(method: str, params: Any) -> Any:
    """A client's `fs/*` answers, from the disk."""
    FS_REQUESTS.append(method)
    if method == "fs/read_text_file":
        return {"content": Path(params["path"]).read_text()}
    if method == "fs/write_text_file":
        Path(params["path"]).write_text(params["content"])
        return {}
    return None


async def _acp_start(root: Path, until_session: bool, llm: str | None = None,
                     provider: str = "openai", cpu: list[float] | None = None,
                     through: Resident | None = None) -> float:
    """Seconds from spawning the agent (handed to `through` when given) to its `initialize`
    answer, its `session/new` answer, or (with `llm`, a fake model's URL) its first prompt's
    answer on `provider`'s wire (then the agent's CPU seconds by that answer go to `cpu`)."""
    env = llm_env(os.environ, llm or "http://127.0.0.1:9", provider)
    if through is not None:
        env = through.env(env)
    started_at = now()
    client = await NdjsonClient.spawn(ACP, env, REPO, None)
    try:
        await client.request("initialize", {"protocolVersion": 1}, timeout=30)
        if until_session or llm:
            new = await client.request("session/new", {"cwd": str(root), "mcpServers": []}, 30)
        if llm:
            answer = await client.request("session/prompt", {
                "sessionId": new["sessionId"],
                "prompt": [{"type": "text", "text": f"bench read {NOTES}"}]}, timeout=60)
            if answer["stopReason"] != "end_turn":
                raise RuntimeError(f"the first prompt ended with {answer}")
            if cpu is not None:
                cpu.append(cpu_seconds(client.pid))
        return now() - started_at
    finally:
        await client.close()


async def _imports(*modules: str) -> float:
    """Seconds from spawning an interpreter that imports `modules` to its exit."""
    started_at = now()
    proc = await asyncio.create_subprocess_exec(PYTHON, "-c", f"import {', '.join(modules)}")
    if await proc.wait() != 0:
        raise RuntimeError(f"python -c 'import {', '.join(modules)}' failed")
    return now() - started_at


async def _lsp_start(root: Path) -> float:
    env = llm_env(os.environ, "http://127.0.0.1:9")
    started_at = now()
    client = await RpcClient.spawn(DAEMON, env, REPO, None)
    try:
        await client.request("initialize", initialize_params(root), timeout=30)
        return now() - started_at
    finally:
        await client.close()


async def cold_start(reps: int, quick: bool) -> list[Row]:
    """ACP to `initialize`, to `session/new` and to a first prompt's answer (each wire), next
    to the LSP daemon to `initialize`; the first prompt's answer through a resident too."""
    cpu: dict[str, list[float]] = {"openai": [], "anthropic": [], "resident": []}
    with workspace() as root, resident() as warm:
        async with fake_llm() as fake:
            def prompt(provider: str, through: Resident | None = None) -> Timed:
                figure = "resident" if through else provider
                return lambda: _acp_start(root, True, fake.url, provider, cpu[figure], through)

            if not quick:
                await _lsp_start(root)  # warm the page cache for all
                await prompt("openai")()
                await prompt("anthropic")()
            await warm.ready(prompt("openai", warm))
            (acp_init, lsp_init, acp_session, openai, anthropic, warmed,
             *floors) = await interleave(
                reps, lambda: _acp_start(root, False), lambda: _lsp_start(root),
                lambda: _acp_start(root, True), prompt("openai"), prompt("anthropic"),
                prompt("openai", warm), *((lambda m=m: _imports("acp", m)) for m in FLOORS),
            )
    lsp_ms = median(lsp_init) * 1000
    row = ratio_row("acp cold start to initialize", median(acp_init) * 1000, lsp_ms, "ms",
                    COLD_TARGET)
    row.notes.append("floor: the LSP daemon (harness9 serve) to its initialize answer")
    ready = limit_row("acp cold start to session/new", median(acp_session) * 1000, lsp_ms,
                      "ms", SESSION_MS)
    ready.notes.append("floor (information): the LSP daemon to initialize")
    first = limit_row("acp cold start to a first prompt answered (one read)",
                      median(openai) * 1000, median(floors[0]) * 1000, "ms", FIRST_PROMPT_MS)
    other = info_row("acp cold start to a first prompt answered, anthropic wire",
                     median(anthropic) * 1000, median(floors[1]) * 1000, "ms")
    through = limit_row("acp start to a first prompt answered, through a resident",
                        median(warmed) * 1000, median(floors[0]) * 1000, "ms", FIRST_PROMPT_MS)
    for figure, provider in ((first, "openai"), (other, "anthropic"), (through, "resident")):
        figure.notes.append(f"{provider} wire; the agent's CPU by the answer: "
                            f"{median(cpu[provider][-reps:]) * 1000:.0f} ms; floor: python -c "
                            f"'import acp, {provider}' (the SDKs the answer needs), spawn → exit")
    through.notes[-1] = (f"openai wire, the start handed to a resident that had the libraries "
                         f"loaded (the default); the start's CPU by the answer: "
                         f"{median(cpu['resident'][-reps:]) * 1000:.0f} ms")
    return [row, ready, first, other, through]


async def _prompt_turns(agent: NdjsonClient, root: Path) -> float:
    """Seconds of one prompt on a new session, run to `maxTurns`."""
    # A fresh session each time, as each `agent/run` without a sessionId is.
    session = (await agent.request(
        "session/new", {"cwd": str(root), "mcpServers": []}))["sessionId"]
    started_at = now()
    answer = await agent.request("session/prompt", {
        "sessionId": session, "prompt": [{"type": "text", "text": PROMPT}],
    }, timeout=120)
    seconds = now() - started_at
    agent.notes.clear()
    if answer["stopReason"] != "max_turn_requests":
        raise RuntimeError(f"expected max_turn_requests, got {answer}")
    return seconds


async def fs_overhead(turns: int, reps: int) -> Row:
    """ms per read_file turn with the client's file system next to the disk, both ACP."""
    with workspace() as root:
        async with fake_llm() as fake:
            env = llm_env(os.environ, fake.url)
            settings = {**CHECKPOINTS_OFF, "maxTurns": turns}
            async with acp_agent(env, settings, fs=True) as through_client, \
                    acp_agent(env, settings) as on_disk:
                FS_REQUESTS.clear()
                await _prompt_turns(through_client, root)
                if FS_REQUESTS.count("fs/read_text_file") != turns:
                    raise RuntimeError(f"expected {turns} fs reads, got {FS_REQUESTS}")
                await _prompt_turns(on_disk, root)
                mine, base = await interleave(
                    reps, lambda: _prompt_turns(through_client, root),
                    lambda: _prompt_turns(on_disk, root),
                )
    row = info_row("acp turn with fs via the client", median(mine) / turns * 1000,
                   median(base) / turns * 1000, "ms/turn")
    row.notes.append(f"{turns} read_file turns, each a fs/read_text_file round trip: "
                     f"{median(mine):.3f} s; floor: the same agent reading the disk "
                     f"{median(base):.3f} s")
    return row


async def turn_overhead(turns: int, reps: int) -> Row:
    """ms per turn through each front-end, same fake LLM, same workload."""
    with workspace() as root:
        async with fake_llm() as fake:
            env = llm_env(os.environ, fake.url)
            settings = {**CHECKPOINTS_OFF, "maxTurns": turns}
            async with started(env, root, settings=CHECKPOINTS_OFF) as daemon, \
                    acp_agent(env, settings) as agent:
                async def through_acp() -> float:
                    return await _prompt_turns(agent, root)

                async def through_lsp() -> float:
                    out = await daemon.run(PROMPT, maxTurns=turns, provider="openai")
                    if out.result["toolCalls"] != turns:
                        raise RuntimeError(f"expected {turns} tool calls, got {out.result}")
                    return out.seconds

                await through_acp()  # the first run of each imports the provider's SDK
                await through_lsp()
                mine, base = await interleave(reps, through_acp, through_lsp)
    row = margin_row("acp turn overhead vs LSP", median(mine) / turns * 1000,
                     median(base) / turns * 1000, "ms/turn", TURN_MARGIN_MS)
    row.notes.append(f"{turns} read_file turns, openai, streaming, median of {reps} rounds: ACP "
                     f"{median(mine):.3f} s, LSP {median(base):.3f} s (floor: the LSP front-end)")
    return row


async def run(config: Config) -> list[Row]:
    """Cold start, the comparison with other agents (when installed; not in quick runs) and
    per-turn overhead."""
    from benchmarks import acp_peers  # it uses this module's client

    rows = await cold_start(config.reps, config.quick)
    rows[2].notes += acp_peers.not_installed()
    if not config.quick:
        with workspace() as root:
            rows += await acp_peers.peer_rows(config.reps, root)
    rows.append(await turn_overhead(config.size(50, 5, smoke=2), config.tight_reps))
    rows.append(await fs_overhead(config.size(50, 5, smoke=2), config.reps))
    return rows
