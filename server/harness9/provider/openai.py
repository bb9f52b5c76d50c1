"""The OpenAI-compatible adapter (Chat Completions), on the official `openai` SDK's async client.

Works with any service speaking the format (OpenAI, OpenRouter, vLLM, Ollama…). Conversions:

- SYSTEM → `{"role": "system"}`; USER without `tool_call_id` → `{"role": "user"}`.
- USER with `tool_call_id` → `{"role": "tool", "tool_call_id"}` (the format has no error flag;
  the tool's output text says what failed).
- ASSISTANT → `{"role": "assistant"}` with its `tool_calls` as function calls (raw arguments).
- ToolDefinition → `{"type": "function", "function": {name, description, parameters}}` with
  the full JSON Schema.
- `tools=None` → no `tools` key at all; `tools=[]` → `"tools": []`.

Streams ask for usage (`stream_options.include_usage`) and join tool-call argument fragments by
their `index`. The SDK is imported on first use, and its retries stay on. Every call keeps to the
run's `RequestLimits` (a service's SSE comments are no sign of life: the SDK skips them). The
body is encoded here (`BodyEncoder`) and posted with the SDK's client, skipping `create`'s
re-typing of every parameter.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from harness9.provider._sdk import AdvisedCalls, shared_client, translated_errors
from harness9.provider.json_body import BodyEncoder
from harness9.provider.limits import DEFAULT_LIMITS, Pacer, RequestLimits
from harness9.provider.llm_provider import LIST_TIMEOUT
from harness9.provider.message_cache import MessageCache
from harness9.provider.model_catalog import ModelInfo
from harness9.provider.provider_errors import MalformedResponseError
from harness9.provider.tool_call_accumulator import ToolCallAccumulator
from harness9.schema import (
    Message,
    Role,
    StreamChunk,
    StreamChunkType,
    ToolCall,
    ToolDefinition,
    Usage,
)


def to_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The conversation in Chat Completions form."""
    return [_to_message(m) for m in messages]


def _to_message(message: Message) -> dict[str, Any]:
    if message.role is Role.SYSTEM:
        return {"role": "system", "content": message.content}
    if message.role is Role.USER and message.tool_call_id is not None:
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.role is Role.USER and message.images:
        text = [{"type": "text", "text": message.content}] if message.content else []
        return {"role": "user", "content": [
            *text,
            *({"type": "image_url", "image_url": {"url": f"data:{i.media_type};base64,{i.data}"}}
              for i in message.images),
        ]}
    if message.role is Role.USER:
        return {"role": "user", "content": message.content}
    out: dict[str, Any] = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    return out


