"""What a run's state (`run_state`) is made of: its tool calls, and the pieces it hands to the
transcript as they finish. Data only: `transcript` draws them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness9.client.plan import Plan

LIVE_KEEP = 8192  # characters of live output kept: enough for the tail, bounded however long
Progress = dict[str, Any]  # an `agent/progress` notification's params


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of the turn in progress, as its row shows it."""

    number: int  # the row's number in the run: a call made anew under its id is a new row
    call_id: str
    tool: str
    kind: str  # what the tool does (`toolKind`): read, edit, execute or other
    arguments: Any
    status: str  # waiting (asked about, not started) | running | completed | failed
    asked: bool = False  # the user was asked about it
    started: bool = False  # its tool began (a call refused before it ran never does)
    live: str = ""  # the tail of its live output (`tool_output`)
    ended: Progress | None = None  # its tool_completed or tool_failed
    # A task's child agent: its rows (call id, line) and its calls (id → tool, arguments).
    children: tuple[tuple[str, str], ...] = ()
    child_calls: dict[str, tuple[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RunHeader:
    """The run's first line: where it runs, on which model."""

    provider: str
    model: str
    root: str


@dataclass(frozen=True, slots=True)
class CommandLine:
    """A `/name` prompt the daemon ran as its command."""

    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class TurnHeading:
    """`● turn N`."""

    turn: int


@dataclass(frozen=True, slots=True)
class Thinking:
    """What the model thought aloud."""

    text: str


@dataclass(frozen=True, slots=True)
class Answer:
    """The model's text of a turn (or a command's answer), stripped."""

    text: str


@dataclass(frozen=True, slots=True)
class Rows:
    """A turn's tool calls, as they stood when the turn moved on."""

    calls: tuple[ToolCall, ...]


@dataclass(frozen=True, slots=True)
class Caution:
    """Something the user should know that does not stop the run (checkpoints are off)."""

    text: str


@dataclass(frozen=True, slots=True)
class Steered:
    """A message typed while the run went on joined the conversation."""

    text: str


@dataclass(frozen=True, slots=True)
class PlanShown:
    """The plan: whole, or one line for an update."""

    plan: Plan
    whole: bool


Piece = (
    RunHeader | CommandLine | TurnHeading | Thinking | Answer | Rows | Caution | Steered | PlanShown
)
