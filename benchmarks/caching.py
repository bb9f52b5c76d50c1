"""Case `caching`: how much of each request the model must process fresh, with prompt caching.

A 20-turn session (one `read_file` a turn) runs through the engine and the real SDK adapters
against the fake LLM, which records every request. The requests are then replayed through a
prefix cache that works as the services describe theirs:

- Anthropic caches the prefix (tools, system, messages, in that order) up to each block marked
  `cache_control`, once it is at least 1,024 tokens long; a later request reads the longest
  cached prefix it starts with.
- OpenAI caches every request's prefix by itself (from 1,024 tokens, in steps of 128); a later
  request reads the longest prefix it shares with an earlier one.

Figures: the median bytes per turn processed fresh (not read from the cache), after the first
turn, against the floor of the same requests with no cache at all (every byte fresh).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.core import Config, Row, median, ratio_row
from benchmarks.script import respond
from harness9.engine.agent_loop import AgentEngine
from harness9.provider.factory import ProviderSettings, create_provider
from harness9.tools import default_registry
from tests.fakellm import FakeLLM, Request

TOKEN_BYTES = 4  # a token is about four bytes of English or code
MIN_PREFIX = 1024 * TOKEN_BYTES
OPENAI_STEP = 128 * TOKEN_BYTES
LIMIT = 0.35  # of the bytes, at most this share processed fresh per turn


def _plain(value: Any) -> str:
    """A piece of the request as canonical JSON, without its cache marks."""
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "cache_control"}
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def anthropic_pieces(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The request's prefix order (tools, system, each message's blocks): each piece's text
    and whether it carries a cache mark."""
    pieces = [(_plain(t), "cache_control" in t) for t in body.get("tools", [])]
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    pieces += [(_plain(b), "cache_control" in b) for b in system]
    for message in body["messages"]:
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        pieces += [(message["role"] + _plain(b), "cache_control" in b) for b in blocks]
    return pieces


def anthropic_fresh(bodies: list[dict[str, Any]]) -> list[int]:
    """Bytes of each request not read from the cache, with the marks the requests carry."""
    cache: set[str] = set()
    fresh = []
    for body in bodies:
        pieces = anthropic_pieces(body)
        digests, sizes, total = [], [], 0
        digest = hashlib.sha256()
        for text, _ in pieces:
            digest.update(text.encode())
            total += len(text.encode())
            digests.append(digest.hexdigest())
            sizes.append(total)
        hit = max((sizes[i] for i, d in enumerate(digests) if d in cache), default=0)
        fresh.append(total - hit)
        cache.update(digests[i] for i, (_, marked) in enumerate(pieces)
                     if marked and sizes[i] >= MIN_PREFIX)
    return fresh


def openai_fresh(bodies: list[dict[str, Any]]) -> list[int]:
    """Bytes of each request not read from OpenAI's automatic prefix cache."""
    seen: list[bytes] = []
    fresh = []
    for body in bodies:
        text = (_plain(body.get("tools", [])) + _plain(body["messages"])).encode()
        shared = max((_common(text, earlier) for earlier in seen), default=0)
        cached = shared // OPENAI_STEP * OPENAI_STEP if shared >= MIN_PREFIX else 0
        fresh.append(len(text) - cached)
        seen.append(text)
    return fresh


def _common(left: bytes, right: bytes) -> int:
    """The length of the common prefix of two byte strings."""
    size = min(len(left), len(right))
    low, high = 0, size
    while low < high:  # binary search on prefix equality: the texts run to tens of kilobytes
        mid = (low + high + 1) // 2
        if left[:mid] == right[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _totals(bodies: list[dict[str, Any]], wire: str) -> list[int]:
    if wire == "openai":
        return [len((_plain(b.get("tools", [])) + _plain(b["messages"])).encode())
                for b in bodies]
    return [sum(len(t.encode()) for t, _ in anthropic_pieces(b)) for b in bodies]


async def _session(wire: str, turns: int, root: Path) -> list[dict[str, Any]]:
    """The request bodies of one session of `turns` reads of a 2 KB file."""
    (root / "notes.txt").write_text("a line of notes the model reads again\n" * 60)
    with FakeLLM(responder=respond) as fake:
        settings = ProviderSettings(provider=wire, model="bench-model", env=fake.env())
        engine = AgentEngine(create_provider(settings), default_registry(root),
                             workspace_root=str(root), system_prompt="You are a coding agent. "
                             "Work in the workspace with the tools.\n" * 20)
        result = await engine.run(f"bench runs c {turns} notes.txt", [])
        if result.status != "completed":
            raise RuntimeError(f"the session ended {result.status}")
        requests: list[Request] = fake.requests
        return [r.body for r in requests]


async def run(config: Config) -> list[Row]:
    """Fresh bytes per turn, cached against uncached, for both wire formats."""
    turns = config.size(20, 8, 4)
    rows = []
    for wire, fresh_of in (("anthropic", anthropic_fresh), ("openai", openai_fresh)):
        with tempfile.TemporaryDirectory(prefix="h9-bench-cache-") as folder:
            bodies = await _session(wire, turns, Path(folder))
        fresh, totals = fresh_of(bodies)[1:], _totals(bodies, wire)[1:]
        ours, floor = median([float(f) for f in fresh]), median([float(t) for t in totals])
        row = ratio_row(f"caching: {wire} bytes processed fresh per turn ({turns} turns)",
                        ours, floor, "B", LIMIT)
        row.notes.append(f"{sum(fresh)} of {sum(totals)} bytes fresh over turns 2–{turns + 1}"
                         f" ({sum(fresh) / max(sum(totals), 1):.0%})")
        rows.append(row)
    return rows
