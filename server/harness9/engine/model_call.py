"""One model call, streaming or not, with text deltas forwarded as events."""

from __future__ import annotations

from collections.abc import Sequence

from harness9.engine.events import EventBus, TextDelta
from harness9.provider.llm_provider import LLMProvider
from harness9.provider.provider_errors import MalformedResponseError
from harness9.schema import Message, StreamChunkType, ToolDefinition, Usage


async def call_model(
    provider: LLMProvider,
    history: Sequence[Message],
    tools: Sequence[ToolDefinition] | None,
    *,
    turn: int,
    stream: bool,
    bus: EventBus | None,
) -> tuple[Message, Usage]:
    """Make one call; with `stream`, emit each text piece on `bus` (when given) as it arrives."""
    if not stream:
        return await provider.generate(list(history), tools)
    done: tuple[Message, Usage] | None = None
    async for chunk in provider.generate_stream(list(history), tools):
        if chunk.type is StreamChunkType.TEXT and chunk.text and bus is not None:
            bus.emit(TextDelta(turn=turn, text=chunk.text))
        elif chunk.type is StreamChunkType.DONE and chunk.message is not None:
            done = (chunk.message, chunk.usage)
    if done is None:
        raise MalformedResponseError(f"{provider.name}: the stream ended without a final message")
    return done
