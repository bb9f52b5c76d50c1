"""Stored sessions: what is written comes back, damage is skipped, a kill loses at most the turn
in flight, and two daemons cannot share a session."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness9.schema import Message, Role, ToolCall
from harness9.service.sessions.session_log import (
    SessionLocked,
    SessionLog,
    SessionMeta,
    delete,
    list_sessions,
    load,
    title_of,
)

pytestmark = pytest.mark.timeout(30)
ROOT = Path(__file__).parents[2]

AWKWARD = "line\u2028separator\u2029para \x00nul \r\n crlf 🙂 \"quotes\" \\ back"


def conversation() -> list[Message]:
    call = ToolCall(id="c1", name="bash", arguments='{"command": "echo \\u2028"}')
    return [
        Message.system("You are harness9."),
        Message.user(AWKWARD),
        Message(role=Role.ASSISTANT, content="", tool_calls=(call,)),
        Message(role=Role.USER, content="out\n", tool_call_id="c1", is_error=True),
        Message(role=Role.ASSISTANT, content="done"),
    ]


def test_what_is_written_comes_back_exactly(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "s-1")
    log.add(conversation())
    log.commit(SessionMeta("s-1", "/ws", title=title_of(AWKWARD), runs=1, turns=2))
    log.close()
    loaded = load(tmp_path, "s-1")
    assert loaded.messages == conversation()
    assert loaded.skipped == 0
    assert loaded.meta is not None and (loaded.meta.runs, loaded.meta.turns) == (1, 2)
    raw = (tmp_path / "s-1.jsonl").read_bytes()
    assert raw.isascii() and raw.count(b"\n") == 5  # one line a record, whatever the content


def test_a_torn_last_line_and_garbage_in_the_middle_are_skipped(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "s-1")
    log.add(conversation()[:2])
    log.commit()
    log.close()
    path = tmp_path / "s-1.jsonl"
    with path.open("ab") as handle:
        handle.write(b"\x00\x00 not json at all\n")
        handle.write(b'{"type":"message","message":{"role":"nobody","content":"x"}}\n')
        handle.write(b'{"type":"message","message":{"role":"assistant","content":"kept"}}\n')
        handle.write(b'{"type":"message","message":{"role":"assistant","cont')  # torn
    loaded = load(tmp_path, "s-1")
    assert loaded.skipped == 3
    assert [m.content for m in loaded.messages] == ["You are harness9.", AWKWARD, "kept"]


@pytest.mark.parametrize("damage", [
    b"", b"1,2", b'{"type":"message","message":{"role":"user","content":"\xff"}}',
    b"[" * 100_000, b"5", b'{"type":"message","message":{"role":"user","content":"x"},}',
])
def test_each_kind_of_damaged_line_costs_that_line_only(tmp_path: Path, damage: bytes) -> None:
    # Read as one array first, line by line when that fails: the result must not differ.
    log = SessionLog(tmp_path, "s-1")
    log.add(conversation()[:2])
    log.commit()
    log.close()
    with (tmp_path / "s-1.jsonl").open("ab") as handle:
        handle.write(damage + b"\n")
        handle.write(b'{"type":"message","message":{"role":"assistant","content":"kept"}}\n')
    loaded = load(tmp_path, "s-1")
    assert loaded.skipped == 1
    assert [m.content for m in loaded.messages] == ["You are harness9.", AWKWARD, "kept"]


def test_a_cut_shortens_the_history_from_there_on(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "s-1")
    log.add(conversation())
    log.cut(2)
    log.add([Message.user("again")])
    log.commit()
    log.close()
    assert [m.content for m in load(tmp_path, "s-1").messages] == [
        "You are harness9.", AWKWARD, "again"
    ]


def test_a_second_daemon_cannot_open_a_session_in_use(tmp_path: Path) -> None:
    first = SessionLog(tmp_path, "s-1")
    probe = (
        "import sys; from pathlib import Path\n"
        "from harness9.service.sessions.session_log import SessionLog, SessionLocked\n"
        "try:\n    SessionLog(Path(sys.argv[1]), 's-1')\nexcept SessionLocked as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True,
                         text=True, timeout=20, cwd=ROOT, check=True).stdout
    assert "in use by another harness9 daemon" in out
    with pytest.raises(SessionLocked):
        SessionLog(tmp_path, "s-1")  # a second handle in this process too
    first.close()
    SessionLog(tmp_path, "s-1").close()  # free again


_WRITER = """
import sys
from pathlib import Path
from harness9.schema import Message
from harness9.service.sessions.session_log import SessionLog
log = SessionLog(Path(sys.argv[1]), "s-1")
turn = 0
while True:
    turn += 1
    log.add([Message.user(f"prompt {turn}"), Message.user("x" * 5000)])
    log.commit()
    print(turn, flush=True)
