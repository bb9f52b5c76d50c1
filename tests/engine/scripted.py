"""A deterministic in-process provider for engine tests: it plays scripted replies in order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from harness9.schema import (
    Message,
    Role,
    StreamChunk,
    StreamChunkType,
    ToolCall,
    ToolDefinition,
    Usage,
)


@dataclass
class Reply:
    """One scripted answer: text, tool calls as (name, raw JSON) pairs, an optional delay."""

    text: str = ""
    calls: list[tuple[str, str]] = field(default_factory=list)
    delay: float = 0.0
    error: Exception | None = None


@dataclass
class Seen:
    """What one call received: a snapshot of the history and the tools argument."""

    messages: list[Message]
    tools: list[ToolDefinition] | None


class ScriptedProvider:
    """Plays `replies` in order; thinking calls (tools=None) answer `thinking` without consuming."""

    name = "scripted"
    model = "script-1"

    def __init__(self, replies: list[Reply], thinking: str = "I will plan first.") -> None:
        self.replies = list(replies)
        self.thinking = thinking
        self.calls: list[Seen] = []
        self._turn = 0

    def _next(self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None) -> Reply:
        self.calls.append(Seen(list(messages), None if tools is None else list(tools)))
        if tools is None:
            return Reply(text=self.thinking)
        self._turn += 1
        return self.replies.pop(0) if self.replies else Reply(text="(script ended)")

    def _message(self, reply: Reply) -> Message:
        calls = tuple(
            ToolCall(id=f"call_{self._turn}_{i}", name=name, arguments=args)
            for i, (name, args) in enumerate(reply.calls)
        )
        return Message(role=Role.ASSISTANT, content=reply.text, tool_calls=calls)

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> tuple[Message, Usage]:
        reply = self._next(messages, tools)
        await asyncio.sleep(reply.delay)
        if reply.error is not None:
            raise reply.error
        return self._message(reply), Usage(input_tokens=10, output_tokens=len(reply.text))

    async def generate_stream(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> AsyncIterator[StreamChunk]:
        reply = self._next(messages, tools)
        await asyncio.sleep(reply.delay)
        if reply.error is not None:
            raise reply.error
        for start in range(0, len(reply.text), 3):
            yield StreamChunk(type=StreamChunkType.TEXT, text=reply.text[start : start + 3])
        usage = Usage(input_tokens=10, output_tokens=len(reply.text))
        yield StreamChunk(type=StreamChunkType.DONE, message=self._message(reply), usage=usage)
