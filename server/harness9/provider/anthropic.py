"""The Anthropic-compatible adapter (Messages API), on the official `anthropic` SDK's async client.

Conversions (where they differ from OpenAI's):

- SYSTEM messages → the separate `system` parameter (joined by blank lines).
- USER with `tool_call_id` → a `tool_result` block carrying `is_error`; the results of one
  turn's tool calls go back in ONE user message.
- ASSISTANT `tool_calls` → `tool_use` blocks whose `input` is the parsed object (`{}` when the
  argument text is not a JSON object, so a broken call never breaks the conversion).
- ToolDefinition → `input_schema` with `properties` and `required`.
- `max_tokens` is always sent.
- A reasoning effort turns on extended thinking with a budget (`THINKING_BUDGETS`); the signed
  thinking blocks of each assistant message (`Message.reasoning`) go back with it, first, as the
  API requires while a tool loop runs; without an effort they are left out.

Messages of the same role next to each other are merged, as the API requires alternating roles.
A call with `tools=None` whose history already holds tool blocks (the thinking phase of a later
turn) sends the run's last tools with `tool_choice: {"type": "none"}`, because the API rejects
such a history without tool definitions. Streams are read as raw events (not the SDK's
`messages.stream()` helper, which raises on a tool input that is not valid JSON), so broken
argument text reaches the tool as a failure the model can fix. Every call keeps to the run's
`RequestLimits`; the service's `ping` events are keep-alives, no sign of the model. The body is
encoded here (`BodyEncoder`, as for OpenAI) and posted with the SDK's client.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from harness9.provider._sdk import AdvisedCalls, shared_client, translated_errors
from harness9.provider.anthropic_stream import (
    StreamAssembler,
    dump_input,
    reasoning_block,
    usage_of,
)
from harness9.provider.json_body import BodyEncoder
from harness9.provider.limits import DEFAULT_LIMITS, Pacer, RequestLimits
from harness9.provider.llm_provider import LIST_TIMEOUT
from harness9.provider.message_cache import MessageCache
from harness9.provider.model_catalog import ModelInfo
from harness9.provider.provider_errors import MalformedResponseError
from harness9.schema import (
    Message,
    Role,
    StreamChunk,
    StreamChunkType,
    ToolCall,
    ToolDefinition,
    Usage,
)

DEFAULT_MAX_TOKENS = 8192
# Extended thinking's token budget per reasoning effort; `max_tokens` must exceed it.
THINKING_BUDGETS = {"low": 2048, "medium": 8192, "high": 24576}
_REASONING_BLOCKS = ("thinking", "redacted_thinking")


BlocksOf = Callable[[Sequence[Message]], list[list[dict[str, Any]]]]


def blocks_of(messages: Sequence[Message]) -> list[list[dict[str, Any]]]:
    """Each message's content blocks (a provider caches this: see `MessageCache`)."""
    return [_blocks(m) for m in messages]


def to_messages(
    messages: Sequence[Message], convert: BlocksOf = blocks_of, thinking: bool = False
) -> list[dict[str, Any]]:
    """The non-system conversation as alternating user/assistant messages of content blocks;
    the reasoning blocks only when the request thinks."""
    out: list[dict[str, Any]] = []
    for message, blocks in zip(messages, convert(messages), strict=True):
        if message.role is Role.SYSTEM:
            continue
        if message.reasoning and not thinking:
            blocks = [b for b in blocks if b["type"] not in _REASONING_BLOCKS]
        if not blocks:
            continue  # the API rejects empty content; dropping it keeps roles alternating
        role = "assistant" if message.role is Role.ASSISTANT else "user"
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:  # a list of its own: merging and trimming must not touch the cached blocks
            out.append({"role": role, "content": list(blocks)})
    _trim_prefill(out)
    return out


