"""A loopback HTTP server speaking the OpenAI and Anthropic wire formats from a script."""

from __future__ import annotations

import collections
import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakellm import anthropic_wire, openai_wire
from tests.fakellm.conversation import anthropic_error, openai_error
from tests.fakellm.steps import Drop, Fail, Hang, Reply, Request, Step

Responder = Callable[[Request], Step]

EXHAUSTED = "fake LLM: no scripted step left for this request"



class _Server(ThreadingHTTPServer):
    # The default listen backlog of 5 drops connections when many clients connect at once (20
    # concurrent runs): their retried SYNs would add a second each and measure the kernel instead.
    request_queue_size = 128

class FakeLLM:
    """The fake service. Each request takes the next scripted step; when the script is empty
    the `responder` (if any) decides, else the request fails with a non-retried 400 and is
    listed in `unexpected`. `latency` (seconds) is added before every answer. A request whose
    conversation the real API would refuse (a tool call without its result) gets that API's
    400, takes no step and is listed in `rejected`.

    `GET …/models` lists `models` in the wire format the client speaks (Anthropic's SDK sends
    `anthropic-version`); with `models` None the service has no such endpoint (404), and
    `models_failure` answers it with that failure instead. Each listing is kept in `listings`."""

    def __init__(self, responder: Responder | None = None, latency: float = 0.0) -> None:
        self.responder = responder
        self.latency = latency
        self.models: list[str] | None = None
        self.models_failure: Fail | None = None
        self.listings: list[Request] = []
        self.unexpected: list[Request] = []
        self.rejected: list[tuple[Request, str]] = []
        self._steps: collections.deque[Step] = collections.deque()
        self._requests: list[Request] = []
        self._lock = threading.Lock()
        self._serial = 0
        self._closing = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        # A short poll interval makes `close()` quick (it waits for one poll).
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,),
                                        daemon=True, name="fakellm")

    def start(self) -> FakeLLM:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port; hanging answers end too."""
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def script(self, steps: Iterable[Step]) -> None:
        """Append steps; each following request consumes one, in order."""
        with self._lock:
            self._steps.extend(steps)

    @property
    def pending(self) -> int:
        """How many scripted steps are not consumed yet."""
        with self._lock:
            return len(self._steps)

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:<port>`: the Anthropic base URL."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """The value for `OPENAI_BASE_URL`."""
        return self.base_url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The value for `ANTHROPIC_BASE_URL`."""
        return self.base_url

    def env(self) -> dict[str, str]:
        """Environment variables pointing both providers at this server, with dummy keys."""
        return {"OPENAI_API_KEY": "sk-fake", "OPENAI_BASE_URL": self.openai_base_url,
                "ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": self.anthropic_base_url}

    @property
    def requests(self) -> list[Request]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def _next(self, request: Request) -> tuple[Step, int]:
        """Record `request` and choose its step."""
        check = openai_error if request.wire == "openai" else anthropic_error
        refusal = check(request.body)
        with self._lock:
            self._requests.append(request)
            self._serial += 1
            if refusal is not None:
                self.rejected.append((request, refusal))
                return Fail(400, refusal, headers={"x-should-retry": "false"}), self._serial
            if self._steps:
                return self._steps.popleft(), self._serial
        if self.responder is not None:
            return self.responder(request), self._serial
        self.unexpected.append(request)
        return Fail(400, EXHAUSTED, headers={"x-should-retry": "false"}), self._serial


def _handler_for(fake: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        owner = fake

    return Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    owner: FakeLLM

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: test output stays readable."""

    def do_GET(self) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        wire = "anthropic" if "anthropic-version" in headers else "openai"
        request = Request(wire, self.path, headers, {})
        fake = self.owner
        with fake._lock:
            fake.listings.append(request)
        codec: Any = openai_wire if wire == "openai" else anthropic_wire
        if not self.path.split("?", 1)[0].endswith("/models") or fake.models is None:
            self._send_json(404, {"error": {"type": "not_found_error",
                                            "message": f"unknown path {self.path}"}}, {})
        elif fake.models_failure is not None:
            self._send_json(fake.models_failure.status, codec.error_body(fake.models_failure),
                            dict(fake.models_failure.headers))
        else:
            self._send_json(200, codec.model_list(fake.models), {})
        self.close_connection = True

    def do_POST(self) -> None:
        wire = _wire_of(self.path)
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if wire is None:
            self._send_json(404, {"error": f"unknown path {self.path}"}, {})
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = Request(wire, self.path, headers, json.loads(raw or b"{}"))
        step, serial = self.owner._next(request)
        # The client may go away first (a timeout or a cancel): then there is nothing to answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(request, step, serial)
        self.close_connection = True

    def _answer(self, request: Request, step: Step, serial: int) -> None:
        if isinstance(step, Hang):
            self.owner._closing.wait()
            return
        if isinstance(step, Drop):
            time.sleep(step.delay + self.owner.latency)
            return
        time.sleep(step.first_byte_delay + self.owner.latency)
        codec: Any = openai_wire if request.wire == "openai" else anthropic_wire
        if isinstance(step, Fail):
            headers = dict(step.headers)
            if step.retry_after_ms is not None:
                headers.setdefault("retry-after-ms", str(step.retry_after_ms))
            self._send_json(step.status, codec.error_body(step), headers)
        elif request.stream:
            events = codec.stream_events(request, step, serial)
            if step.error_after is not None:
                failure = codec.error_event(step.error_type, "fake error in the stream")
                events = [*events[: step.error_after], failure]
            self._send_stream(events, step, codec.keepalive())
        elif request.wire == "openai":
            self._send_json(200, openai_wire.completion(request, step, serial), {})
        else:
            self._send_json(200, anthropic_wire.message(request, step, serial), {})

    def _send_json(self, status: int, body: object, headers: dict[str, str]) -> None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(status)
        if "content-type" not in {name.lower() for name in headers}:
            self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("connection", "close")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, events: list[bytes], reply: Reply, keepalive: bytes) -> None:
        """SSE over chunked encoding, so a drop mid-way is a visibly incomplete body."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("connection", "close")
        self.end_headers()
        for n, event in enumerate(events):
            if reply.drop_after is not None and n >= reply.drop_after:
                self.wfile.flush()
                return
            if reply.stall_after is not None and n >= reply.stall_after:
                self._stall(reply.keepalive, keepalive)
                return
            self._write_chunk(event)
            if reply.chunk_delay:
                time.sleep(reply.chunk_delay)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _stall(self, interval: float | None, keepalive: bytes) -> None:
        """Send nothing but keep-alives until the client goes away (a failed write) or the
        server closes."""
        self.wfile.flush()
        while not self.owner._closing.wait(interval):
            self._write_chunk(keepalive)


def _wire_of(path: str) -> str | None:
    path = path.split("?", 1)[0]
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/messages"):
        return "anthropic"
    return None
