"""A loopback model speaking OpenAI's Responses API, for agents that only speak that (Codex).

`python -m benchmarks.responses_fake` serves, in a process of its own, `POST …/responses`
answered with one streamed text, `done` (what `benchmarks.script` answers a prompt that names no
scenario), and `GET …/models`; it prints its base URL and stops when its input closes. Only
what an agent needs to show a short answer: no tools, no reasoning items.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import AsyncIterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from benchmarks.fake_llm import FakeProcess, fake_llm

ANSWER = "done"


def events(serial: int, model: str) -> bytes:
    """The server-sent events of one response whose output is the text `ANSWER`."""
    text = {"type": "output_text", "text": ANSWER, "annotations": []}
    message = {"type": "message", "id": f"msg_{serial}", "status": "completed",
               "role": "assistant", "content": [text]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 11}
    response = {"id": f"resp_{serial}", "object": "response", "created_at": int(time.time()),
                "model": model}
    part = {"item_id": message["id"], "output_index": 0, "content_index": 0}
    steps: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"response": {**response, "status": "in_progress", "output": []}}),
        ("response.output_item.added",
         {"output_index": 0, "item": {**message, "status": "in_progress", "content": []}}),
        ("response.content_part.added", {**part, "part": {**text, "text": ""}}),
        ("response.output_text.delta", {**part, "delta": ANSWER}),
        ("response.output_text.done", {**part, "text": ANSWER}),
        ("response.content_part.done", {**part, "part": text}),
        ("response.output_item.done", {"output_index": 0, "item": message}),
        ("response.completed", {"response": {**response, "status": "completed",
                                             "output": [message], "usage": usage}}),
    ]
    return b"".join(
        f"event: {kind}\ndata: {json.dumps({'type': kind, 'sequence_number': n, **body})}\n\n"
        .encode() for n, (kind, body) in enumerate(steps))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    served = 0

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        models = {"object": "list", "data": [{"id": "bench-model", "object": "model",
                                              "created": 0, "owned_by": "bench"}]}
        self._send(200, "application/json", json.dumps(models).encode())

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if not self.path.rstrip("/").endswith("/responses"):
            self._send(404, "application/json", b'{"error": {"message": "unknown path"}}')
            return
        _Handler.served += 1
        self._send(200, "text/event-stream", events(_Handler.served, body.get("model", "")))

    def _send(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.send_header("connection", "close")
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)
        self.close_connection = True


@contextlib.asynccontextmanager
async def responses_fake() -> AsyncIterator[FakeProcess]:
    """Start the Responses fake in its own process; stop it on exit."""
    async with fake_llm(module="benchmarks.responses_fake") as fake:
        yield fake


def main() -> None:
    """Serve until stdin closes (`--latency` is accepted and ignored, as `fake_llm` passes it)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
