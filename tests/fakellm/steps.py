"""What the fake LLM can be told to do for one request: reply, fail with a status, drop or hang."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    """A tool call in a reply. `arguments` is an object (sent as JSON) or a raw string, which
    may be deliberately broken JSON. `id` defaults to one the server makes up."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def raw_arguments(self) -> str:
        """The argument text exactly as it goes on the wire."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


@dataclass(frozen=True)
class Reply:
    """An assistant answer: text and/or tool calls, with its streaming shape.

    `chunk_chars` / `arg_chunk_chars` size the text and argument fragments of a stream; parallel
    tool calls are interleaved fragment by fragment in the OpenAI format. `first_byte_delay` waits
    before the response starts, `chunk_delay` between stream events. `drop_after` closes the
    connection mid-stream after that many events (streaming only), without ending the body;
    `error_after` instead sends the wire format's in-stream error event (of `error_type`) after
    that many events and ends the body cleanly. `stall_after` stops after that many events (0:
    right after the headers) and holds the connection open, sending the wire format's keep-alive
    (an SSE comment for OpenAI, a `ping` event for Anthropic) every `keepalive` seconds (never
    when None), until the client goes away or the server closes. `usage` defaults to a rough
    estimate of (input, output) tokens; `cached` of the input tokens are reported as read from
    the prompt cache (each wire format its way).
    """

    text: str = ""
    tool_calls: tuple[Call, ...] | list[Call] = ()
    usage: tuple[int, int] | None = None
    chunk_chars: int = 3
    arg_chunk_chars: int = 4
    first_byte_delay: float = 0.0
    chunk_delay: float = 0.0
    drop_after: int | None = None
    error_after: int | None = None
    error_type: str = "overloaded_error"
    stall_after: int | None = None
    keepalive: float | None = None
    cached: int = 0  # of the input tokens, how many the service read from its prompt cache
    cache_written: int = 0  # Anthropic: of the input tokens, how many it wrote to its cache
    reasoning: str = ""  # Anthropic: a signed thinking block before the text and tool calls


@dataclass(frozen=True)
class Fail:
    """An HTTP error response. `body` defaults to the wire format's error object; the default
    `retry_after_ms` makes the SDKs' retries wait one millisecond instead of their back-off."""

    status: int
    message: str = "fake error"
    body: dict[str, Any] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    retry_after_ms: int | None = 1
    first_byte_delay: float = 0.0


@dataclass(frozen=True)
class Drop:
    """Close the connection before sending any response (after an optional delay)."""

    delay: float = 0.0


@dataclass(frozen=True)
class Hang:
    """Read the request and never answer: the connection stays open, silent, until the client
    goes away or the server closes."""


Step = Reply | Fail | Drop | Hang


@dataclass(frozen=True)
class Request:
    """One request the fake received: which wire format, the path, headers (lower-cased names)
    and the parsed JSON body."""

    wire: str  # "openai" | "anthropic"
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def stream(self) -> bool:
        """Whether the client asked for a streamed answer."""
        return bool(self.body.get("stream"))

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation the client sent."""
        return list(self.body.get("messages", []))

    @property
    def uncached(self) -> Request:
        """The request without its prompt-cache marks (Anthropic's `cache_control`, and the
        system prompt as the one text block it then becomes), to compare conversations."""
        body = _without_cache_marks(self.body)
        system = body.get("system")
        if isinstance(system, list) and len(system) == 1 and system[0].get("type") == "text":
            body["system"] = system[0]["text"]
        return Request(self.wire, self.path, self.headers, body)

    @property
    def has_tools(self) -> bool:
        """Whether the `tools` parameter was present at all."""
        return "tools" in self.body


def _without_cache_marks(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_marks(v) for v in value]
    return value


def estimate_tokens(text: str) -> int:
    """A rough token count: one per four characters, at least one."""
    return max(1, len(text) // 4)


def reply_usage(request: Request, reply: Reply) -> tuple[int, int]:
    """The usage a reply reports: its own, else an estimate from the request and the answer."""
    if reply.usage is not None:
        return reply.usage
    out = reply.text + "".join(c.name + c.raw_arguments() for c in reply.tool_calls)
    return estimate_tokens(json.dumps(request.body)), estimate_tokens(out)


def split(text: str, size: int) -> list[str]:
    """`text` cut into pieces of `size` characters (one empty piece for empty text)."""
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
