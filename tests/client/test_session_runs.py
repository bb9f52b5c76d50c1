"""A busy session's runs as the terminal client keeps them, with nothing drawn: notifications of
several runs in any order, prompts queued and taken back, steers too late, refusals, a cancel
and the daemon gone, each followed through to what goes on screen next."""

from __future__ import annotations

from typing import Any

import pytest

from harness9.client.outcome import Outcome
from harness9.client.session_runs import Note, SessionRuns

pytestmark = pytest.mark.timeout(10)


def note(kind: str, run: str, **fields: Any) -> dict[str, Any]:
    return {"kind": kind, "runId": run, "sessionId": "s-1", **fields}


def finished(run: str, status: str = "completed") -> dict[str, Any]:
    return note("run_finished", run, status=status, turns=1, toolCalls=0)


def show(runs: SessionRuns, run: str) -> tuple[str, list[dict[str, Any]]]:
    """Put `run` on screen as the conversation does; its prompt and its kinds held so far."""
    assert runs.pick() == run
    prompt, held = runs.begin(run)
    return prompt, [params["kind"] for params in held]


def test_a_later_runs_notifications_wait_for_the_run_on_screen_to_finish() -> None:
    runs = SessionRuns("s-1")
    runs.in_flight.run_sent(1)
    assert runs.busy() and runs.pick() is None  # nothing to show yet: wait
    assert runs.route(note("run_started", "r1")).to_view is False  # held: none on screen
    assert show(runs, "r1") == ("", ["run_started"])
    assert runs.running == "r1" and runs.showing()
    assert runs.prompt_typed("second")
    runs.in_flight.run_sent(2)
    queued = runs.route(note("queued", "r2", queueId="q2", position=1))
    assert (queued.to_view, queued.queue_changed, queued.ask_queue) == (False, True, False)
    assert runs.queued == ["second"]
    assert runs.route(note("turn_started", "r1", turn=1)).to_view
    started = runs.route(note("dequeued", "r2", queueId="q2", reason="started"))
    assert not started.to_view and started.notes == [] and runs.queued == []
    runs.route(note("run_started", "r2"))
    assert runs.route(finished("r1")).to_view
    assert not runs.showing() and runs.running is None
    outcome = runs.end_shown("r1")
    assert (outcome.status, outcome.result) == (
        "completed", {"runId": "r1", "sessionId": "s-1", "turns": 1, "toolCalls": 0})
    runs.route(finished("r2"))  # its whole run came while r1 was on screen
    assert show(runs, "r2") == ("second", ["dequeued", "run_started", "run_finished"])
    assert not runs.showing()  # its run_finished was among them
    assert runs.end_shown("r2").status == "completed"
    assert runs.route(note("usage", "r1")).to_view is False  # a run shown is over
    runs.in_flight.run_over(1)
    runs.in_flight.run_over(2)
    assert not runs.busy() and runs.pick() is None


def test_a_run_whose_queued_never_came_takes_the_next_prompt_sent() -> None:
    runs = SessionRuns("s-1")
    runs.route(note("run_started", "r1"))
    show(runs, "r1")
    runs.prompt_typed("second")
    runs.route(finished("r1"))
    runs.end_shown("r1")
    runs.route(note("run_started", "r2"))  # a daemon that only makes it wait
    assert show(runs, "r2")[0] == "second"


def test_a_prompt_taken_out_of_the_queue_is_never_shown() -> None:
    runs = SessionRuns("s-1")
    runs.route(note("run_started", "r1"))
    show(runs, "r1")
    for n, text in ((2, "second"), (3, "third")):
        runs.prompt_typed(text)
        runs.route(note("queued", f"r{n}", queueId=f"q{n}", position=n - 1))
    assert runs.unqueue_params() == {"sessionId": "s-1", "queueId": "q3"}
    removed = runs.route(note("dequeued", "r3", queueId="q3", reason="removed"))
    assert removed.notes == [Note("dequeued", "third", "removed")]
    assert runs.queued == ["second"] and "r3" in runs.over
    assert runs.route(note("run_started", "r3")).to_view is False and "r3" not in runs.held


