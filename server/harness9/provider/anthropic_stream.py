"""Assembles one streamed Anthropic message from its raw events.

The sequence is `message_start` (input usage), then per content block `content_block_start`,
`content_block_delta`s (`text_delta` or `input_json_delta`) and `content_block_stop`, then
`message_delta` (output usage, cumulative) and `message_stop`. Thinking blocks (`thinking_delta`,
`signature_delta`; `redacted_thinking` whole) are kept for the history; other event and delta
kinds (pings, citations) are skipped.
"""

from __future__ import annotations

import json
from typing import Any

from harness9.provider.provider_errors import MalformedResponseError
from harness9.provider.tool_call_accumulator import ToolCallAccumulator
from harness9.schema import Message, Role, Usage


class StreamAssembler:
    """Feeds on raw stream events; yields text as it comes and the whole message at the end."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._calls = ToolCallAccumulator()
        self._reasoning: dict[int, dict[str, Any]] = {}
        self._input = Usage()
        self._output = 0
        self._stopped = False

    def feed(self, event: Any) -> str:
        """Take one event; return the text it adds (empty if none)."""
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self._input = usage_of(getattr(event.message, "usage", None))
            self._output = self._input.output_tokens
        elif kind == "content_block_start":
            return self._start_block(event.index, event.content_block)
        elif kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        elif kind == "message_delta":
            self._usage_delta(getattr(event, "usage", None))
        elif kind == "message_stop":
            self._stopped = True
        return ""

    def _start_block(self, index: int, block: Any) -> str:
        if block.type == "tool_use":
            self._calls.add(index, id=block.id, name=block.name)
            # Services that send the whole input up front (and no deltas) are still understood.
            if block.input:
                self._calls.set_default(index, dump_input(block.input))
            return ""
        if block.type == "text" and block.text:
            self._text.append(block.text)
            return str(block.text)
        if block.type in ("thinking", "redacted_thinking"):
            self._reasoning[index] = reasoning_block(block)
        return ""

    def _delta(self, index: int, delta: Any) -> str:
        if delta.type == "text_delta":
            self._text.append(delta.text)
            return str(delta.text)
        if delta.type == "input_json_delta":
            self._calls.add(index, arguments=delta.partial_json)
        elif delta.type == "thinking_delta" and index in self._reasoning:
            block = self._reasoning[index]
            block["thinking"] = block.get("thinking", "") + str(delta.thinking)
        elif delta.type == "signature_delta" and index in self._reasoning:
            self._reasoning[index]["signature"] = str(delta.signature)
        return ""

    def _usage_delta(self, usage: Any) -> None:
        if usage is None:
            return
        self._output = int(getattr(usage, "output_tokens", None) or self._output)
        if getattr(usage, "input_tokens", None) is not None:
            self._input = usage_of(usage)

    def result(self) -> tuple[Message, Usage]:
        """The assembled message and the call's usage; the stream must have ended properly."""
        if not self._stopped:
            raise MalformedResponseError("anthropic: the stream ended before message_stop")
        reasoning = tuple(self._reasoning[i] for i in sorted(self._reasoning))
        message = Message(
            role=Role.ASSISTANT, content="".join(self._text), tool_calls=self._calls.calls(),
            reasoning=reasoning,
        )
        return message, Usage(input_tokens=self._input.input_tokens, output_tokens=self._output,
                              cached_input_tokens=self._input.cached_input_tokens,
                              cache_write_tokens=self._input.cache_write_tokens)


def reasoning_block(block: Any) -> dict[str, Any]:
    """A thinking or redacted-thinking content block as the API takes it back."""
    if block.type == "redacted_thinking":
        return {"type": "redacted_thinking", "data": str(block.data)}
    return {"type": "thinking", "thinking": str(getattr(block, "thinking", "") or ""),
            "signature": str(getattr(block, "signature", "") or "")}


def dump_input(value: Any) -> str:
    """A `tool_use` input as raw JSON text (a string input is kept as the raw text itself)."""
    if isinstance(value, str):
        return value
    return json.dumps(value if value is not None else {}, ensure_ascii=False)


def usage_of(usage: Any) -> Usage:
    """Input tokens (cache reads and writes included) and output tokens of a usage object."""
    if usage is None:
        return Usage()
    fields = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    inputs = sum(int(getattr(usage, name, None) or 0) for name in fields)
    cached = int(getattr(usage, "cache_read_input_tokens", None) or 0)
    written = int(getattr(usage, "cache_creation_input_tokens", None) or 0)
    return Usage(input_tokens=inputs, output_tokens=int(usage.output_tokens or 0),
                 cached_input_tokens=cached, cache_write_tokens=written)
