"""Messages: who wrote them, the tool calls and images they carry, usage and its price, and
the chunks of a streamed reply."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from harness9.schema.tool_results import ToolResult


class Role(StrEnum):
    """Who wrote a message. Tool observations are `USER` messages carrying `tool_call_id`."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool invocation requested by the model.

    `arguments` is the raw JSON text exactly as the model produced it; only the tool parses it,
    so a broken string reaches the registry (and becomes a readable failure) instead of crashing
    a provider or the engine.
    """

    id: str
    name: str
    arguments: str = "{}"
    # The id clients see when the model's `id` is not unique within the session (models behind
    # some local servers repeat theirs); the model's own history keeps `id`.
    wire_id: str | None = None

    @property
    def unique_id(self) -> str:
        """The call's id unique within its session: what front-ends and clients see."""
        return self.wire_id or self.id


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported by a provider for one call (or summed over a run)."""

    input_tokens: int = 0  # all of them, those read from the prompt cache included
    output_tokens: int = 0
    cached_input_tokens: int = 0  # of the input tokens, those the service read from its cache
    cache_write_tokens: int = 0  # of the input tokens, those the service wrote to its cache

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


@dataclass(frozen=True, slots=True)
class Price:
    """What a model's tokens cost, in US dollars per million tokens."""

    input: float
    output: float
    cached_input: float | None = None  # read from the prompt cache (None: as `input`)
    cache_write: float | None = None  # written to the prompt cache (None: as `input`)

    def cost(self, usage: Usage) -> float:
        """The US dollars `usage` costs at these prices."""
        cached = usage.cached_input_tokens
        written = usage.cache_write_tokens
        plain = max(usage.input_tokens - cached - written, 0)
        dollars = (plain * self.input + usage.output_tokens * self.output
                   + cached * (self.input if self.cached_input is None else self.cached_input)
                   + written * (self.input if self.cache_write is None else self.cache_write))
        return dollars / 1_000_000


@dataclass(frozen=True, slots=True)
class Image:
    """An image given with a prompt: its media type (`image/png`, …) and its bytes, base64."""

    media_type: str
    data: str


@dataclass(frozen=True, slots=True)
class Message:
    """One entry of the conversation history.

    An assistant message may carry `tool_calls`; an observation is a `USER` message with
    `tool_call_id` set (and `is_error` when the tool failed), as in the seed design.
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False
    # The model's reasoning as its provider must get it back, verbatim (Anthropic's signed
    # thinking blocks, which extended thinking with tools requires in the history).
    reasoning: tuple[dict[str, Any], ...] = ()
    images: tuple[Image, ...] = ()  # given with a user prompt, for a model that sees images

    @staticmethod
    def system(content: str) -> Message:
        """A system prompt."""
        return Message(role=Role.SYSTEM, content=content)

    @staticmethod
    def user(content: str, images: tuple[Image, ...] = ()) -> Message:
        """A user prompt (with the images given with it)."""
        return Message(role=Role.USER, content=content, images=images)

    @staticmethod
    def observation(result: ToolResult) -> Message:
        """The message that carries a tool result back to the model."""
        return Message(
            role=Role.USER,
            content=result.output,
            tool_call_id=result.tool_call_id,
            is_error=result.is_error,
        )


class StreamChunkType(StrEnum):
    """The kinds of chunk a streaming provider yields."""

    TEXT = "text"  # a piece of assistant text
    DONE = "done"  # the last chunk: the complete message and the call's usage


@dataclass(frozen=True, slots=True)
class StreamChunk:
    """One item of a provider's stream.

    `TEXT` chunks carry `text`; the single final `DONE` chunk carries the fully assembled
    `message` (text and tool calls) and `usage`, so consumers never re-assemble fragments.
    """

    type: StreamChunkType
    text: str = ""
    message: Message | None = None
    usage: Usage = field(default_factory=Usage)


def shared_prefix(a: Sequence[Message], b: Sequence[Message]) -> int:
    """How many leading messages `a` and `b` share. Messages are immutable, so a message that
    changed is a new object: this finds where two versions of a conversation part by identity,
    without comparing contents, except in the usual case of `a` extending `b`, which one list
    comparison confirms (it passes over identical items without looking into them; an equal
    message in place of one is the same message)."""
    if len(b) <= len(a) and a[: len(b)] == b:  # lists: otherwise unequal, and the loop decides
        return len(b)
    limit = min(len(a), len(b))
    common = 0
    while common < limit and a[common] is b[common]:
        common += 1
    return common
