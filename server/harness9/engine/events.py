"""Typed events: the one seam between the engine and its observers.

The engine emits one event per step of a run; observers (the stderr block log, the LSP layer's
`agent/progress` notifications, the terminal client, tests) subscribe to an `EventBus`. Each event's
`kind` is the protocol's `agent/progress` kind, except `llm_call_started`, which only the log shows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from harness9.schema import ChangedFile, Plan, ToolCall, ToolKind, ToolResult, Usage

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every engine event."""

    kind: ClassVar[str] = "event"


@dataclass(frozen=True, slots=True)
class RunStarted(Event):
    """The engine accepted a prompt and is about to make its first call."""

    kind: ClassVar[str] = "run_started"
    workspace_root: str
    provider: str
    model: str
    max_turns: int
    tool_timeout_ms: int
    thinking: bool
    stream: bool
    reasoning_effort: str | None = None


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    """A turn begins; `messages` is the context size sent to the model."""

    kind: ClassVar[str] = "turn_started"
    turn: int
    messages: int


@dataclass(frozen=True, slots=True)
class LLMCallStarted(Event):
    """A model call begins: phase `thinking` (tools withheld) or `action` (tools offered)."""

    kind: ClassVar[str] = "llm_call_started"
    turn: int
    phase: str
    tools: int | None


@dataclass(frozen=True, slots=True)
class ThinkingDone(Event):
    """The thinking call answered."""

    kind: ClassVar[str] = "thinking"
    turn: int
    text: str


@dataclass(frozen=True, slots=True)
class TextDelta(Event):
    """A streamed piece of assistant text."""

    kind: ClassVar[str] = "text_delta"
    turn: int
    text: str


@dataclass(frozen=True, slots=True)
class AssistantMessage(Event):
    """The turn's assistant message is complete (also when it has no tool calls);
    `tool_kinds` holds the kind of each call's tool, in call order."""

    kind: ClassVar[str] = "assistant_message"
    turn: int
    text: str
    tool_calls: tuple[ToolCall, ...]
    tool_kinds: tuple[ToolKind, ...]

    def calls_with_kinds(self) -> list[tuple[ToolCall, ToolKind]]:
        """Each tool call with its tool's kind."""
        return list(zip(self.tool_calls, self.tool_kinds, strict=True))


@dataclass(frozen=True, slots=True)
class ToolStarted(Event):
    """A tool call begins; `tool_kind` is its tool's kind."""

    kind: ClassVar[str] = "tool_started"
    turn: int
    call: ToolCall
    tool_kind: ToolKind
    sandbox: str | None = None  # the OS sandbox its command runs in (bash)


@dataclass(frozen=True, slots=True)
class ToolOutputShown(Event):
    """The newest output of a running tool call (bash), for the user to watch; `truncated` is
    set once, on the last piece, when the call's live output reached its cap."""

    kind: ClassVar[str] = "tool_output"
    turn: int
    call: ToolCall
    text: str
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalRequested(Event):
    """The user is being asked whether a call (of a tool of `tool_kind`) may run (it has not
    started yet); `reason` says why when it is asked whatever the rules say."""

    kind: ClassVar[str] = "approval_requested"
    turn: int
    call: ToolCall
    title: str
    tool_kind: ToolKind
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ApprovalResolved(Event):
    """A call's fate, unless the mode simply allowed it: `decision` is the user's answer
    (`allow_once`, `allow_session`, `reject`) or `allow` / `deny`; `by` is `user`, `rule`,
    `session` or `mode`; `rule` names the rule that decided."""

    kind: ClassVar[str] = "approval_resolved"
    turn: int
    call: ToolCall
    decision: str
    by: str
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class ToolFinished(Event):
    """A tool call (of a tool of `tool_kind`) ended; `result.is_error` tells completion from
    failure."""

    kind: ClassVar[str] = "tool_finished"
    turn: int
    call: ToolCall
    result: ToolResult
    tool_kind: ToolKind


@dataclass(frozen=True, slots=True)
class ObservationAdded(Event):
    """The turn's tool results were appended to the context."""

    kind: ClassVar[str] = "observation"
    turn: int
    tool_call_ids: tuple[str, ...]
    messages_before: int
    messages: int


