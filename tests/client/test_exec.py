"""`harness9 exec` against the real daemon, real tools and the loopback fake model: it never
waits for a person, ends `--json` with the result record, and exits 0 only for a completed run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from harness9.process.sandbox import availability
from tests.client.conftest import HARNESS9, Completed, run_harness9
from tests.fakellm import Call, Fail, FakeLLM, Hang, Reply
from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm"]

pytestmark = pytest.mark.timeout(60)
RECORD_KEYS = {"type", "status", "isError", "sessionId", "turns", "usage", "costUsd",
               "durationMs", "text"}


def _env(fake: FakeLLM, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "HARNESS9_APPROVALS"}
    return {**env, **fake.env(), "HARNESS9_PROVIDER": "openai",
            "HARNESS9_STATE_DIR": str(tmp_path / "state"), "HARNESS9_LANGUAGE_SERVERS": "{}"}


def _exec(fake: FakeLLM, tmp_path: Path, workspace: Path, *args: str,
          **env: str) -> Completed:
    return run_harness9("exec", *args, "--workspace", str(workspace),
                        env={**_env(fake, tmp_path), **env}, timeout=45)


def _record(done: Completed) -> dict[str, Any]:
    lines = done.json_lines()
    assert lines, done.err
    assert [line["type"] for line in lines[:-1]] == ["progress"] * (len(lines) - 1)
    record = lines[-1]
    assert record["type"] == "result", record
    assert set(record) >= RECORD_KEYS, record
    return record


def _user_texts(fake: FakeLLM, index: int) -> str:
    """Everything request `index` sent the model, as text."""
    return "\n".join(str(m.get("content")) for m in fake.requests[index].messages)


def test_a_completed_run_exits_0_and_ends_with_the_result_record(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("alpha\n")
    fake_llm.script([Reply("Reading.", tool_calls=[Call("read_file", {"path": "notes.txt"})]),
                     Reply("The notes say alpha.")])
    done = _exec(fake_llm, tmp_path, workspace, "what do the notes say?", "--json")
    assert done.code == 0, done.err + done.out
    record = _record(done)
    assert record["status"] == "completed" and record["isError"] is False
    assert "error" not in record
    assert record["text"] == "The notes say alpha."
    assert record["turns"] == 2
    assert record["sessionId"].startswith("s-")
    assert record["usage"]["inputTokens"] > 0 and record["usage"]["outputTokens"] > 0
    assert isinstance(record["costUsd"], (int, float)) and record["durationMs"] > 0
    kinds = [line.get("kind") for line in done.json_lines()[:-1]]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"


def test_without_json_stdout_holds_only_the_answer(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path
) -> None:
    fake_llm.script([Reply("Line one.\nLine two.")])
    done = _exec(fake_llm, tmp_path, workspace, "say two lines")
    assert done.code == 0, done.err
    assert done.out == "Line one.\nLine two.\n"
    assert "✓ completed" in done.err  # progress and the summary go to stderr


def test_read_only_by_default_declines_a_write_and_exits_4(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path
) -> None:
    fake_llm.script([Reply(tool_calls=[Call("write_file", {"path": "a.txt", "content": "x\n"})]),
                     Reply("I could not write a.txt.")])
    # The environment's default mode does not widen exec's.
    done = _exec(fake_llm, tmp_path, workspace, "write a.txt", "--json",
                 HARNESS9_APPROVALS="yolo")
    assert done.code == 4, done.err + done.out
    record = _record(done)
    assert (record["status"], record["isError"]) == ("declined", True)
    assert record["error"]["kind"] == "declined" and record["error"]["tools"] == ["write_file"]
    assert not (workspace / "a.txt").exists()
    assert "read-only" in _user_texts(fake_llm, 1)  # the model was told why


def test_a_call_that_would_be_asked_is_declined_and_the_model_told(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path
) -> None:
    fake_llm.script([Reply(tool_calls=[Call("bash", {"command": "touch made"})]),
                     Reply("Nobody let me run it.")])
    done = _exec(fake_llm, tmp_path, workspace, "make a file", "--approvals", "auto-edit",
                 "--json")
    assert done.code == 4, done.err + done.out
    record = _record(done)
    assert record["status"] == "declined"
    assert not (workspace / "made").exists()
    assert "nobody can be asked in this headless run" in _user_texts(fake_llm, 1)
    kinds = [line.get("kind") for line in done.json_lines()]
    assert "approval_requested" in kinds  # it was a question, answered at once


@pytest.mark.skipif(not availability().works, reason="no OS sandbox here")
def test_a_declined_call_the_run_did_without_exits_0(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path
) -> None:
    outside = {"command": "touch outside", "escalate": True, "reason": "needs the host"}
    fake_llm.script([Reply(tool_calls=[Call("bash", outside)]),
                     Reply(tool_calls=[Call("bash", {"command": "touch inside"})]),
                     Reply("Made it inside the sandbox.")])
    done = _exec(fake_llm, tmp_path, workspace, "make a file", "--approvals", "auto", "--json",
                 HARNESS9_SANDBOX="workspace-write")
    assert done.code == 0, done.err + done.out
    assert _record(done)["status"] == "completed"
    assert (workspace / "inside").exists() and not (workspace / "outside").exists()


def test_approvals_let_more_run(fake_llm: FakeLLM, tmp_path: Path, workspace: Path) -> None:
    fake_llm.script([Reply(tool_calls=[Call("write_file", {"path": "a.txt", "content": "x\n"})]),
                     Reply("Wrote it.")])
    done = _exec(fake_llm, tmp_path, workspace, "write a.txt", "--approvals", "auto-edit")
    assert done.code == 0, done.err
    assert (workspace / "a.txt").read_text() == "x\n"


def test_a_provider_error_exits_1(fake_llm: FakeLLM, tmp_path: Path, workspace: Path) -> None:
    fake_llm.script([Fail(401, "bad key")])
    done = _exec(fake_llm, tmp_path, workspace, "hello", "--json")
    assert done.code == 1, done.err + done.out
    record = _record(done)
    assert (record["status"], record["isError"]) == ("error", True)
    assert record["error"]["kind"] == "auth"


def test_max_turns_exits_3(fake_llm: FakeLLM, tmp_path: Path, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\n")
    fake_llm.script([Reply(tool_calls=[Call("read_file", {"path": "a.txt"})])] * 2)
    done = _exec(fake_llm, tmp_path, workspace, "loop", "--max-turns", "2", "--json")
    assert done.code == 3, done.err + done.out
    record = _record(done)
    assert (record["status"], record["turns"]) == ("max_turns", 2)
    assert record["error"]["kind"] == "max_turns"


SCHEMA = {"type": "object", "properties": {"verdict": {"enum": ["pass", "fail"]}},
          "required": ["verdict"], "additionalProperties": False}


@pytest.fixture
def schema_file(tmp_path: Path) -> Path:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    return path


def test_output_schema_asks_for_json_and_prints_it(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path, schema_file: Path
) -> None:
    fake_llm.script([Reply('```json\n{"verdict": "pass"}\n```')])
    done = _exec(fake_llm, tmp_path, workspace, "judge", "--output-schema", str(schema_file))
    assert done.code == 0, done.err
    assert json.loads(done.out) == {"verdict": "pass"}
    assert '"additionalProperties": false' in _user_texts(fake_llm, 0)  # asked for


def test_a_wrong_answer_is_asked_for_again_once(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path, schema_file: Path
) -> None:
    fake_llm.script([Reply('{"verdict": "maybe"}'), Reply('{"verdict": "fail"}')])
    done = _exec(fake_llm, tmp_path, workspace, "judge", "--output-schema", str(schema_file),
                 "--json")
    assert done.code == 0, done.err + done.out
    record = _record(done)
    assert (record["status"], record["output"], record["turns"]) == ("completed",
                                                                     {"verdict": "fail"}, 2)
    retry = _user_texts(fake_llm, 1)
    assert "was not accepted" in retry and "maybe" in retry  # the same session, told why


def test_two_wrong_answers_exit_5(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path, schema_file: Path
) -> None:
    fake_llm.script([Reply("It passes."), Reply('{"verdict": 1}')])
    done = _exec(fake_llm, tmp_path, workspace, "judge", "--output-schema", str(schema_file),
                 "--json")
    assert done.code == 5, done.err + done.out
    record = _record(done)
    assert (record["status"], record["isError"]) == ("schema_failed", True)
    assert record["error"]["kind"] == "schema" and "/verdict" in record["error"]["message"]
    assert len(fake_llm.requests) == 2


def test_a_schema_that_is_no_schema_is_a_usage_error(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": 12}')
    done = _exec(fake_llm, tmp_path, workspace, "judge", "--output-schema", str(bad), "--json")
    assert done.code == 2, done.err
    record = _record(done)
    assert (record["status"], record["error"]["kind"]) == ("error", "usage")
    assert fake_llm.requests == []


def test_no_prompt_is_a_usage_error(fake_llm: FakeLLM, tmp_path: Path, workspace: Path) -> None:
    done = _exec(fake_llm, tmp_path, workspace, "")
    assert done.code == 2
    assert "say what to do" in done.err


def test_resume_and_session_continue_a_session(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path
) -> None:
    fake_llm.script([Reply("First answer."), Reply("Second answer."), Reply("Third answer.")])
    first = _record(_exec(fake_llm, tmp_path, workspace, "remember the word kiwi", "--json"))
    second = _exec(fake_llm, tmp_path, workspace, "--resume", "which word?", "--json")
    assert second.code == 0, second.err
    assert _record(second)["sessionId"] == first["sessionId"]
    assert "kiwi" in _user_texts(fake_llm, 1)
    third = _exec(fake_llm, tmp_path, workspace, "again?", "--session", first["sessionId"],
                  "--json")
    assert _record(third)["sessionId"] == first["sessionId"]
    assert "Second answer." in _user_texts(fake_llm, 2)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_cancels_the_run(
    fake_llm: FakeLLM, tmp_path: Path, workspace: Path, signum: int, code: int
) -> None:
    fake_llm.script([Hang()])
    proc = subprocess.Popen(
        [*HARNESS9, "exec", "wait", "--workspace", str(workspace), "--json"],
        env=_env(fake_llm, tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not fake_llm.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fake_llm.requests, "the model was never asked"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == code, err
    record = _record(Completed(proc.returncode, out, err))
    assert (record["status"], record["isError"], record["error"]["kind"]) == (
        "cancelled", True, "cancelled")
