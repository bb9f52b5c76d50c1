"""How full the model's context is: the window, and an estimate of the next request's tokens.

The provider reports the input tokens of each call; the next request is that call's input, plus
its answer, plus whatever was appended since (estimated at four characters a token, the usual
rough figure for English and code). Only the part appended since the last report is estimated,
so the cost of an estimate does not grow with the history. With no report yet (a new run on a
resumed session, or a provider that reports nothing) the whole request is estimated once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from harness9.provider.model_catalog import family_of
from harness9.schema import Message, ToolDefinition, Usage

DEFAULT_WINDOW = 128_000
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4  # role and framing tokens each message costs beyond its text

def window_for(model: str, setting: int | None = None) -> int:
    """The context window of `model`: the setting, else the model table, else 128000."""
    if setting is not None:
        return setting
    family = family_of(model)
    return family.context_window if family is not None else DEFAULT_WINDOW


@dataclass(frozen=True, slots=True)
class ContextPolicy:
    """When to compact: past `compact_at` of `window` tokens, if `auto_compact` is on."""

    window: int = DEFAULT_WINDOW
    auto_compact: bool = True
    compact_at: float = 0.8

    @property
    def threshold(self) -> int:
        """The request size that triggers compaction."""
        return int(self.window * self.compact_at)


IMAGE_TOKENS = 1600  # what the services charge for an image of about a megapixel


def message_tokens(message: Message) -> int:
    """A rough token count of one message as it goes to the model."""
    chars = len(message.content)
    for call in message.tool_calls:
        chars += len(call.name) + len(call.arguments) + len(call.id)
    return chars // CHARS_PER_TOKEN + MESSAGE_OVERHEAD + IMAGE_TOKENS * len(message.images)


def messages_tokens(messages: Sequence[Message]) -> int:
    """The rough token count of `messages`."""
    return sum(message_tokens(m) for m in messages)


def tools_tokens(tools: Sequence[ToolDefinition] | None) -> int:
    """The rough token count of the tool definitions a request carries."""
    if not tools:
        return 0
    text = json.dumps([[t.name, t.description, t.input_schema] for t in tools])
    return len(text) // CHARS_PER_TOKEN


class ContextMeter:
    """Estimates the next request's tokens from the last reported usage and what came after."""

    def __init__(self, tools: int = 0) -> None:
        self.tools = tools
        self._base: int | None = None
        self._mark = 0
        self.last_input = 0

    def reported(self, usage: Usage, history_len: int) -> None:
        """A call with `history_len` messages before its answer reported `usage`."""
        if usage.input_tokens <= 0:
            return
        self.last_input = usage.input_tokens
        self._base = usage.input_tokens + usage.output_tokens
        self._mark = history_len + 1  # its own answer is counted by output_tokens

    def forget(self) -> None:
        """The history was rewritten: the next estimate covers all of it."""
        self._base = None

    def estimate(self, history: Sequence[Message]) -> int:
        """The tokens of a request carrying `history` (and the tools)."""
        if self._base is None or self._mark > len(history):
            return self.tools + messages_tokens(history)
        return self._base + messages_tokens(history[self._mark :])