def to_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Tool definitions as function tools carrying their full JSON Schema."""
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in tools
    ]


def to_request(
    model: str,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition] | None,
    convert: Callable[[Sequence[Message]], list[dict[str, Any]]] | None = None,
    reasoning_effort: str | None = None,
) -> dict[str, Any]:
    """The keyword arguments of `chat.completions.create` (without the streaming options);
    `convert` turns the messages into their wire form (default: `to_messages`)."""
    request: dict[str, Any] = {"model": model, "messages": (convert or to_messages)(messages)}
    if tools is not None:
        request["tools"] = to_tools(tools)
    if reasoning_effort is not None:
        request["reasoning_effort"] = reasoning_effort
    return request


def from_completion(completion: Any) -> tuple[Message, Usage]:
    """The assistant message and usage of a non-streamed completion."""
    choices = getattr(completion, "choices", None)
    if not choices:
        raise MalformedResponseError("openai: the response has no choices")
    message = choices[0].message
    calls = tuple(
        ToolCall(
            id=c.id or f"call_{i}",
            name=c.function.name,
            arguments=c.function.arguments or "{}",
        )
        for i, c in enumerate(message.tool_calls or ())
        if getattr(c, "function", None) is not None
    )
    text = message.content or ""
    return Message(role=Role.ASSISTANT, content=text, tool_calls=calls), _usage(completion)


def _usage(obj: Any) -> Usage:
    usage = getattr(obj, "usage", None)
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        input_tokens=int(usage.prompt_tokens or 0),
        output_tokens=int(usage.completion_tokens or 0),
        cached_input_tokens=int(getattr(details, "cached_tokens", None) or 0),
    )


class OpenAIProvider(AdvisedCalls):
    """An `LLMProvider` for OpenAI-compatible Chat Completions services."""

    name = "openai"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        model: str,
        max_retries: int = 2,
        limits: RequestLimits = DEFAULT_LIMITS,
        reasoning_effort: str | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.reasoning_effort = reasoning_effort
        self._options: dict[str, Any] = {
            "api_key": api_key,
            "base_url": base_url,
            "max_retries": max_retries,
        }
        self._limits = limits
        self._sdk: Any = None
        self._client: Any = None
        self._convert = MessageCache(_to_message)
        self._body = BodyEncoder()

    async def _connect(self) -> Any:
        """The shared SDK client, on first use (the SDK is imported off the event loop)."""
        if self._client is None:
            self._sdk, self._client = await shared_client(
                "openai", "AsyncOpenAI", self._options, self._limits
            )
        return self._client

    async def list_models(self) -> list[ModelInfo]:
        """The service's models (`GET /models`), in its order."""
        client = await self._connect()
        with translated_errors(self._sdk, self.name, self._limits, self.base_url):
            async with asyncio.timeout(LIST_TIMEOUT):
                return [ModelInfo(self.name, m.id) async for m in client.models.list()]

    async def _generate(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> tuple[Message, Usage]:
        """One non-streaming completion."""
        client = await self._connect()
        with (
            translated_errors(self._sdk, self.name, self._limits, self.base_url),
            Pacer(self._limits, self.name) as pacer,
        ):
            completion = await pacer.first(client.post(
                "/chat/completions",
                content=self._body(to_request(self.model, messages, tools, self._convert,
                                              self.reasoning_effort)),
                cast_to=self._sdk.types.chat.ChatCompletion,
            ))
            return from_completion(completion)

    async def _generate_stream(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> AsyncIterator[StreamChunk]:
        """One streamed completion: text deltas as they arrive, then the assembled message."""
        client = await self._connect()
        request = to_request(self.model, messages, tools, self._convert, self.reasoning_effort)
        text: list[str] = []
        calls = ToolCallAccumulator()
        usage = Usage()
        answered = False
        with (
            translated_errors(self._sdk, self.name, self._limits, self.base_url),
            Pacer(self._limits, self.name) as pacer,
        ):
            types = self._sdk.types.chat
            stream = await pacer.first(client.post(
                "/chat/completions",
                content=self._body(
                    {**request, "stream": True, "stream_options": {"include_usage": True}}),
                cast_to=types.ChatCompletion,
                stream=True,
                stream_cls=self._sdk.AsyncStream[types.ChatCompletionChunk],
            ))
            async with stream:
                async for chunk in pacer.events(stream):
                    if getattr(chunk, "usage", None) is not None:
                        usage = _usage(chunk)
                    delta = _delta(chunk)
                    if delta is None:
                        continue
                    answered = True
                    if delta.content:
                        text.append(delta.content)
                        yield StreamChunk(type=StreamChunkType.TEXT, text=delta.content)
                    _add_tool_fragments(calls, delta)
        if not answered:
            raise MalformedResponseError("openai: the stream carried no answer")
        message = Message(role=Role.ASSISTANT, content="".join(text), tool_calls=calls.calls())
        yield StreamChunk(type=StreamChunkType.DONE, message=message, usage=usage)



def _delta(chunk: Any) -> Any:
    """The first choice's delta of a stream chunk, or None (the usage chunk has no choices)."""
    choices = getattr(chunk, "choices", None)
    return choices[0].delta if choices else None


def _add_tool_fragments(calls: ToolCallAccumulator, delta: Any) -> None:
    for fragment in delta.tool_calls or ():
        function = fragment.function
        calls.add(
            fragment.index,
            id=fragment.id,
            name=function.name if function is not None else None,
            arguments=function.arguments if function is not None else None,
        )
