"""The `acp` case's comparison with other agents' ACP adapters, when they are installed.

Spawn → first prompt answered, interleaved: `harness9 acp` on the OpenAI wire next to Codex's
adapter (`codex-acp`, a native binary, on the Responses API of `benchmarks.responses_fake`), and
on the Anthropic wire next to Claude Code's (`claude-code-acp`, Node, on the Anthropic wire of
the fake LLM). Every agent gets the prompt `bench hello` (one model call answering `done`, no
tool) in the same workspace, a fresh state of its own each time (Codex: a `CODEX_HOME` naming the
fake as its model provider; Claude Code: a `HOME` and `CLAUDE_CONFIG_DIR` of its own, its
network traffic besides the model off). Targets: at most 1.5× Codex, at most 0.5× Claude Code.

The adapters are looked up on PATH, or given by `HARNESS9_BENCH_CODEX_ACP` and
`HARNESS9_BENCH_CLAUDE_ACP` (e.g. `npm install @zed-industries/codex-acp
@zed-industries/claude-code-acp` in a folder of their own, then its `node_modules/.bin/…`);
one that is not found is only named in a note (`not_installed`): nothing is measured for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from benchmarks.acp import ACP, NdjsonClient
from benchmarks.core import REPO, Row, Timed, error_row, interleave, median, now, ratio_row
from benchmarks.daemon import Resident, llm_env, resident
from benchmarks.fake_llm import fake_llm
from benchmarks.responses_fake import responses_fake

PROMPT = "bench hello"
PEERS = {  # name → (environment variable, command on PATH, ours / theirs target)
    "Codex": ("HARNESS9_BENCH_CODEX_ACP", "codex-acp", 1.5),
    "Claude Code": ("HARNESS9_BENCH_CLAUDE_ACP", "claude-code-acp", 0.5),
}


def peer_command(name: str) -> str | None:
    """The adapter's executable, or None when it is not installed."""
    variable, command, _ = PEERS[name]
    return os.environ.get(variable) or shutil.which(command)


async def first_answer(argv: Sequence[str], env: Mapping[str, str], root: Path) -> float:
    """Seconds from spawning an ACP agent to the answer of its first prompt, `PROMPT`. The agent
    runs in a process group of its own, killed at the end (a Node wrapper may leave its
    native child behind)."""
    started = now()
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=dict(env), cwd=REPO, start_new_session=True,
        limit=1 << 20)
    client = NdjsonClient(proc)
    try:
        await client.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}}, 60)
        new = await client.request("session/new", {"cwd": str(root), "mcpServers": []}, 60)
        answer = await client.request("session/prompt", {
            "sessionId": new["sessionId"], "prompt": [{"type": "text", "text": PROMPT}]}, 120)
        if answer.get("stopReason") != "end_turn":
            raise RuntimeError(f"{argv[0]}: the first prompt ended with {answer}")
        return now() - started
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await client.close(timeout=5)


def _fresh(folder: Path, files: dict[str, str]) -> None:
    """`folder` empty but for `files` (name → text): each start finds no state of a former."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)


def _ours(provider: str, url: str, root: Path, state: Path,
          through: Resident | None = None) -> Timed:
    env = {**llm_env(os.environ, url, provider), "HARNESS9_STATE_DIR": str(state)}
    if through is not None:
        env = through.env(env)

    async def run() -> float:
        _fresh(state, {})
        return await first_answer(ACP, env, root)
    return run


def _codex(command: str, url: str, root: Path, home: Path) -> Timed:
    config = (f'model = "bench-model"\nmodel_provider = "bench"\n[model_providers.bench]\n'
              f'name = "bench"\nbase_url = "{url}"\nenv_key = "OPENAI_API_KEY"\n'
              'wire_api = "responses"\n')
    env = {**os.environ, "CODEX_HOME": str(home), "OPENAI_API_KEY": "bench-key"}

    async def run() -> float:
        _fresh(home, {"config.toml": config})
        return await first_answer((command,), env, root)
    return run


def _claude(command: str, url: str, root: Path, home: Path) -> Timed:
    env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "bench-key",
           "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home), "IS_SANDBOX": "1",
           "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}

    async def run() -> float:
        _fresh(home, {})
        return await first_answer((command,), env, root)
    return run


def not_installed() -> list[str]:
    """A note for each peer that is not installed."""
    return [f"not compared with {name}: {command} is not installed (PATH or {variable})"
            for name, (variable, command, _) in PEERS.items() if peer_command(name) is None]


async def peer_rows(reps: int, root: Path) -> list[Row]:
    """One row per installed peer: our first answer on its wire over its own, interleaved."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="h9peers-") as tmp:
        top = Path(tmp)
        async with fake_llm() as fake, responses_fake() as responses:
            for name, wire in (("Codex", "openai"), ("Claude Code", "anthropic")):
                command = peer_command(name)
                if command is None:
                    continue
                make = _codex if name == "Codex" else _claude
                theirs = make(command, responses.url if name == "Codex" else fake.url, root,
                              top / "peer")
                ours = _ours(wire, fake.url, root, top / "ours")
                try:
                    rows.append(await _compare(name, wire, reps, ours, theirs))
                    with resident() as warm:
                        warmed = _ours(wire, fake.url, root, top / "ours", warm)
                        await warm.ready(warmed)
                        rows.append(await _compare(name, wire, reps, warmed, theirs,
                                                   " through a resident"))
                except Exception as exc:  # a peer that does not run here says why
                    rows.append(error_row(f"acp first answer vs {name}", exc))
    return rows


async def _compare(name: str, wire: str, reps: int, ours: Timed, theirs: Timed,
                   way: str = "") -> Row:
    await ours()  # warm the page cache for both
    await theirs()
    mine, base = await interleave(reps, ours, theirs)
    target = PEERS[name][2]
    row = ratio_row(f"acp first answer vs {name}{way}", median(mine) * 1000,
                    median(base) * 1000, "ms", target)
    row.notes.append(f"spawn → first prompt answered ({PROMPT!r}, one model call), {wire} wire; "
                     f"floor: {name}'s ACP adapter on the same fake model, median of {reps}")
    return row

