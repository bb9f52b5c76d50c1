"""The state of one run in the terminal, folded from its `agent/progress` notifications.

Pure: no terminal and no rich. `advance(state, note)` gives the next state and the pieces the
transcript gains with it. Only the turn in progress stays in the state: each finished piece (a
turn's text, a turn's tool calls) leaves it as a piece, printed once above the live region, so
the scrollback stays a plain, stable transcript. `client/live.py` draws both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from harness9.client.child_rows import child_note
from harness9.client.outcome import Outcome
from harness9.client.plan import Plan
from harness9.client.run_pieces import (
    LIVE_KEEP,
    Answer,
    Caution,
    CommandLine,
    Piece,
    PlanShown,
    Progress,
    Rows,
    RunHeader,
    Steered,
    Thinking,
    ToolCall,
    TurnHeading,
)

PLAN_TOOL = "update_plan"  # its calls show as the plan, not as tool rows


@dataclass(frozen=True, slots=True)
class RunState:
    """What the run on screen is showing now."""

    turn: int = 0
    text: str = ""  # the turn's text so far
    text_printed: bool = False  # the turn's text went to the transcript
    header_printed: bool = False  # the turn's heading did
    rows: tuple[ToolCall, ...] = ()  # the calls of the turn not yet in the transcript
    made: int = 0  # rows made so far (the next row's number)
    usage: Progress | None = None  # the last `usage` notification
    plan: Plan | None = None
    plan_shown: Plan | None = None  # the plan as last printed whole
    command: str | None = None  # the slash command the daemon ran, if it did
    cancelling: bool = False  # a cancel is under way
    finished: Progress | None = None  # its run_finished (or how the view saw it end)

    @property
    def streaming(self) -> bool:
        """The turn's text is still live (not in the transcript yet)."""
        return bool(self.turn) and not self.text_printed

    @property
    def plan_pending(self) -> bool:
        """The plan changed since it was last printed whole."""
        return self.plan is not None and self.plan != self.plan_shown

    def row(self, call_id: str) -> ToolCall | None:
        """The row of a call of the turn, if it has one."""
        return next((call for call in self.rows if call.call_id == call_id), None)


def advance(state: RunState, note: Progress) -> tuple[RunState, tuple[Piece, ...]]:
    """The state after one notification, and the pieces it finished, in order. Kinds and
    fields it does not know change nothing: the protocol only grows."""
    step = _Step(state)
    parent = note.get("parentToolCallId")
    if parent is not None:  # a child agent's: a line under its task's row
        task = state.row(str(parent))
        if task is not None:
            step.put(child_note(task, note))
        return step.state, tuple(step.pieces)
    handler = _HANDLERS.get(str(note.get("kind")))
    if handler is not None:
        handler(step, note)
    return step.state, tuple(step.pieces)


def fold(notes: Iterable[Progress], state: RunState | None = None) -> tuple[RunState, list[Piece]]:
    """The state after `notes`, from `state` (a fresh run by default), and all pieces."""
    current, pieces = state or RunState(), list[Piece]()
    for note in notes:
        current, more = advance(current, note)
        pieces.extend(more)
    return current, pieces


def cancelling(state: RunState) -> RunState:
    """The user asked to cancel; the daemon has been told."""
    return replace(state, cancelling=True)


def end(state: RunState, outcome: Outcome) -> tuple[RunState, tuple[Piece, ...]]:
    """The run ended: everything still live goes to the transcript."""
    step = _Step(state)
    if state.command and not state.text and outcome.result:
        step.set(text=str(outcome.result.get("text") or ""))  # the command's answer
    step.flush_text()
    step.flush_rows()
    step.print_plan()
    step.set(cancelling=False, finished=state.finished or {"status": outcome.status})
    return step.state, tuple(step.pieces)


class _Step:
    """One transition in the making: the state as it goes, and the pieces it finished."""

    def __init__(self, state: RunState) -> None:
        self.state = state
        self.pieces: list[Piece] = []

    def set(self, **changes: Any) -> None:
        self.state = replace(self.state, **changes)

    def flush_text(self) -> None:
        """The turn's text goes to the transcript (once), under the turn's heading."""
        if self.state.text_printed or not (self.state.turn or self.state.command):
            return
        self.set(text_printed=True)
        self.print_header()
        if self.state.text.strip():
            self.pieces.append(Answer(self.state.text.strip()))

    def print_header(self) -> None:
        if self.state.header_printed or not self.state.turn:
            return
        self.set(header_printed=True)
        self.pieces.append(TurnHeading(self.state.turn))

    def print_plan(self) -> None:
        """Print the plan whole, unless it is as last printed."""
        if self.state.plan is not None and self.state.plan_pending:
            self.set(plan_shown=self.state.plan)
            self.pieces.append(PlanShown(self.state.plan, whole=True))

    def flush_rows(self) -> None:
        if self.state.rows:
            self.pieces.append(Rows(self.state.rows))
            self.set(rows=())

    def new_row(self, p: Progress, status: str, *, asked: bool = False) -> ToolCall:
        """A row for the call `p` is about, in place of any it had."""
        call = ToolCall(
            number=self.state.made,
            call_id=str(p.get("toolCallId")),
            tool=str(p.get("tool")),
            kind=str(p.get("toolKind", "other")),
            arguments=p.get("arguments"),
            status=status,
            asked=asked,
            started=status == "running",
        )
        self.set(made=self.state.made + 1)
        self.put(call)
        return call

    def put(self, call: ToolCall) -> None:
        """Set the call's row: where it was, else last."""
        rows = self.state.rows
        at = next((i for i, row in enumerate(rows) if row.call_id == call.call_id), None)
        self.set(rows=(*rows, call) if at is None else (*rows[:at], call, *rows[at + 1 :]))


