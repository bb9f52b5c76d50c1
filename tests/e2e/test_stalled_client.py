"""A client that stops reading the daemon's stdout must not stop its timeouts, cancels or sessions.

Each run here first floods stdout with far more than a pipe holds (32 bash calls of 8000 bytes
of output each), so any write the daemon makes on its event loop would block it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.raw import RawDaemon, Spawn, spawn

__all__ = ["spawn"]  # the fixture

pytestmark = pytest.mark.timeout(50)

FLOOD = [{"name": "bash", "arguments": {"command": f"head -c 20000 /dev/zero | tr '\\0' {i % 10}"}}
         for i in range(32)]


def _script(path: Path, calls: list[dict[str, Any]]) -> str:
    path.write_text(json.dumps({"turns": [{"text": "go", "tool_calls": calls}, {"text": "done"}]}))
    return str(path)


def _sleeper(pid_file: Path) -> dict[str, Any]:
    return {"name": "bash", "arguments": {"command": f"echo $$ > {pid_file}; exec sleep 30"}}


def _wait(condition: Callable[[], bool], within: float, what: str) -> float:
    """Seconds until `condition` held; fails the test after `within` seconds."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > within:
            pytest.fail(f"{what}: not within {within} s while the client was not reading")
        time.sleep(0.05)
    return time.monotonic() - start


def _alive(pid_file: Path) -> bool:
    try:
        os.kill(int(pid_file.read_text()), 0)
    except (ProcessLookupError, ValueError):
        return False
    return True


def _started(pid_file: Path) -> bool:
    return pid_file.exists() and pid_file.read_text().strip() != ""


def _progress(notes: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [n["params"] for n in notes
            if n.get("method") == "agent/progress" and n["params"]["kind"] == kind]


def _daemon(spawn: Spawn, root: Path) -> RawDaemon:
    daemon = spawn(env={"HARNESS9_PROVIDER": "replay"})
    daemon.initialize(root)
    return daemon


def test_a_tool_timeout_fires_on_time_while_the_client_is_not_reading(
    spawn: Spawn, tmp_path: Path
) -> None:
    pid_file = tmp_path / "sleeper.pid"
    script = _script(tmp_path / "script.json", [*FLOOD, _sleeper(pid_file)])
    daemon = _daemon(spawn, tmp_path)
    daemon.send({"id": 5, "method": "agent/run",
                 "params": {"prompt": "go", "replayFile": script, "toolTimeoutMs": 1000}})
    _wait(lambda: _started(pid_file), 10, "the sleeper started")
    _wait(lambda: not _alive(pid_file), 4, "the 1 s tool timeout killed the sleeper")
    daemon.wait_for_log("status=completed")  # the whole run ends while the client is not reading

    notes, answer = daemon.until_id(5)
    assert answer["result"]["status"] == "completed", answer
    timed_out = [p for p in _progress(notes, "tool_failed") if p["reason"] == "timeout"]
    assert len(timed_out) == 1
    assert 900 <= timed_out[0]["durationMs"] < 3000
    assert len(_progress(notes, "tool_completed")) == len(FLOOD)
    assert daemon.close() == b""


def test_cancels_and_other_sessions_work_while_the_client_is_not_reading(
    spawn: Spawn, tmp_path: Path
) -> None:
    pid_file = tmp_path / "sleeper.pid"
    done_file = tmp_path / "second.done"
    flooding = _script(tmp_path / "flood.json", [*FLOOD, _sleeper(pid_file)])
    second = _script(tmp_path / "second.json",
                     [{"name": "bash", "arguments": {"command": f"touch {done_file}"}}])
    daemon = _daemon(spawn, tmp_path)
    daemon.send({"id": 5, "method": "agent/run",
                 "params": {"prompt": "flood", "replayFile": flooding}})
    _wait(lambda: _started(pid_file), 10, "the sleeper started")
    time.sleep(1.0)  # the flood's output is out by now: stdout is full

    daemon.send({"method": "$/cancelRequest", "params": {"id": 5}})
    _wait(lambda: not _alive(pid_file), 4, "the cancel killed the sleeper")
    daemon.send({"id": 6, "method": "agent/run",
                 "params": {"prompt": "other", "replayFile": second}})
    _wait(done_file.exists, 6, "a run in a second session ran its tool")

    answers: dict[int, dict[str, Any]] = {}
    while len(answers) < 2:
        message = daemon.receive()
        if message.get("id") in (5, 6) and "method" not in message:
            answers[message["id"]] = message
    assert answers[5]["error"]["code"] == -32800
    assert answers[6]["result"]["status"] == "completed"
    assert daemon.close() == b""


def test_text_streamed_while_the_client_is_not_reading_arrives_merged(
    spawn: Spawn, tmp_path: Path
) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(3000))
    script = tmp_path / "script.json"
    script.write_text(json.dumps({
        "turns": [{"text": "go", "tool_calls": FLOOD}, {"text": text}],
        "delta_chars": 1, "delta_delay_ms": 1,
    }))
    daemon = _daemon(spawn, tmp_path)
    daemon.send({"id": 5, "method": "agent/run",
                 "params": {"prompt": "go", "replayFile": str(script), "stream": True}})
    # Unhindered, ~3 s of pieces would make ~150 notifications at 50 a second; the client reads
    # nothing until the stream, and the run, are over.
    daemon.wait_for_log("status=completed")

    notes, answer = daemon.until_id(5)
    assert answer["result"]["text"] == text
    deltas = [p for p in _progress(notes, "text_delta") if p["turn"] == 2]
    assert "".join(p["text"] for p in deltas) == text
    assert len(deltas) <= 5
    seqs = [n["params"]["seq"] for n in notes if n.get("method") == "agent/progress"]
    assert seqs == list(range(1, len(seqs) + 1))
    assert daemon.close() == b""