def _trim_prefill(out: list[dict[str, Any]]) -> None:
    """A conversation ending with assistant text asks the model to continue it (a prefill), and
    the API rejects a prefill that ends with whitespace: trim it, dropping what becomes empty."""
    if not out or out[-1]["role"] != "assistant":
        return
    blocks = out[-1]["content"]
    while blocks and blocks[-1]["type"] == "text":
        blocks[-1] = {**blocks[-1], "text": blocks[-1]["text"].rstrip()}
        if blocks[-1]["text"]:
            return
        blocks.pop()
    if not blocks:
        out.pop()


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.tool_call_id is not None:
        return [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": message.content,
                "is_error": message.is_error,
            }
        ]
    blocks: list[dict[str, Any]] = [dict(block) for block in message.reasoning]
    blocks += [{"type": "image", "source": {"type": "base64", "media_type": image.media_type,
                                            "data": image.data}} for image in message.images]
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": parse_input(call)}
        )
    return blocks


def parse_input(call: ToolCall) -> dict[str, Any]:
    """A tool call's arguments as the object `tool_use` requires; `{}` if they are not one."""
    try:
        value = json.loads(call.arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def to_system(messages: Sequence[Message]) -> str | None:
    """The system prompt: every SYSTEM message, joined by blank lines; None if there is none."""
    parts = [m.content for m in messages if m.role is Role.SYSTEM and m.content]
    return "\n\n".join(parts) if parts else None


def to_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Tool definitions with `input_schema` split into properties and required."""
    return [
        {
            "name": t.name,
            "description": t.description,
            "input_schema": {
                **t.input_schema,
                "type": "object",
                "properties": t.input_schema.get("properties", {}),
                "required": list(t.input_schema.get("required", [])),
            },
        }
        for t in tools
    ]


def has_tool_blocks(messages: Sequence[Message]) -> bool:
    """Whether the history holds tool calls or tool results."""
    return any(m.tool_calls or m.tool_call_id is not None for m in messages)


def to_request(
    model: str,
    max_tokens: int,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition] | None,
    run_tools: Sequence[ToolDefinition] | None = None,
    convert: BlocksOf = blocks_of,
    reasoning_effort: str | None = None,
) -> dict[str, Any]:
    """The keyword arguments of `messages.create`; `run_tools` are the tools remembered for a
    call made with `tools=None` over a history that holds tool blocks; `convert` gives each
    message's blocks; a reasoning effort turns on extended thinking."""
    budget = THINKING_BUDGETS.get(reasoning_effort or "")
    request: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens if budget is None else max(max_tokens, budget + max_tokens),
        "messages": to_messages(messages, convert, thinking=budget is not None),
    }
    if budget is not None:
        request["thinking"] = {"type": "enabled", "budget_tokens": budget}
    system = to_system(messages)
    if system is not None:
        request["system"] = system
    if tools is not None:
        request["tools"] = to_tools(tools)
    elif run_tools and has_tool_blocks(messages):
        request["tools"] = to_tools(run_tools)
        request["tool_choice"] = {"type": "none"}
    mark_cache_points(request)
    return request


_EPHEMERAL = {"type": "ephemeral"}


def mark_cache_points(request: dict[str, Any]) -> None:
    """Ask the service to cache the request's stable prefix, at the four places the API
    allows: the tools, the system prompt, the end of the previous turn (what the last request
    cached, read back now) and the end of this one (for the next request). Blocks are replaced,
    never changed: they may be shared with the provider's conversion cache."""
    if request.get("tools"):
        request["tools"][-1] = {**request["tools"][-1], "cache_control": _EPHEMERAL}
    if request.get("system"):
        request["system"] = [
            {"type": "text", "text": request["system"], "cache_control": _EPHEMERAL}
        ]
    messages = request["messages"]
    if not messages:
        return
    last = len(messages) - 1
    earlier = [i for i, m in enumerate(messages[:last]) if m["role"] == "user"]
    for index in [*earlier[-1:], last]:
        blocks = messages[index]["content"]
        if blocks:
            blocks[-1] = {**blocks[-1], "cache_control": _EPHEMERAL}


