"""The replay provider: plays a JSON script of assistant turns (the offline demo, tests).

Script format (UTF-8 JSON):

    {"turns": [
       {"thinking": "optional text answered to a thinking call (tools withheld) before this turn",
        "text": "I'll look at the code.",
        "tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}},
                       {"id": "optional_id", "name": "bash",
                        "arguments": "{\\"command\\": \\"pytest -q\\"}"}],
        "usage": {"input_tokens": 120, "output_tokens": 30}},
       {"text": "Fixed."}],
     "delta_chars": 4, "delta_delay_ms": 0}

- Each action call (tools offered, even `[]`) answers the next turn.
- `arguments` is an object (sent as its JSON text) or a raw string kept exactly as written, so a
  script can play broken JSON. Ids default to `call_<turn>_<i>` (turn from 1, i from 0).
- `usage` defaults to an estimate: characters / 4 of the context (input) and of the answer.
- A thinking call (`tools=None`) answers the next turn's `thinking` text (or a short default)
  without consuming a turn.
- When the script is exhausted, every call answers a text-only message saying so, so a run
  always ends.
- Streaming yields the text in pieces of `delta_chars` characters (default 4), waiting
  `delta_delay_ms` milliseconds (default 0) between pieces, then the whole message.

Each provider instance plays the script from its start.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness9.provider.model_catalog import ModelInfo
from harness9.provider.provider_errors import ConfigError
from harness9.schema import (
    Message,
    Role,
    StreamChunk,
    StreamChunkType,
    ToolCall,
    ToolDefinition,
    Usage,
)

DEFAULT_THINKING = "Let me think about the next step."
EXHAUSTED = "The replay script has ended; there is nothing more to do."


@dataclass(frozen=True, slots=True)
class ReplayTurn:
    """One scripted assistant turn."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    thinking: str | None = None
    usage: Usage | None = None


@dataclass(frozen=True, slots=True)
class ReplayScript:
    """A parsed script: its turns and how streams are paced."""

    turns: tuple[ReplayTurn, ...]
    delta_chars: int = 4
    delta_delay_ms: float = 0.0


def load_script(path: str | Path) -> ReplayScript:
    """Read and validate a script file; any problem is a `ConfigError` saying what is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"replay script {path}: cannot read it: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ConfigError(f"replay script {path}: not valid JSON: {exc}") from None
    return parse_script(data, str(path))


def parse_script(data: Any, source: str = "<script>") -> ReplayScript:
    """Validate a decoded script."""
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise ConfigError(f"replay script {source}: must be an object with a 'turns' list")
    turns = tuple(_turn(t, n, source) for n, t in enumerate(data["turns"], start=1))
    delta_chars = data.get("delta_chars", 4)
    if isinstance(delta_chars, bool) or not isinstance(delta_chars, int) or delta_chars < 1:
        raise ConfigError(f"replay script {source}: delta_chars must be an integer ≥ 1")
    delay = data.get("delta_delay_ms", 0)
    if isinstance(delay, bool) or not isinstance(delay, int | float) or delay < 0:
        raise ConfigError(f"replay script {source}: delta_delay_ms must be a number ≥ 0")
    return ReplayScript(turns=turns, delta_chars=delta_chars, delta_delay_ms=float(delay))


def _turn(raw: Any, n: int, source: str) -> ReplayTurn:
    where = f"replay script {source}: turns[{n - 1}]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be an object")
    text, thinking = raw.get("text", ""), raw.get("thinking")
    if not isinstance(text, str) or not isinstance(thinking, str | None):
        raise ConfigError(f"{where}: text and thinking must be strings")
    calls = raw.get("tool_calls", [])
    if not isinstance(calls, list):
        raise ConfigError(f"{where}.tool_calls must be a list")
    tool_calls = tuple(_call(c, f"{where}.tool_calls[{i}]", f"call_{n}_{i}")
                       for i, c in enumerate(calls))
    return ReplayTurn(text, tool_calls, thinking, _usage(raw.get("usage"), where))


def _call(raw: Any, where: str, default_id: str) -> ToolCall:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise ConfigError(f"{where} must be an object with a string 'name'")
    arguments = raw.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    call_id = raw.get("id", default_id)
    if not isinstance(call_id, str) or not call_id:
        raise ConfigError(f"{where}.id must be a non-empty string")
    return ToolCall(id=call_id, name=raw["name"], arguments=arguments)


def _usage(raw: Any, where: str) -> Usage | None:
    if raw is None:
        return None
    keys = ("input_tokens", "output_tokens")
    counts = [raw.get(k) if isinstance(raw, dict) else None for k in keys]
    valid = [c for c in counts if isinstance(c, int) and not isinstance(c, bool) and c >= 0]
    if len(valid) != len(keys):
        raise ConfigError(f"{where}.usage needs integer input_tokens and output_tokens ≥ 0")
    return Usage(input_tokens=valid[0], output_tokens=valid[1])


class ReplayProvider:
    """An `LLMProvider` that answers from a `ReplayScript`, turn after turn."""

    name = "replay"

    def __init__(self, script: ReplayScript, model: str = "replay") -> None:
        self.model = model
        self.script = script
        self._next = 0

    async def list_models(self) -> list[ModelInfo]:
        """A script has one model: the one it was given."""
        return [ModelInfo(self.name, self.model)]

    def _answer(self, messages: Sequence[Message], tools: object) -> tuple[Message, Usage]:
        """The next answer: a thinking text (tools withheld) or the next scripted turn."""
        upcoming = self.script.turns[self._next] if self._next < len(self.script.turns) else None
        if tools is None:
            thinking = upcoming.thinking if upcoming and upcoming.thinking else DEFAULT_THINKING
            turn = ReplayTurn(text=thinking)
        else:
            turn = upcoming or ReplayTurn(text=EXHAUSTED)
            self._next += upcoming is not None
        message = Message(role=Role.ASSISTANT, content=turn.text, tool_calls=turn.tool_calls)
        return message, turn.usage or _estimated_usage(messages, message)

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> tuple[Message, Usage]:
        """The next scripted answer, all at once."""
        return self._answer(messages, tools)

    async def generate_stream(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> AsyncIterator[StreamChunk]:
        """The next scripted answer, its text in small paced deltas."""
        message, usage = self._answer(messages, tools)
        size, delay = self.script.delta_chars, self.script.delta_delay_ms / 1000
        for start in range(0, len(message.content), size):
            if start and delay:
                await asyncio.sleep(delay)
            yield StreamChunk(type=StreamChunkType.TEXT, text=message.content[start : start + size])
        yield StreamChunk(type=StreamChunkType.DONE, message=message, usage=usage)


def _estimated_usage(messages: Sequence[Message], answer: Message) -> Usage:
    context = sum(len(m.content) + sum(len(c.arguments) for c in m.tool_calls) for m in messages)
    output = len(answer.content) + sum(len(c.name) + len(c.arguments) for c in answer.tool_calls)
    return Usage(input_tokens=context // 4, output_tokens=output // 4)