def test_a_prompt_typed_before_the_session_is_known_goes_once_it_is() -> None:
    runs = SessionRuns(None)
    assert not runs.prompt_typed("early") and runs.busy()
    assert runs.unqueue_params() is None
    assert runs.session_known("s-1") == ["early"]
    assert runs.session_known("s-1") == [] and runs.session_id == "s-1"


def test_a_steer_too_late_becomes_a_run_the_session_waits_for() -> None:
    runs = SessionRuns("s-1")
    runs.route(note("run_started", "r1"))
    show(runs, "r1")
    runs.in_flight.steers.append("a late word")
    runs.route(finished("r1"))
    runs.end_shown("r1")
    # its `queued` may come before the steer's answer: the text is not known yet
    assert runs.route(note("queued", "r2", queueId="q2", position=1)).ask_queue
    assert runs.queued == [""]
    assert runs.steer_late("r2", "a late word") == Note("steer_late", "a late word")
    runs.in_flight.steers.remove("a late word")
    assert runs.queued == ["a late word"] and runs.busy()
    runs.route(note("dequeued", "r2", queueId="q2", reason="started"))
    assert show(runs, "r2")[0] == "a late word"
    runs.route(finished("r2"))
    runs.end_shown("r2")
    assert not runs.busy()


def test_the_queue_listing_names_prompts_and_settles_the_ones_expected() -> None:
    runs = SessionRuns("s-1")
    runs.in_flight.steers.append("steer")  # a steer in the air: a `queued` may be its run
    runs.prompt_typed("second")
    assert runs.route(note("queued", "r2", queueId="q2", position=1)).ask_queue
    runs.queue_listed([{"queueId": "q2", "runId": "r2", "prompt": "second", "position": 1}, 7])
    assert runs.queued == ["second"] and list(runs.expected) == []
    assert runs.prompts["r2"] == "second"


def test_a_refused_prompt_is_a_note_beside_a_run_else_a_failure_of_its_own() -> None:
    runs = SessionRuns("s-1")
    refused = Outcome("error", error={"code": -32602, "message": "bad model"})
    runs.prompt_typed("first")
    assert runs.refused("first", refused) is None
    assert list(runs.expected) == [] and runs.pick() is refused
    runs.route(note("run_started", "r1"))
    show(runs, "r1")
    runs.prompt_typed("second")
    assert runs.refused("second", refused) == Note("not_queued", "second", "bad model")
    assert runs.refused("third", Outcome("error")) == Note("not_queued", "third", "refused")


def test_cancel_mid_run_ends_it_and_the_queue_goes_on() -> None:
    runs = SessionRuns("s-1")
    for params in (note("run_started", "r1"), note("command", "r1", name="compact"),
                   note("turn_started", "r1", turn=1)):
        runs.route(params)
    show(runs, "r1")
    runs.prompt_typed("second")
    runs.route(note("queued", "r2", queueId="q2", position=1))
    runs.route(finished("r1", "cancelled"))
    outcome = runs.end_shown("r1")
    assert outcome.status == "cancelled" and outcome.result is not None
    assert outcome.result["command"] == "compact"
    runs.route(note("dequeued", "r2", queueId="q2", reason="started"))
    assert show(runs, "r2")[0] == "second"


def test_the_daemon_gone_ends_the_run_on_screen_and_everything_waiting() -> None:
    runs = SessionRuns("s-1")
    runs.in_flight.run_sent(1)
    runs.route(note("run_started", "r1"))
    show(runs, "r1")
    runs.prompt_typed("second")
    runs.in_flight.run_sent(2)
    runs.route(note("queued", "r2", queueId="q2", position=1))
    runs.route(note("run_started", "r3"))
    gone = Outcome("error", error={"code": -32803, "message": "daemon exited"})
    runs.gone = gone
    assert not runs.showing()
    assert runs.end_shown("r1") is gone
    assert runs.gone is None and runs.held == {} and runs.queued == []
    assert not runs.busy() and runs.pick() is None
    assert runs.in_flight.first == 1  # Ctrl-C still knows what it would cancel


def test_gone_between_runs_is_reported_first() -> None:
    runs = SessionRuns("s-1")
    runs.route(note("run_started", "r1"))
    gone = Outcome("error")
    runs.gone = gone
    assert runs.pick() is gone and runs.held == {} and runs.pick() is None