# -- the notifications -----------------------------------------------------------------------


def _on_run_started(step: _Step, p: Progress) -> None:
    model = p.get("model") or "default model"
    step.pieces.append(RunHeader(str(p.get("provider")), str(model), str(p.get("workspaceRoot"))))


def _on_command(step: _Step, p: Progress) -> None:
    """A `/name` prompt the daemon runs as its command: a line, then its answer."""
    step.set(command=str(p.get("name", "")))
    step.pieces.append(CommandLine(str(step.state.command), str(p.get("arguments") or "")))


def _on_turn_started(step: _Step, p: Progress) -> None:
    step.flush_text()
    step.flush_rows()
    turn = int(p.get("turn", step.state.turn + 1))
    step.set(turn=turn, text="", text_printed=False, header_printed=False)


def _on_thinking(step: _Step, p: Progress) -> None:
    step.print_header()
    step.pieces.append(Thinking(str(p.get("text", ""))))


def _on_text_delta(step: _Step, p: Progress) -> None:
    step.set(text=step.state.text + str(p.get("text", "")))


def _on_assistant_message(step: _Step, p: Progress) -> None:
    step.set(text=str(p.get("text", "")))
    step.flush_text()


def _on_approval_requested(step: _Step, p: Progress) -> None:
    """A call asked about: its row shows it waiting until it starts or is refused."""
    step.flush_text()
    step.new_row(p, "waiting", asked=True)


def _on_tool_started(step: _Step, p: Progress) -> None:
    step.flush_text()
    if p.get("tool") == PLAN_TOOL:
        return
    row = step.state.row(str(p.get("toolCallId")))
    if row is not None and row.status == "waiting":
        step.put(replace(row, status="running", started=True))
    else:
        step.new_row(p, "running")


def _on_tool_output(step: _Step, p: Progress) -> None:
    row = step.state.row(str(p.get("toolCallId")))
    if row is not None:
        step.put(replace(row, live=(row.live + str(p.get("text", "")))[-LIVE_KEEP:]))


def _on_usage(step: _Step, p: Progress) -> None:
    step.set(usage=p)


def _on_tool_completed(step: _Step, p: Progress) -> None:
    if p.get("tool") != PLAN_TOOL:
        _ended(step, p, "completed")


def _on_tool_failed(step: _Step, p: Progress) -> None:
    _ended(step, p, "failed")


def _ended(step: _Step, p: Progress, status: str) -> None:
    """A call ended; its row is made on the spot when it never started (refused before it
    ran: denied, rejected, an unknown tool, bad arguments)."""
    row = step.state.row(str(p.get("toolCallId")))
    if row is None:
        step.flush_text()
        row = step.new_row(p, status)
    step.put(replace(row, status=status, ended=p))


def _on_checkpoints_off(step: _Step, p: Progress) -> None:
    step.pieces.append(Caution(str(p.get("message", "checkpoints are off"))))


def _on_observation(step: _Step, p: Progress) -> None:
    step.flush_rows()


def _on_steered(step: _Step, p: Progress) -> None:
    step.flush_text()
    step.flush_rows()
    step.pieces.append(Steered(str(p.get("text", ""))))


def _on_plan(step: _Step, p: Progress) -> None:
    """The model wrote its plan: whole the first time, then one line per update; the live
    region shows it whole meanwhile."""
    step.flush_text()
    step.set(plan=Plan.from_progress(p))
    if step.state.plan_shown is None:
        step.print_plan()
    elif step.state.plan is not None:
        step.pieces.append(PlanShown(step.state.plan, whole=False))


def _on_run_finished(step: _Step, p: Progress) -> None:
    step.set(finished=p)
    step.flush_text()
    step.flush_rows()


_HANDLERS: dict[str, Callable[[_Step, Progress], None]] = {
    "run_started": _on_run_started,
    "command": _on_command,
    "turn_started": _on_turn_started,
    "thinking": _on_thinking,
    "text_delta": _on_text_delta,
    "assistant_message": _on_assistant_message,
    "approval_requested": _on_approval_requested,
    "tool_started": _on_tool_started,
    "tool_output": _on_tool_output,
    "usage": _on_usage,
    "tool_completed": _on_tool_completed,
    "tool_failed": _on_tool_failed,
    "checkpoints_off": _on_checkpoints_off,
    "observation": _on_observation,
    "steered": _on_steered,
    "plan": _on_plan,
    "run_finished": _on_run_finished,
}
