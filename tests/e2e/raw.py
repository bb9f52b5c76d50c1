"""The daemon over raw pipes: bytes in, frames out, with deadlines on every read."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import preloaded
from tests.support.wire_schema import WireChecker


class RawDaemon:
    """`harness9 serve` as a subprocess; every byte it writes to stdout must be a protocol frame.

    Its stderr goes to a file (`log()`), so a test can read the reasons it logged.
    """

    def __init__(self, env: dict[str, str] | None, log_path: Path,
                 command: list[str] | None = None) -> None:
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.proc = subprocess.Popen(
            command or preloaded.command("serve"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env={**os.environ, "HARNESS9_APPROVALS": "yolo", **(env or {})},
        )
        self._buffer = b""
        self.checker = WireChecker()  # what it answers, checked against the protocol's schema

    # -- sending

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_bytes(self, body: bytes) -> None:
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self.checker.sent(message["id"], message["method"], message.get("params"))
        self.send_bytes(json.dumps({"jsonrpc": "2.0", **message}).encode())

    # -- receiving

    def _fill(self, deadline: float) -> bool:
        """Read what stdout has; False at end of file. Fails the test at the deadline."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(left, 0))
        if not ready:
            pytest.fail(f"no output from the daemon in time; its log:\n{self.log()[-3000:]}")
        chunk = os.read(fd, 1 << 16)
        self._buffer += chunk
        return bool(chunk)

    def receive(self, timeout: float = 15) -> dict[str, Any]:
        """Read one frame; fails on anything that is not LSP base-protocol framing."""
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self._buffer:
            assert self._fill(deadline), f"stdout ended; log:\n{self.log()[-3000:]}"
        head, _, self._buffer = self._buffer.partition(b"\r\n\r\n")
        headers: dict[bytes, bytes] = {}
        for line in head.split(b"\r\n"):
            name, sep, value = line.partition(b": ")
            assert sep, line
            headers[name.lower()] = value.strip()
        assert set(headers) <= {b"content-length", b"content-type"}, headers
        length = int(headers[b"content-length"])
        while len(self._buffer) < length:
            assert self._fill(deadline), "stdout ended inside a body"
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        message: dict[str, Any] = json.loads(body)
        if isinstance(message, dict):
            self.checker.received(message)
        return message

    def until_id(
        self, msg_id: int, timeout: float = 15
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Frames up to the answer with `msg_id`: the notifications before it, and the answer."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            message = self.receive(max(deadline - time.monotonic(), 0))
            if message.get("id") == msg_id and "method" not in message:
                return seen, message
            seen.append(message)

    def rest(self, timeout: float = 10) -> bytes:
        """Everything stdout still carries, up to its end."""
        deadline = time.monotonic() + timeout
        while self._fill(deadline):
            pass
        rest, self._buffer = self._buffer, b""
        return rest

    # -- lifecycle

    def initialize(self, root: Path) -> None:
        self.send({"id": 1, "method": "initialize",
                   "params": {"capabilities": {}, "rootUri": root.as_uri()}})
        self.until_id(1)
        self.send({"method": "initialized", "params": {}})

    def exit_code(self, timeout: float = 10) -> int:
        """Wait for the daemon to end by itself (its stdin stays open)."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the daemon is still running after {timeout} s")

    def close(self) -> bytes:
        """Shut down; returns whatever stdout still held (it must be nothing)."""
        self.send({"id": 99, "method": "shutdown"})
        self.until_id(99)
        self.send({"method": "exit"})
        rest = self.rest()
        assert self.exit_code() == 0
        return rest

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, text: str, timeout: float = 30) -> None:
        """Wait until the daemon's log holds `text` (without reading its stdout)."""
        deadline = time.monotonic() + timeout
        while text not in self.log():
            if time.monotonic() > deadline:
                pytest.fail(f"{text!r} not logged within {timeout} s; the log:\n"
                            f"{self.log()[-3000:]}")
            time.sleep(0.05)

    def kill(self) -> None:
        """Make sure the process is gone and its pipes closed."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None and not pipe.closed:
                with contextlib.suppress(BrokenPipeError):
                    pipe.close()
        self._log.close()


Spawn = Callable[..., RawDaemon]


@pytest.fixture
def spawn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Spawn]:
    """`spawn(env=…)` starts a raw daemon; all are killed after the test."""
    started: list[RawDaemon] = []
    logs = tmp_path_factory.mktemp("logs")

    def make(env: dict[str, str] | None = None) -> RawDaemon:
        started.append(RawDaemon(env, logs / f"daemon-{len(started)}.log"))
        return started[-1]

    yield make
    for daemon in started:
        daemon.kill()
    for daemon in started:
        daemon.checker.assert_clean()
