"""The daemon ends with its editor: when the process named in `initialize` (`processId`) or its
own parent ends, even while its stdin stays open, and a run in flight is stopped with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.raw import RawDaemon, Spawn, spawn

__all__ = ["spawn"]  # the fixture

pytestmark = pytest.mark.timeout(60)


def _initialize(daemon: RawDaemon, root: Path, process_id: int | None) -> None:
    daemon.send({"id": 1, "method": "initialize", "params": {
        "processId": process_id, "capabilities": {}, "rootUri": root.as_uri()}})
    daemon.until_id(1)
    daemon.send({"method": "initialized", "params": {}})


def _gone(pid: int, timeout: float = 10) -> bool:
    """Whether process `pid` is gone (or a zombie) within `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_the_daemon_ends_when_the_editor_process_ends(spawn: Spawn, tmp_path: Path) -> None:
    editor = subprocess.Popen(["sleep", "60"])
    try:
        daemon = spawn()
        _initialize(daemon, tmp_path, editor.pid)
        daemon.send({"id": 2, "method": "agent/tools", "params": {}})
        daemon.until_id(2)  # serving while the editor lives
        editor.kill()
        editor.wait()
        assert daemon.exit_code(timeout=10) == 0  # its stdin is still open
        assert f"the editor (pid {editor.pid}) has ended" in daemon.log()
    finally:
        editor.kill()
        editor.wait()


def test_a_run_in_flight_is_stopped_with_its_tool_processes(
    spawn: Spawn, tmp_path: Path
) -> None:
    pid_file = tmp_path / "tool.pid"
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [
        {"text": "wait", "tool_calls": [{"name": "bash", "arguments": {
            "command": f"sleep 50 & echo $! > {pid_file}; wait"}}]},
        {"text": "never"},
    ]}))
    editor = subprocess.Popen(["sleep", "60"])
    try:
        daemon = spawn(env={"HARNESS9_PROVIDER": "replay", "HARNESS9_REPLAY": str(script)})
        _initialize(daemon, tmp_path, editor.pid)
        daemon.send({"id": 5, "method": "agent/run", "params": {"prompt": "go"}})
        deadline = time.monotonic() + 15
        while not pid_file.exists() or not pid_file.read_text().strip():
            assert time.monotonic() < deadline, "the tool never started"
            time.sleep(0.05)
        tool = int(pid_file.read_text())
        editor.kill()
        editor.wait()
        assert daemon.exit_code(timeout=15) == 0
        assert _gone(tool), "the tool's process outlived the daemon"
    finally:
        editor.kill()
        editor.wait()


def _lsp_initialize(root: Path) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "capabilities": {}, "rootUri": root.as_uri()}}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _acp_initialize(root: Path) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": 1, "clientCapabilities": {}}}).encode() + b"\n"


@pytest.mark.parametrize(("command", "hello", "answer"), [
    ("serve", _lsp_initialize, b"Content-Length"),
    ("acp", _acp_initialize, b"{"),
], ids=["lsp", "acp"])
def test_the_daemon_ends_when_its_parent_ends(
    tmp_path: Path, command: str, hello: Callable[[Path], bytes], answer: bytes
) -> None:
    # The parent starts the daemon on the test's pipes and leaves once `initialize` is answered.
    answered = tmp_path / "answered"
    parent_code = ("import os, subprocess, sys, time; subprocess.Popen(sys.argv[2:]); "
                   "sys.stdin.close()\n"
                   "while not os.path.exists(sys.argv[1]): time.sleep(0.02)")
    log = (tmp_path / "daemon.log").open("wb")
    parent = subprocess.Popen(
        [sys.executable, "-c", parent_code, str(answered), sys.executable, "-m", "harness9",
         command],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
        env={**os.environ, "HARNESS9_APPROVALS": "yolo"},
    )
    assert parent.stdin is not None and parent.stdout is not None
    try:
        parent.stdin.write(hello(tmp_path))
        parent.stdin.flush()
        assert parent.stdout.read1(1 << 16).startswith(answer)  # it serves
        answered.touch()
        assert parent.wait(15) == 0
        # The test still holds the daemon's stdin open: only the parent's end can stop it.
        start = time.monotonic()
        assert parent.stdout.read() == b"", "the daemon wrote after its parent ended"
        assert time.monotonic() - start < 10
        deadline = time.monotonic() + 10  # its log may be written after its stdout closed
        while "that started the" not in (tmp_path / "daemon.log").read_text():
            assert time.monotonic() < deadline, "the daemon did not log why it stopped"
            time.sleep(0.05)
    finally:
        parent.kill()
        parent.wait()
        parent.stdin.close()
        parent.stdout.close()
        log.close()


def test_a_process_id_from_elsewhere_is_not_watched(spawn: Spawn, tmp_path: Path) -> None:
    # An editor outside the daemon's container gives an id that does not exist here.
    missing = 4_194_000
    while Path(f"/proc/{missing}").exists():
        missing -= 1
    daemon = spawn()
    _initialize(daemon, tmp_path, missing)
    time.sleep(1.5)
    daemon.send({"id": 2, "method": "agent/tools", "params": {}})
    _, answer = daemon.until_id(2)
    assert "read_file" in {tool["name"] for tool in answer["result"]["tools"]}
    assert daemon.close() == b""


def test_a_remote_editors_process_id_is_not_watched(spawn: Spawn, tmp_path: Path) -> None:
    # With `pathMap` the editor runs on another machine: its processId names a process there,
    # which may be any process here; the connection's end stops the daemon instead.
    unrelated = subprocess.Popen(["sleep", "60"])
    try:
        daemon = spawn()
        daemon.send({"id": 1, "method": "initialize", "params": {
            "processId": unrelated.pid, "capabilities": {}, "rootUri": "file:///editor/proj",
            "initializationOptions": {"pathMap": [{"local": "/editor/proj",
                                                    "remote": str(tmp_path)}]}}})
        daemon.until_id(1)
        daemon.send({"method": "initialized", "params": {}})
        unrelated.kill()
        unrelated.wait()
        time.sleep(1.5)
        daemon.send({"id": 2, "method": "agent/sessions", "params": {}})
        _, answer = daemon.until_id(2)
        assert answer["result"] == {"sessions": []}
        assert daemon.close() == b""
    finally:
        unrelated.kill()
        unrelated.wait()
