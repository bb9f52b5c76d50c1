"""A user's cancel is an ordinary end of a run: the daemon's log (stderr) records it, not as an
ERROR."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.raw import Spawn, spawn

__all__ = ["spawn"]  # the fixture

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize("how", ["$/cancelRequest", "agent/cancel"])
def test_a_cancelled_run_logs_no_error(spawn: Spawn, tmp_path: Path, how: str) -> None:
    script = tmp_path / "script.json"
    call = {"name": "bash", "arguments": {"command": "sleep 20"}}
    script.write_text(json.dumps({"turns": [{"text": "waiting", "tool_calls": [call]}]}))
    daemon = spawn(env={"HARNESS9_PROVIDER": "replay", "HARNESS9_REPLAY": str(script)})
    daemon.initialize(tmp_path)
    # Without checkpoints: a daemon that had a checkpointed run cancelled can hang at exit,
    # waiting on the workspace tree read the cancel interrupted (a separate defect).
    params = {"prompt": "go", "checkpoints": False}
    daemon.send({"id": 5, "method": "agent/run", "params": params})
    note = daemon.receive()
    while note.get("params", {}).get("kind") != "tool_started":
        note = daemon.receive()
    if how == "agent/cancel":
        session = note["params"]["sessionId"]
        daemon.send({"id": 6, "method": "agent/cancel", "params": {"sessionId": session}})
    else:
        daemon.send({"method": "$/cancelRequest", "params": {"id": 5}})
    _, answer = daemon.until_id(5)
    assert answer["error"]["code"] == -32800
    if how == "agent/cancel":  # answered after the run's own answer
        assert daemon.until_id(6)[1]["result"] == {"cancelled": True}
    assert daemon.close() == b""
    log = daemon.log()
    assert "status=cancelled" in log
    errors = [line for line in log.splitlines() if " ERROR " in line or "Traceback" in line]
    assert errors == []

