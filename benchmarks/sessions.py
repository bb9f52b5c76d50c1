"""Case: stored sessions: persisting one turn, and loading a 5,000-message session.

"Persist a turn" is what the daemon does at the end of a turn inside a run: the turn's four
messages (prompt, a tool call, its result, the answer) appended and fsynced (the metadata is
replaced when the run ends); its floor is an `os.write` of the same bytes plus the fsync, so
the figure is what the record format costs beyond the disk. "Load" reads a session of 5,000
messages back.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from benchmarks.core import Config, Row, limit_row, margin_row, median
from harness9.schema import Message, Role, ToolCall
from harness9.service.sessions.session import Session
from harness9.service.sessions.session_file import SessionFile
from harness9.service.sessions.session_log import SessionLog, load


def _turn(i: int) -> list[Message]:
    call = ToolCall(id=f"c{i}", name="bash", arguments='{"command": "python3 -m pytest -q"}')
    return [
        Message.user(f"prompt {i}: make the failing test pass"),
        Message(role=Role.ASSISTANT, content="Running the tests.", tool_calls=(call,)),
        Message(role=Role.USER, content="." * 2000 + "\n3 passed", tool_call_id=f"c{i}"),
        Message(role=Role.ASSISTANT, content="All tests pass now."),
    ]


async def run(config: Config) -> list[Row]:
    """Median cost of persisting a turn against a bare write + fsync, and of loading."""
    turns = config.size(200, 20)
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        stored = SessionFile.create(base, "s-bench", folder)
        session = Session(id="s-bench", root=folder)
        session.history += _turn(-1)
        stored.save(session)  # the first save writes the metadata too: not a per-turn cost
        size = (base / "s-bench.jsonl").stat().st_size
        fd = os.open(base / "floor.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        ours: list[float] = []
        floor: list[float] = []
        try:
            # Interleaved, so both see the same disk and the same load.
            for i in range(turns):
                session.history += _turn(i)
                started = time.perf_counter()
                stored.save(session, meta=False)
                ours.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                os.write(fd, b"x" * size)
                os.fsync(fd)
                floor.append((time.perf_counter() - started) * 1000)
        finally:
            os.close(fd)
            stored.close()
        big = SessionLog(base, "s-big")
        big.add(m for i in range(1250) for m in _turn(i))  # 5,000 messages
        big.commit()
        big.close()
        loads = []
        for _ in range(config.reps):
            started = time.perf_counter()
            load(base, "s-big")
            loads.append((time.perf_counter() - started) * 1000)
    return [
        margin_row("session: persist one turn (4 messages, fsync)", median(ours), median(floor),
                   "ms", 1.0),
        limit_row("session: load 5,000 messages", median(loads), None, "ms", 150.0),
    ]