@dataclass(frozen=True, slots=True)
class CheckpointTaken(Event):
    """A snapshot of the workspace was kept: before a run's first tool batch, or after a
    batch that changed something; `files` changed since the previous checkpoint."""

    kind: ClassVar[str] = "checkpoint"
    turn: int
    checkpoint_id: str
    files: tuple[ChangedFile, ...]


@dataclass(frozen=True, slots=True)
class ToolsWarning(Event):
    """Some tools cannot be offered (an MCP server failed to start or died, a name clashed);
    the run goes on without them. `message` says which and why, for the user."""

    kind: ClassVar[str] = "tools_warning"
    message: str


@dataclass(frozen=True, slots=True)
class CheckpointsUnavailable(Event):
    """Checkpoints cannot be taken for this workspace (git missing, too big); the run goes on
    without them. Sent once per workspace and daemon; `message` says why, for the user."""

    kind: ClassVar[str] = "checkpoints_off"
    message: str


@dataclass(frozen=True, slots=True)
class UsageReported(Event):
    """A model call reported its token usage; totals are for the whole run so far."""

    kind: ClassVar[str] = "usage"
    turn: int
    usage: Usage
    total: Usage
    context_window: int = 0  # the model's window (0: not known to the engine)
    cost: float | None = None  # what `total` cost in US dollars (None: prices unknown)


@dataclass(frozen=True, slots=True)
class ContextCompacted(Event):
    """The conversation was compacted before a call; token counts are estimates of the
    request, `method` is `prune` or `summary`."""

    kind: ClassVar[str] = "context_compacted"
    turn: int
    before_tokens: int
    after_tokens: int
    method: str


@dataclass(frozen=True, slots=True)
class Steered(Event):
    """A message the user sent while the run went on joined the conversation, before the
    model call of `turn`; `text` is the message as the user typed it."""

    kind: ClassVar[str] = "steered"
    turn: int
    text: str


@dataclass(frozen=True, slots=True)
class PlanUpdated(Event):
    """The model recorded its plan (a plan tool call of `turn` completed)."""

    kind: ClassVar[str] = "plan"
    turn: int
    plan: Plan


@dataclass(frozen=True, slots=True)
class Queued(Event):
    """The run waits behind the session's running run; `position` 1 runs next."""

    kind: ClassVar[str] = "queued"
    queue_id: str
    position: int


@dataclass(frozen=True, slots=True)
class CommandRan(Event):
    """A slash command that acts without the model ran (its answer follows as text)."""

    kind: ClassVar[str] = "command"
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class Dequeued(Event):
    """The run left the session's queue: `started`, or `removed` / `cancelled` (it never ran)."""

    kind: ClassVar[str] = "dequeued"
    queue_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class RunFinished(Event):
    """The last event of every run, whatever its end."""

    kind: ClassVar[str] = "run_finished"
    status: str  # completed | max_turns | cancelled | error
    turns: int
    tool_calls: int
    usage: Usage
    messages: int
    text: str = ""
    error: dict[str, Any] | None = field(default=None)


@dataclass(frozen=True, slots=True)
class ChildEvent(Event):
    """An event of a child agent's run, on its parent's bus: `event` as the child's engine
    emitted it, `parent_call_id` the wire id of the `task` call that runs the child, `agent`
    the child's agent. Observers that do not know it ignore it, as any other kind."""

    kind: ClassVar[str] = "child"
    parent_call_id: str
    agent: str
    event: Event


Subscriber = Callable[[Event], None]


class EventBus:
    """Fans events out to subscribers, in subscription order.

    A subscriber that raises is logged and skipped: an observer's bug must not break a run.
    """

    def __init__(self, *subscribers: Subscriber) -> None:
        self._subscribers: list[Subscriber] = list(subscribers)

    def subscribe(self, subscriber: Subscriber) -> None:
        """Add an observer."""
        self._subscribers.append(subscriber)

    def emit(self, event: Event) -> None:
        """Deliver `event` to every subscriber."""
        for subscriber in self._subscribers:
            try:
                subscriber(event)
            except Exception:
                _log.exception("event subscriber failed on %s", event.kind)
