"""The daemon's stdio at the byte level: framing, errors for unreadable input, a clean stdout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.raw import RawDaemon, Spawn, spawn

__all__ = ["spawn"]  # the fixture

pytestmark = pytest.mark.timeout(30)

BUILT_IN = {"read_file", "write_file", "edit_file", "bash", "update_plan"}


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
    assert {tool["name"] for tool in answer["result"]["tools"]} >= BUILT_IN
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


# -- framing abuse: a header that cannot be trusted ends the connection (exit 1, reason logged)

@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (b"Content-Length: -5\r\n\r\n{}", "bad Content-Length"),
        (b"Content-Length: abc\r\n\r\n{}", "bad Content-Length"),
        (b"Content-Length: %d\r\n\r\n{}" % 10**20, "bad Content-Length"),
        (b"Content-Length: 100000000000\r\n\r\n{}", "over the limit"),
        (b"Content-Type: application/json\r\n\r\n{}", "without a Content-Length"),
        (b"hello there\r\n\r\n", "malformed header line"),
    ],
    ids=["negative", "not-a-number", "10**20", "over-the-cap", "no-length", "not-a-header"],
)
def test_a_bad_header_closes_the_connection(
    spawn: Spawn, tmp_path: Path, frame: bytes, reason: str
) -> None:
    daemon = spawn()
    daemon.initialize(tmp_path)
    daemon.send_raw(frame)
    assert daemon.exit_code() == 1
    assert daemon.rest() == b""
    assert "bad frame from the client" in daemon.log()
    assert reason in daemon.log()


def test_a_bad_header_while_handlers_run_ends_with_one_line_and_no_traceback(
    spawn: Spawn, tmp_path: Path
) -> None:
    """The bad frame comes while `initialized` is still being handled: the daemon still ends
    with exit code 1 and the reason on one line, not an asyncio traceback for the handler the
    exit cancelled (with a sandbox to probe, `initialized` waits for the probe's thread)."""
    daemon = spawn(env={"HARNESS9_SANDBOX": "workspace-write"})
    frames = b""
    for message in ({"id": 1, "method": "initialize", "params": {
            "processId": None, "capabilities": {}, "rootUri": tmp_path.as_uri()}},
            {"method": "initialized", "params": {}}):
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        frames += b"Content-Length: %d\r\n\r\n" % len(body) + body
    daemon.send_raw(frames + b"Content-Length: twelve\r\n\r\n{}")
    assert daemon.exit_code(timeout=25) == 1
    log = daemon.log()
    assert "bad frame from the client, closing the connection: bad Content-Length" in log
    assert "Traceback" not in log and "Exception in callback" not in log, log


def test_a_huge_header_line_is_cut_off_early(spawn: Spawn, tmp_path: Path) -> None:
    """64 MB without a line end: the daemon stops reading after the cap, its memory stays small."""
    daemon = spawn()
    daemon.initialize(tmp_path)
    sent = _send_until_refused(daemon, b"X" * (1 << 20), 64)
    assert sent < 8 << 20  # the daemon closed its stdin long before the end
    assert daemon.exit_code() == 1
    assert "longer than 8192 bytes" in daemon.log()


def _send_until_refused(daemon: RawDaemon, chunk: bytes, times: int) -> int:
    """Send `chunk` up to `times` times; the bytes that went out before the pipe broke."""
    sent = 0
    try:
        for _ in range(times):
            daemon.send_raw(chunk)
            sent += len(chunk)
    except BrokenPipeError:
        pass
    return sent


# -- a body that is not UTF-8 JSON gets -32700 with id null, and the daemon keeps serving

@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b'{"jsonrpc": "2.0", "id": 3, "method": "agent/tools", "params": {"x": "\xff\xfe"}}',
         "not valid UTF-8"),
        (b"[" * 200_000 + b"]" * 200_000, "nested too deep"),
        (b'{"jsonrpc": "2.0", "id": 3, "params": ' + b'{"a": ' * 200_000 + b"1" + b"}" * 200_001,
         "nested too deep"),
        (b"", "not JSON"),
    ],
    ids=["invalid-utf8", "deep-array", "deep-object", "empty"],
)
def test_an_unreadable_body_is_answered_and_serving_goes_on(
    spawn: Spawn, tmp_path: Path, body: bytes, says: str
) -> None:
    daemon = spawn()
    daemon.initialize(tmp_path)
    daemon.send_bytes(body)
    parse_error = daemon.receive()
    assert parse_error["id"] is None
    assert parse_error["error"]["code"] == -32700
    assert says in parse_error["error"]["message"]
    daemon.send({"id": 4, "method": "agent/tools", "params": {}})
    _, answer = daemon.until_id(4)
    assert {tool["name"] for tool in answer["result"]["tools"]} >= BUILT_IN
    assert daemon.close() == b""


def test_a_message_that_is_not_an_object_is_an_invalid_request(
    spawn: Spawn, tmp_path: Path
) -> None:
    daemon = spawn()
    daemon.initialize(tmp_path)
    daemon.send_bytes(b"[1, 2]")
    error = daemon.receive()
    assert error["id"] is None
    assert error["error"]["code"] == -32600
    assert daemon.close() == b""


# -- lifecycle

@pytest.mark.parametrize("pid", [2**40, 2**31, "abc", -5, 1.5, True, {"pid": 1}],
                         ids=["2**40", "2**31", "text", "negative", "fraction", "bool", "object"])
def test_initialize_with_a_bad_process_id_is_refused_naming_it(
    spawn: Spawn, tmp_path: Path, pid: object
) -> None:
    daemon = spawn()
    daemon.send({"id": 1, "method": "initialize", "params": {
        "processId": pid, "capabilities": {}, "rootUri": tmp_path.as_uri()}})
    _, answer = daemon.until_id(1)
    assert answer["error"]["code"] == -32602, answer
    assert answer["error"]["message"].startswith("processId: must be null or a process id")
    assert "Traceback" not in json.dumps(answer)
    daemon.initialize(tmp_path)  # a valid one then works
    assert daemon.close() == b""


def test_a_request_after_shutdown_is_refused_and_exit_then_ends_with_0(
    spawn: Spawn, tmp_path: Path
) -> None:
    daemon = spawn()
    daemon.initialize(tmp_path)
    daemon.send({"id": 5, "method": "shutdown"})
    _, answer = daemon.until_id(5)
    assert answer["result"] is None
    daemon.send({"id": 6, "method": "agent/tools", "params": {}})
    _, refused = daemon.until_id(6)
    assert refused["error"]["code"] == -32600
    daemon.send({"method": "exit"})
    assert daemon.exit_code() == 0
    assert daemon.rest() == b""


def test_exit_without_shutdown_ends_with_1(spawn: Spawn, tmp_path: Path) -> None:
    daemon = spawn()
    daemon.initialize(tmp_path)
    daemon.send({"method": "exit"})
    assert daemon.exit_code() == 1
    assert daemon.rest() == b""
