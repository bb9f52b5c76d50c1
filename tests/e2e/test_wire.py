"""The daemon's stdio at the byte level: framing, errors for unreadable input, a clean stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def spawn() -> Iterator[Callable[..., RawDaemon]]:
    started: list[RawDaemon] = []

    def make(env: dict[str, str] | None = None) -> RawDaemon:
        started.append(RawDaemon(env))
        return started[-1]

    yield make
    for daemon in started:
        daemon.kill()


class RawDaemon:
    """The daemon over raw pipes: every byte it writes to stdout must be a protocol frame."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        import os

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "harness9", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )

    def send_bytes(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def receive(self) -> dict[str, Any]:
        """Read one frame; fails on anything that is not LSP base-protocol framing."""
        assert self.proc.stdout is not None
        headers: dict[bytes, bytes] = {}
        while (line := self.proc.stdout.readline()) != b"\r\n":
            name, sep, value = line.partition(b": ")
            assert sep and line.endswith(b"\r\n"), line
            headers[name.lower()] = value.strip()
        assert set(headers) <= {b"content-length", b"content-type"}, headers
        message: dict[str, Any] = json.loads(self.proc.stdout.read(int(headers[b"content-length"])))
        return message

    def until_id(self, msg_id: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Frames up to the answer with `msg_id`: the notifications before it, and the answer."""
        seen = []
        while True:
            message = self.receive()
            if message.get("id") == msg_id and "method" not in message:
                return seen, message
            seen.append(message)

    def initialize(self, root: Path) -> None:
        self.send({"id": 1, "method": "initialize",
                   "params": {"capabilities": {}, "rootUri": root.as_uri()}})
        self.until_id(1)
        self.send({"method": "initialized", "params": {}})

    def close(self) -> bytes:
        """Shut down; returns whatever stdout still held (it must be nothing)."""
        self.send({"id": 99, "method": "shutdown"})
        self.until_id(99)
        self.send({"method": "exit"})
        assert self.proc.stdout is not None
        rest = self.proc.stdout.read()
        self.proc.wait(10)
        self.proc.stdout.close()
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return rest

    def kill(self) -> None:
        """Make sure the process is gone (after a failed test)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()


Spawn = Callable[..., RawDaemon]


def test_request_before_initialize_is_refused(spawn: Spawn, tmp_path: Path) -> None:
    daemon = spawn()
    daemon.send({"id": 7, "method": "agent/run", "params": {"prompt": "x"}})
    _, answer = daemon.until_id(7)
    assert answer["error"]["code"] == -32002
    daemon.initialize(tmp_path)
    assert daemon.close() == b""


def test_malformed_input_gets_an_error_and_keeps_serving(spawn: Spawn, tmp_path: Path) -> None:
    daemon = spawn()
    daemon.initialize(tmp_path)
    daemon.send_bytes(b'{"jsonrpc": "2.0", "id": 3, "method": "agent/tools", ')
    parse_error = daemon.receive()
    assert parse_error["id"] is None
    assert parse_error["error"]["code"] == -32700
    daemon.send({"id": 4, "method": "agent/tools", "params": {}})
    _, answer = daemon.until_id(4)
    assert len(answer["result"]["tools"]) == 4
    assert daemon.close() == b""


def test_stdout_carries_only_frames_during_a_noisy_run(spawn: Spawn, tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    noisy = "echo to-stdout; echo to-stderr >&2; cat; python3 -c 'print(42)'"
    script.write_text(json.dumps({"turns": [
        {"text": "noise", "tool_calls": [{"name": "bash", "arguments": {"command": noisy}}]},
        {"text": "quiet now"},
    ]}))
    daemon = spawn(env={"HARNESS9_PROVIDER": "replay", "HARNESS9_REPLAY": str(script)})
    daemon.initialize(tmp_path)
    daemon.send({"id": 5, "method": "agent/run", "params": {"prompt": "go"}})
    notes, answer = daemon.until_id(5)
    assert answer["result"]["text"] == "quiet now"
    done = [n["params"] for n in notes if n["method"] == "agent/progress"
            and n["params"]["kind"] == "tool_completed"]
    assert done[0]["output"].split() == ["to-stdout", "to-stderr", "42"]
    assert daemon.close() == b""
