"""The OpenAI Chat Completions wire format: JSON answers, SSE chunks and error bodies."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.fakellm.steps import Fail, Reply, Request, reply_usage, split


def call_id(reply: Reply, index: int, serial: int) -> str:
    """The id of the reply's `index`-th tool call."""
    given = reply.tool_calls[index].id
    return given if given is not None else f"call_{serial}_{index}"


def completion(request: Request, reply: Reply, serial: int) -> dict[str, Any]:
    """A complete, non-streamed chat completion."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call_id(reply, i, serial),
                "type": "function",
                "function": {"name": c.name, "arguments": c.raw_arguments()},
            }
            for i, c in enumerate(reply.tool_calls)
        ]
    choice = {"index": 0, "message": message, "finish_reason": _finish(reply), "logprobs": None}
    return {**_envelope(request, serial, "chat.completion"), "choices": [choice],
            "usage": _usage(request, reply)}


def stream_events(request: Request, reply: Reply, serial: int) -> list[bytes]:
    """The SSE events of a streamed completion, usage chunk and `[DONE]` included."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    if reply.text:
        deltas += [{"content": piece} for piece in split(reply.text, reply.chunk_chars)]
    deltas += _tool_deltas(reply, serial)
    head = _envelope(request, serial, "chat.completion.chunk")
    chunks = [
        {**head, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
    ]
    chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": _finish(reply)}]})
    if (request.body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**head, "choices": [], "usage": _usage(request, reply)})
    events = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks]
    return [*events, b"data: [DONE]\n\n"]


def error_event(kind: str, message: str) -> bytes:
    """An error reported inside a stream."""
    return f"data: {json.dumps({'error': {'message': message, 'type': kind}})}\n\n".encode()


def keepalive() -> bytes:
    """What a service sends to keep an idle stream open: an SSE comment, which carries no event."""
    return b": keep-alive\n\n"


def error_body(fail: Fail) -> dict[str, Any] | str:
    """The body of an error response."""
    if fail.body is not None:
        return fail.body
    return {"error": {"message": fail.message, "type": "fake_error", "code": str(fail.status)}}


def _tool_deltas(reply: Reply, serial: int) -> list[dict[str, Any]]:
    """Tool-call deltas: each call's header, then argument fragments interleaved across calls."""
    pieces = [split(c.raw_arguments(), reply.arg_chunk_chars) for c in reply.tool_calls]
    deltas: list[dict[str, Any]] = []
    for round_ in range(max((len(p) for p in pieces), default=0)):
        for i, call in enumerate(reply.tool_calls):
            if round_ == 0:
                header = {"index": i, "id": call_id(reply, i, serial), "type": "function",
                          "function": {"name": call.name, "arguments": ""}}
                deltas.append({"tool_calls": [header]})
            if round_ < len(pieces[i]) and pieces[i][round_]:
                frag = {"index": i, "function": {"arguments": pieces[i][round_]}}
                deltas.append({"tool_calls": [frag]})
    return deltas


def _envelope(request: Request, serial: int, obj: str) -> dict[str, Any]:
    return {"id": f"chatcmpl-{serial}", "object": obj, "created": int(time.time()),
            "model": request.body.get("model", "fake")}


def _finish(reply: Reply) -> str:
    return "tool_calls" if reply.tool_calls else "stop"


def _usage(request: Request, reply: Reply) -> dict[str, Any]:
    prompt, completion_tokens = reply_usage(request, reply)
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion_tokens,
                             "total_tokens": prompt + completion_tokens}
    if reply.cached:  # OpenAI counts cache reads among the prompt tokens
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached}
    return usage


def model_list(models: list[str]) -> dict[str, Any]:
    """The answer of `GET /models`."""
    return {"object": "list", "data": [
        {"id": m, "object": "model", "created": 1_700_000_000, "owned_by": "fake"} for m in models
    ]}