"""


def test_a_killed_daemon_loses_at_most_the_turn_in_flight(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path)], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    committed = 0
    deadline = time.monotonic() + 10
    while committed < 30 and time.monotonic() < deadline:
        committed = int(child.stdout.readline())
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    child.stdout.close()
    loaded = load(tmp_path, "s-1")
    turns = [m.content for m in loaded.messages if m.content.startswith("prompt ")]
    assert turns[: committed] == [f"prompt {i}" for i in range(1, committed + 1)]
    assert loaded.skipped <= 1  # at most a torn last line


def test_listing_is_newest_first_and_delete_removes_a_session(tmp_path: Path) -> None:
    for name in ("s-old", "s-new"):
        log = SessionLog(tmp_path, name)
        log.add([Message.user(name)])
        log.commit(SessionMeta(name, "/ws", title=name))
        log.close()
        time.sleep(0.01)
    assert [m.session_id for m in list_sessions(tmp_path)] == ["s-new", "s-old"]
    assert delete(tmp_path, "s-old") is True
    assert delete(tmp_path, "s-old") is False
    assert [m.session_id for m in list_sessions(tmp_path)] == ["s-new"]
    assert not (tmp_path / "s-old.jsonl").exists()
    in_use = SessionLog(tmp_path, "s-new")
    with pytest.raises(SessionLocked):
        delete(tmp_path, "s-new")
    in_use.close()


def test_five_thousand_messages_load(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "s-big")
    log.add(Message.user(f"message {i} " + "y" * 200) for i in range(5000))
    log.commit()
    log.close()
    loaded = load(tmp_path, "s-big")
    assert len(loaded.messages) == 5000 and loaded.messages[-1].content.startswith("message 4999")


def test_titles_are_the_first_line_shortened() -> None:
    assert title_of("  fix the tests\nplease  ") == "fix the tests"
    assert title_of("a" * 200) == "a" * 79 + "…"
    assert title_of("") == ""
    attached = '<context uri="file:///a.md">\nthe notes\n</context>'
    assert title_of(f"{attached}\n\nsum up a.md") == "sum up a.md"
    assert title_of(f"sum up\n\n{attached}") == "sum up"
    assert title_of(attached) == ""


def _hold(path: Path, seconds: float) -> subprocess.Popen[bytes]:
    """Another process holding the session's lock for `seconds` (started once it holds it)."""
    code = ("import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_WRONLY); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); "
            "time.sleep(float(sys.argv[2]))")
    proc = subprocess.Popen([sys.executable, "-c", code, str(path), str(seconds)],
                            stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline() == b"held\n"
    return proc


def test_a_lock_let_go_at_once_is_waited_for_and_one_kept_names_its_holder(
    tmp_path: Path,
) -> None:
    SessionLog(tmp_path, "s-1").close()
    path = tmp_path / "s-1.jsonl"
    leaving = _hold(path, 0.05)  # a daemon letting the session go (or exiting) right now
    SessionLog(tmp_path, "s-1").close()
    leaving.communicate(timeout=5)
    staying = _hold(path, 30)
    try:
        with pytest.raises(SessionLocked, match=rf"\(process {staying.pid}\)"):
            SessionLog(tmp_path, "s-1")
    finally:
        staying.kill()
        staying.communicate(timeout=5)
