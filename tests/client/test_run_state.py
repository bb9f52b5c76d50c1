"""The terminal's run state, folded from `agent/progress` notifications with nothing drawn: what
the live region holds after each sequence (odd orders included) and which pieces go to the
transcript, in order."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness9.client.outcome import Outcome
from harness9.client.plan import Plan
from harness9.client.run_pieces import (
    LIVE_KEEP,
    Answer,
    Caution,
    CommandLine,
    Piece,
    PlanShown,
    Rows,
    RunHeader,
    Steered,
    Thinking,
    ToolCall,
    TurnHeading,
)
from harness9.client.run_state import RunState, advance, cancelling, end, fold
from tests.client.conftest import run_harness9

pytestmark = pytest.mark.timeout(30)

STARTED = {"kind": "run_started", "provider": "replay", "model": None, "workspaceRoot": "/ws"}
BASH = {"tool": "bash", "toolKind": "execute", "arguments": {"command": "make"}}


def turn(n: int) -> dict[str, Any]:
    return {"kind": "turn_started", "turn": n, "messages": 2 * n}


def call(kind: str, call_id: str = "c1", **fields: Any) -> dict[str, Any]:
    return {"kind": kind, "turn": 1, "toolCallId": call_id, **BASH, **fields}


def rows_of(pieces: list[Piece]) -> list[tuple[ToolCall, ...]]:
    return [piece.calls for piece in pieces if isinstance(piece, Rows)]


def test_a_turn_streams_its_text_then_hands_it_and_its_rows_to_the_transcript() -> None:
    state, pieces = fold([STARTED, turn(1), {"kind": "text_delta", "text": "Look"},
                          {"kind": "text_delta", "text": "ing."}])
    assert pieces == [RunHeader("replay", "default model", "/ws")]
    assert state.streaming and state.text == "Looking." and not state.header_printed
    state, pieces = fold([{"kind": "assistant_message", "text": " Looking. ", "toolCalls": []},
                          call("tool_started"), call("tool_output", text="built\n"),
                          call("tool_completed", output="built", exitCode=0)], state)
    assert pieces == [TurnHeading(1), Answer("Looking.")]
    assert not state.streaming
    [row] = state.rows
    assert (row.status, row.started, row.live, row.ended is not None) == (
        "completed", True, "built\n", True)
    state, pieces = advance(state, {"kind": "observation", "turn": 1, "messages": 3})
    assert pieces == (Rows((row,)),) and state.rows == ()
    state, pieces = fold([turn(2), {"kind": "assistant_message", "text": "Done."},
                          {"kind": "run_finished", "status": "completed", "turns": 2}], state)
    assert pieces == [TurnHeading(2), Answer("Done.")]
    assert state.finished is not None and state.finished["turns"] == 2


def test_a_call_that_fails_without_starting_gets_a_row_of_its_own() -> None:
    refused = call("tool_failed", "c9", reason="unknown tool", arguments=None)
    state, pieces = fold([turn(1), {"kind": "text_delta", "text": "Trying."}, refused])
    assert pieces == [TurnHeading(1), Answer("Trying.")]  # the text goes first, above the row
    [row] = state.rows
    assert (row.call_id, row.status, row.started, row.asked) == ("c9", "failed", False, False)
    assert row.ended == refused
    # the plan tool's calls show as the plan, but a failed one is a row like any other
    plan_call = {"kind": "tool_completed", "toolCallId": "p1", "tool": "update_plan"}
    state, _ = advance(state, plan_call)
    assert [r.call_id for r in state.rows] == ["c9"]
    state, _ = advance(state, {**plan_call, "kind": "tool_failed"})
    assert [r.call_id for r in state.rows] == ["c9", "p1"]


def test_an_approval_waits_then_runs_or_is_rejected() -> None:
    asked = [turn(1), call("approval_requested", "a"), call("approval_requested", "b")]
    state, _ = fold(asked)
    assert [(r.status, r.asked, r.started) for r in state.rows] == [("waiting", True, False)] * 2
    state, _ = fold([call("tool_started", "a"), call("tool_failed", "b", reason="rejected")],
                    state)
    allowed, rejected = state.rows
    assert (allowed.status, allowed.asked, allowed.started) == ("running", True, True)
    assert (rejected.status, rejected.started) == ("failed", False)
    assert rejected.ended is not None and rejected.ended["reason"] == "rejected"
    assert allowed.number == 0 and rejected.number == 1  # rows keep their number: same row


def test_a_call_made_anew_under_its_id_is_a_new_row_in_the_same_place() -> None:
    state, _ = fold([turn(1), call("tool_started", "a"), call("tool_started", "b"),
                     call("tool_completed", "a", exitCode=0)])
    first = state.rows[0]
    state, _ = fold([call("approval_requested", "a"), call("tool_started", "a")], state)
    again = state.rows[0]
    assert [r.call_id for r in state.rows] == ["a", "b"]
    assert again.number != first.number and (again.status, again.ended) == ("running", None)
    # the same id in a later turn (after its row went to the transcript) is a new row too
    state, pieces = fold([turn(2), call("tool_completed", "a", exitCode=0)], state)
    assert [[r.call_id for r in calls] for calls in rows_of(pieces)] == [["a", "b"]]
    [late] = state.rows
    assert (late.call_id, late.status, late.started) == ("a", "completed", False)


def test_output_of_an_unknown_call_is_dropped_and_a_long_one_keeps_its_tail() -> None:
    state, _ = fold([turn(1), call("tool_output", "nobody", text="lost")])
    assert state.rows == ()
    state, _ = fold([call("tool_started"), call("tool_output", text="x" * LIVE_KEEP),
                     call("tool_output", text="tail")], state)
    assert len(state.rows[0].live) == LIVE_KEEP and state.rows[0].live.endswith("xtail")


def test_cancel_mid_stream_then_the_end_prints_what_was_live() -> None:
    state, _ = fold([STARTED, turn(1), {"kind": "text_delta", "text": "Half a"},
                     {"kind": "usage", "inputTokens": 5}])
    state = cancelling(state)
    assert state.cancelling and state.streaming
    done, pieces = end(state, Outcome("cancelled"))
    assert pieces == (TurnHeading(1), Answer("Half a"))
    assert not done.cancelling and done.finished == {"status": "cancelled"}
    assert done.usage == {"kind": "usage", "inputTokens": 5}
    assert state.streaming and state.cancelling  # the old state is as it was


def test_cancel_mid_call_prints_its_row_as_it_stood() -> None:
    state, pieces = fold([turn(1), call("tool_started"), call("tool_output", text="50%")])
    assert pieces == [TurnHeading(1)]  # a call starting ends the turn's text (none here)
    done, pieces = end(cancelling(state), Outcome("cancelled"))
    [running] = state.rows
    assert pieces == (Rows((running,)),) and running.status == "running"
    assert done.rows == () and done.finished == {"status": "cancelled"}


def test_a_run_finished_before_the_end_is_kept_and_the_end_adds_nothing() -> None:
    finished = {"kind": "run_finished", "status": "error", "turns": 1}
    running, _ = fold([turn(1), call("tool_started")])
    state, pieces = advance(running, finished)
    assert pieces == (Rows(running.rows),)
    assert state.finished == finished and state.rows == ()
    again, more = end(state, Outcome("error"))
    assert more == () and again.finished == finished


def test_a_command_run_shows_its_line_then_its_answer_at_the_end() -> None:
    state, pieces = fold([{"kind": "command", "name": "compact", "arguments": None}])
    assert pieces == [CommandLine("compact", "")] and state.command == "compact"
    _, pieces = end(state, Outcome("completed", result={"text": "Compacted: 3 messages."}))
    assert pieces == (Answer("Compacted: 3 messages."),)  # no turn, no heading


def test_the_plan_is_whole_first_then_a_line_per_update_then_whole_at_the_end() -> None:
    def plan(*statuses: str) -> dict[str, Any]:
        items = [{"text": f"step {i}", "status": s} for i, s in enumerate(statuses)]
        return {"kind": "plan", "items": items}

    state, pieces = fold([turn(1), plan("in_progress", "pending")])
    first = Plan.from_progress(plan("in_progress", "pending"))
    assert pieces == [TurnHeading(1), PlanShown(first, whole=True)] and not state.plan_pending
    state, pieces = fold([plan("done", "in_progress")], state)
    second = Plan.from_progress(plan("done", "in_progress"))
    assert pieces == [PlanShown(second, whole=False)] and state.plan_pending
    _, pieces = end(state, Outcome("completed"))
    assert pieces == (PlanShown(second, whole=True),)


def test_steers_thinking_warnings_and_unknown_kinds() -> None:
    state, pieces = fold([
        turn(1), {"kind": "thinking", "text": "hmm"}, {"kind": "text_delta", "text": "A."},
        call("tool_started"), {"kind": "steered", "turn": 2, "text": "use v2"},
        {"kind": "checkpoints_off"}, {"kind": "a_kind_from_later", "x": 1},
        {"kind": "approval_resolved", "toolCallId": "c1", "decision": "allow"},
    ])
    assert [type(p) for p in pieces] == [TurnHeading, Thinking, Answer, Rows, Steered, Caution]
    assert pieces[-2:] == [Steered("use v2"), Caution("checkpoints are off")]
    assert state.rows == () and not state.streaming


def test_a_turn_without_a_number_counts_on() -> None:
    state, _ = fold([{"kind": "turn_started"}, {"kind": "turn_started"}])
    assert state.turn == 2 and state.text == "" and state == RunState(turn=2)


def test_a_refused_call_of_a_real_daemon_run(workspace: Path, replay: Any) -> None:
    calls = [{"name": "bash", "arguments": {"command": "touch planted"}}]
    script = replay([{"tool_calls": calls}, {"text": "Gave up."}])
    done = run_harness9("run", "x", "--workspace", str(workspace), "--replay", str(script),
                        "--json", env={**os.environ, "HARNESS9_APPROVALS": "ask"})
    assert done.code == 0, done.err
    notes = done.json_lines()[:-1]
    states = []
    state = RunState()
    for note in notes:
        state, _ = advance(state, note)
        states.append((note["kind"], [(r.status, r.started) for r in state.rows]))
    assert ("approval_requested", [("waiting", False)]) in states
    assert ("tool_failed", [("failed", False)]) in states
    assert state.finished is not None and state.rows == ()


def test_the_state_modules_draw_nothing() -> None:
    code = ("import sys, harness9.client.run_state, harness9.client.session_runs; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'termios')))")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "server")}
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, timeout=20, check=True)
    assert shown.stdout.strip() == "[]"
