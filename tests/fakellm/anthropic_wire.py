"""The Anthropic Messages wire format: JSON answers, SSE events and error bodies."""

from __future__ import annotations

import json
from typing import Any

from tests.fakellm.conversation import signature
from tests.fakellm.steps import Call, Fail, Reply, Request, reply_usage, split

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                403: "permission_error", 404: "not_found_error", 429: "rate_limit_error",
                529: "overloaded_error"}


def tool_use_id(reply: Reply, index: int, serial: int) -> str:
    """The id of the reply's `index`-th tool call."""
    given = reply.tool_calls[index].id
    return given if given is not None else f"toolu_{serial}_{index}"


def message(request: Request, reply: Reply, serial: int) -> dict[str, Any]:
    """A complete, non-streamed message."""
    content: list[dict[str, Any]] = []
    if reply.reasoning:
        content.append({"type": "thinking", "thinking": reply.reasoning,
                        "signature": signature(reply.reasoning)})
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for i, call in enumerate(reply.tool_calls):
        content.append({"type": "tool_use", "id": tool_use_id(reply, i, serial),
                        "name": call.name, "input": _input(call)})
    inp, out = reply_usage(request, reply)
    return {**_head(request, serial), "content": content, "stop_reason": _stop(reply),
            "usage": {**_input_usage(inp, reply), "output_tokens": out}}


def stream_events(request: Request, reply: Reply, serial: int) -> list[bytes]:
    """The SSE events of a streamed message, from `message_start` to `message_stop`."""
    inp, out = reply_usage(request, reply)
    start = {**_head(request, serial), "content": [], "stop_reason": None,
             "usage": {**_input_usage(inp, reply), "output_tokens": 1}}
    events = [_sse("message_start", {"type": "message_start", "message": start}),
              _sse("ping", {"type": "ping"})]
    index = 0
    if reply.reasoning:
        events += _block(index, {"type": "thinking", "thinking": "", "signature": ""},
                         [*({"type": "thinking_delta", "thinking": t}
                            for t in split(reply.reasoning, reply.chunk_chars)),
                          {"type": "signature_delta", "signature": signature(reply.reasoning)}])
        index += 1
    if reply.text:
        events += _block(index, {"type": "text", "text": ""},
                         [{"type": "text_delta", "text": t}
                          for t in split(reply.text, reply.chunk_chars)])
        index += 1
    for i, call in enumerate(reply.tool_calls):
        block = {"type": "tool_use", "id": tool_use_id(reply, i, serial), "name": call.name,
                 "input": {}}
        frags = split(call.raw_arguments(), reply.arg_chunk_chars)
        events += _block(index, block, [{"type": "input_json_delta", "partial_json": f}
                                        for f in frags])
        index += 1
    delta = {"type": "message_delta", "delta": {"stop_reason": _stop(reply),
                                                "stop_sequence": None},
             "usage": {"output_tokens": out}}
    return [*events, _sse("message_delta", delta),
            _sse("message_stop", {"type": "message_stop"})]


def _input_usage(inp: int, reply: Reply) -> dict[str, int]:
    """Anthropic counts cache reads and writes apart from the other input tokens."""
    fields = {"input_tokens": inp - reply.cached - reply.cache_written}
    if reply.cached:
        fields["cache_read_input_tokens"] = reply.cached
    if reply.cache_written:
        fields["cache_creation_input_tokens"] = reply.cache_written
    return fields


def error_event(kind: str, message: str) -> bytes:
    """An error reported inside a stream."""
    return _sse("error", {"type": "error", "error": {"type": kind, "message": message}})


def keepalive() -> bytes:
    """What the service sends to keep an idle stream open: a `ping` event."""
    return _sse("ping", {"type": "ping"})


def error_body(fail: Fail) -> dict[str, Any] | str:
    """The body of an error response."""
    if fail.body is not None:
        return fail.body
    kind = _ERROR_TYPES.get(fail.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": fail.message}}


def _block(index: int, start: dict[str, Any], deltas: list[dict[str, Any]]) -> list[bytes]:
    events = [_sse("content_block_start", {"type": "content_block_start", "index": index,
                                           "content_block": start})]
    events += [_sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                            "delta": d}) for d in deltas]
    return [*events, _sse("content_block_stop", {"type": "content_block_stop", "index": index})]


def _input(call: Call) -> Any:
    """A tool_use input: the object, or (for scripted broken JSON) the raw string itself."""
    if isinstance(call.arguments, dict):
        return call.arguments
    try:
        return json.loads(call.arguments)
    except ValueError:
        return call.arguments


def _head(request: Request, serial: int) -> dict[str, Any]:
    return {"id": f"msg_{serial}", "type": "message", "role": "assistant",
            "model": request.body.get("model", "fake"), "stop_sequence": None}


def _stop(reply: Reply) -> str:
    return "tool_use" if reply.tool_calls else "end_turn"


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def model_list(models: list[str]) -> dict[str, Any]:
    """The answer of `GET /v1/models` (one page)."""
    data = [{"type": "model", "id": m, "display_name": m.replace("-", " ").title(),
             "created_at": "2025-05-14T00:00:00Z"} for m in models]
    return {"data": data, "has_more": False, "first_id": models[0] if models else None,
            "last_id": models[-1] if models else None}