def from_message(response: Any) -> tuple[Message, Usage]:
    """The assistant message and usage of a non-streamed response."""
    content = getattr(response, "content", None)
    if content is None:
        raise MalformedResponseError("anthropic: the response has no content")
    text: list[str] = []
    calls: list[ToolCall] = []
    reasoning: list[dict[str, Any]] = []
    for block in content:
        if block.type == "text":
            text.append(block.text)
        elif block.type == "tool_use":
            calls.append(ToolCall(id=block.id, name=block.name, arguments=dump_input(block.input)))
        elif block.type in _REASONING_BLOCKS:
            reasoning.append(reasoning_block(block))
    message = Message(role=Role.ASSISTANT, content="".join(text), tool_calls=tuple(calls),
                      reasoning=tuple(reasoning))
    return message, usage_of(getattr(response, "usage", None))


def is_ping(event: Any) -> bool:
    """Whether a stream event is the service's keep-alive."""
    return getattr(event, "type", None) == "ping"


class AnthropicProvider(AdvisedCalls):
    """An `LLMProvider` for Anthropic-compatible Messages services."""

    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        model: str,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_retries: int = 2,
        limits: RequestLimits = DEFAULT_LIMITS,
        reasoning_effort: str | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.max_tokens = max_tokens
        self.reasoning_effort = reasoning_effort
        # The client's explicit timeout (from `limits`) also keeps a large `max_tokens` usable
        # without streaming: the SDK refuses such calls only under its own default timeout.
        self._options: dict[str, Any] = {
            "api_key": api_key,
            "base_url": base_url,
            "max_retries": max_retries,
        }
        self._limits = limits
        self._run_tools: list[ToolDefinition] | None = None
        self._convert = MessageCache(_blocks)
        self._body = BodyEncoder()
        self._sdk: Any = None
        self._client: Any = None

    async def _connect(self) -> Any:
        """The shared SDK client, on first use (the SDK is imported off the event loop)."""
        if self._client is None:
            self._sdk, self._client = await shared_client(
                "anthropic", "AsyncAnthropic", self._options, self._limits
            )
        return self._client

    def _request(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> dict[str, Any]:
        if tools is not None:
            self._run_tools = list(tools)
        return to_request(
            self.model, self.max_tokens, messages, tools, self._run_tools, self._convert,
            self.reasoning_effort,
        )

    def _post(self, client: Any, request: dict[str, Any], *, stream: bool) -> Any:
        """`messages.create(**request, stream=stream)`, the body encoded by `BodyEncoder`
        (the SDK would copy and encode the whole conversation again for every call)."""
        types = self._sdk.types
        body = {**request, "stream": True} if stream else request
        return client.post(
            "/v1/messages", content=self._body(body),
            cast_to=types.Message, stream=stream,
            stream_cls=self._sdk.AsyncStream[types.RawMessageStreamEvent],
        )

    async def list_models(self) -> list[ModelInfo]:
        """The service's models (`GET /v1/models`, every page), newest first as it lists them."""
        client = await self._connect()
        with translated_errors(self._sdk, self.name, self._limits, self.base_url):
            async with asyncio.timeout(LIST_TIMEOUT):
                return [ModelInfo(self.name, m.id, getattr(m, "display_name", None))
                        async for m in client.models.list(limit=1000)]

    async def _generate(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> tuple[Message, Usage]:
        """One non-streaming message."""
        client = await self._connect()
        request = self._request(messages, tools)
        with (
            translated_errors(self._sdk, self.name, self._limits, self.base_url),
            Pacer(self._limits, self.name) as pacer,
        ):
            return from_message(await pacer.first(self._post(client, request, stream=False)))

    async def _generate_stream(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> AsyncIterator[StreamChunk]:
        """One streamed message: text deltas as they arrive, then the assembled message."""
        client = await self._connect()
        request = self._request(messages, tools)
        assembler = StreamAssembler()
        with (
            translated_errors(self._sdk, self.name, self._limits, self.base_url),
            Pacer(self._limits, self.name) as pacer,
        ):
            stream = await pacer.first(self._post(client, request, stream=True))
            async with stream:
                async for event in pacer.events(stream, keepalive=is_ping):
                    delta = assembler.feed(event)
                    if delta:
                        yield StreamChunk(type=StreamChunkType.TEXT, text=delta)
        message, usage = assembler.result()
        yield StreamChunk(type=StreamChunkType.DONE, message=message, usage=usage)
