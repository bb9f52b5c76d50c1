"""How `harness9 exec` reads a run's notifications: which declined calls the run needed, and
the totals of its record."""

from __future__ import annotations

from typing import Any

from harness9.client.exec_record import Tally, exit_code, final_status, result_record
from harness9.client.outcome import Outcome


def _declined(tool: str, kind: str, reason: str = "denied") -> dict[str, Any]:
    return {"kind": "tool_failed", "tool": tool, "toolKind": kind, "reason": reason}


def _started(tool: str, kind: str) -> dict[str, Any]:
    return {"kind": "tool_started", "tool": tool, "toolKind": kind}


def _tally(*notes: dict[str, Any]) -> Tally:
    tally = Tally()
    for note in notes:
        tally.progress(note)
    return tally


COMPLETED = Outcome("completed", result={"sessionId": "s-1", "text": "ok"})


def test_a_declined_call_of_a_kind_that_ran_later_was_done_without() -> None:
    tally = _tally(_declined("bash", "execute", "rejected"), _started("bash", "execute"))
    assert final_status(COMPLETED, tally) == ("completed", None)


def test_a_declined_call_whose_kind_never_ran_after_it_was_needed() -> None:
    tally = _tally(_started("bash", "execute"), _declined("bash", "execute"),
                   _started("read_file", "read"), _declined("write_file", "edit"))
    status, error = final_status(COMPLETED, tally)
    assert (status, exit_code(status)) == ("declined", 4)
    assert error is not None and error["tools"] == ["bash", "write_file"]


def test_a_failure_that_is_no_decline_counts_for_nothing() -> None:
    tally = _tally({"kind": "tool_failed", "tool": "bash", "toolKind": "execute",
                    "reason": "error"})
    assert final_status(COMPLETED, tally)[0] == "completed"


def test_the_runs_error_comes_before_a_decline() -> None:
    tally = _tally(_declined("bash", "execute"))
    failed = Outcome("error", error={"code": -32803, "message": "bad key",
                                     "data": {"kind": "auth", "status": 401}})
    status, error = final_status(failed, tally)
    assert (status, exit_code(status)) == ("error", 1)
    assert error == {"kind": "auth", "message": "bad key", "code": -32803, "status": 401}
    assert final_status(Outcome("max_turns", result={}), tally)[0] == "max_turns"


def test_cancelled_by_sigterm_exits_143() -> None:
    assert (exit_code("cancelled"), exit_code("cancelled", "SIGTERM")) == (130, 143)


def test_the_record_adds_up_every_run() -> None:
    def run(cost: float, tokens: int) -> list[dict[str, Any]]:
        return [{"kind": "usage", "costUsd": cost / 2}, {"kind": "usage", "costUsd": cost},
                {"kind": "run_finished", "turns": 2, "text": f"{tokens}",
                 "usage": {"inputTokens": tokens, "outputTokens": 1}}]

    tally = _tally(*run(0.25, 100), *run(0.5, 50))
    record = result_record("completed", None, tally, session_id="s-1", duration_ms=12.4,
                           text=tally.text)
    assert record == {"type": "result", "status": "completed", "isError": False,
                      "sessionId": "s-1", "turns": 4,
                      "usage": {"inputTokens": 150, "outputTokens": 2}, "costUsd": 0.75,
                      "durationMs": 12, "text": "50"}
