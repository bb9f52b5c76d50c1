"""Engine events → `agent/progress` notifications, numbered and with text deltas coalesced."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast

from harness9.engine.events import (
    ApprovalRequested,
    ApprovalResolved,
    AssistantMessage,
    CheckpointsUnavailable,
    CheckpointTaken,
    ChildEvent,
    CommandRan,
    ContextCompacted,
    Dequeued,
    Event,
    ObservationAdded,
    PlanUpdated,
    Queued,
    RunFinished,
    RunStarted,
    Steered,
    TextDelta,
    ThinkingDone,
    ToolFinished,
    ToolOutputShown,
    ToolStarted,
    TurnStarted,
    UsageReported,
)
from harness9.lsp.transport import output_congested
from harness9.schema import ToolCall, ToolKind, Usage
from harness9.service.call_outcome import result_fields

if TYPE_CHECKING:  # the records are types only: nothing of them is loaded to send a message
    from harness9.protocol import progress_kinds as wire
    from harness9.protocol.shapes import (
        DecidedBy,
        Decision,
        RunError,
        RunStatus,
        WireToolCall,
    )
    from harness9.protocol.shapes import Usage as WireUsage

# At most one text_delta notification per this many seconds, so an editor gets ≤ 50 a second
# however fast the model streams; a buffered piece waits at most this long.
DELTA_INTERVAL = 0.02

Send = Callable[[dict[str, Any]], None]


def wire_arguments(arguments: str) -> Any:
    """Tool arguments for the wire: the parsed JSON, or the raw string when it is not JSON."""
    try:
        return json.loads(arguments)
    except (json.JSONDecodeError, RecursionError):
        return arguments


def wire_usage(usage: Usage) -> WireUsage:
    """Usage in the protocol's camelCase (`cachedInputTokens`: of the input tokens, those the
    service read from its prompt cache; `cacheWriteInputTokens`: those it wrote to it)."""
    return {"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens,
            "cachedInputTokens": usage.cached_input_tokens,
            "cacheWriteInputTokens": usage.cache_write_tokens}


def _tool_call(call: ToolCall, kind: ToolKind) -> WireToolCall:
    return {"id": call.unique_id, "name": call.name, "arguments": wire_arguments(call.arguments),
            "kind": kind.value}


def _run_started(event: RunStarted) -> wire.RunStarted:
    started: wire.RunStarted = {
        "kind": "run_started", "workspaceRoot": event.workspace_root,
        "provider": event.provider, "model": event.model, "maxTurns": event.max_turns,
        "toolTimeoutMs": event.tool_timeout_ms, "thinking": event.thinking,
        "stream": event.stream,
    }
    if event.reasoning_effort is not None:
        started["reasoningEffort"] = event.reasoning_effort
    return started


def _turn_started(event: TurnStarted) -> wire.TurnStarted:
    return {"kind": "turn_started", "turn": event.turn, "messages": event.messages}


def _thinking(event: ThinkingDone) -> wire.Thinking:
    return {"kind": "thinking", "turn": event.turn, "text": event.text}


def _text_delta(event: TextDelta) -> wire.TextDelta:
    return {"kind": "text_delta", "turn": event.turn, "text": event.text}


def _assistant_message(event: AssistantMessage) -> wire.AssistantMessage:
    calls = [_tool_call(call, kind) for call, kind in event.calls_with_kinds()]
    return {"kind": "assistant_message", "turn": event.turn, "text": event.text,
            "toolCalls": calls}


def _approval_requested(event: ApprovalRequested) -> wire.ApprovalRequested:
    asked: wire.ApprovalRequested = {
        "kind": "approval_requested", "turn": event.turn, "toolCallId": event.call.unique_id,
        "tool": event.call.name, "toolKind": event.tool_kind.value, "title": event.title,
        "arguments": wire_arguments(event.call.arguments),
    }
    if event.reason is not None:
        asked["reason"] = event.reason
    return asked


def _approval_resolved(event: ApprovalResolved) -> wire.ApprovalResolved:
    resolved: wire.ApprovalResolved = {
        "kind": "approval_resolved", "turn": event.turn, "toolCallId": event.call.unique_id,
        "tool": event.call.name, "decision": cast("Decision", event.decision),
        "by": cast("DecidedBy", event.by),
    }
    if event.rule is not None:
        resolved["rule"] = event.rule
    return resolved


def _tool_started(event: ToolStarted) -> wire.ToolStarted:
    started: wire.ToolStarted = {
        "kind": "tool_started", "turn": event.turn, "toolCallId": event.call.unique_id,
        "tool": event.call.name, "toolKind": event.tool_kind.value,
        "arguments": wire_arguments(event.call.arguments),
    }
    if event.sandbox is not None:
        started["sandbox"] = event.sandbox
    return started


def _tool_output(event: ToolOutputShown) -> wire.ToolOutput:
    shown: wire.ToolOutput = {"kind": "tool_output", "turn": event.turn,
                              "toolCallId": event.call.unique_id, "text": event.text}
    if event.truncated:
        shown["truncated"] = True
    return shown


def _tool_finished(event: ToolFinished) -> wire.ToolCompleted | wire.ToolFailed:
    fields = {
        "kind": "tool_failed" if event.result.is_error else "tool_completed",
        "turn": event.turn,
        "toolCallId": event.call.unique_id,
        "tool": event.call.name,
        "toolKind": event.tool_kind.value,
        "output": event.result.output,
        **result_fields(event.result),
    }
    return cast("wire.ToolCompleted | wire.ToolFailed", fields)


def _checkpoint(event: CheckpointTaken) -> wire.Checkpoint:
    return {"kind": "checkpoint", "turn": event.turn, "checkpointId": event.checkpoint_id,
            "files": [f.path for f in event.files]}


def _checkpoints_off(event: CheckpointsUnavailable) -> wire.CheckpointsOff:
    return {"kind": "checkpoints_off", "message": event.message}


def _observation(event: ObservationAdded) -> wire.Observation:
    return {"kind": "observation", "turn": event.turn,
            "toolCallIds": list(event.tool_call_ids), "messages": event.messages}


def _usage(event: UsageReported) -> wire.UsageProgress:
    call = wire_usage(event.usage)
    usage: wire.UsageProgress = {
        "kind": "usage", "turn": event.turn, "inputTokens": call["inputTokens"],
        "outputTokens": call["outputTokens"], "cachedInputTokens": event.usage.cached_input_tokens,
        "cacheWriteInputTokens": event.usage.cache_write_tokens,
        "totalInputTokens": event.total.input_tokens,
        "totalOutputTokens": event.total.output_tokens,
        "totalCachedInputTokens": event.total.cached_input_tokens,
    }
    if event.context_window:
        usage["contextTokens"] = event.usage.input_tokens
        usage["contextWindow"] = event.context_window
    if event.cost is not None:
        usage["costUsd"] = round(event.cost, 6)
    return usage


def _compacted(event: ContextCompacted) -> wire.ContextCompacted:
    return {"kind": "context_compacted", "turn": event.turn,
            "beforeTokens": event.before_tokens, "afterTokens": event.after_tokens,
            "method": cast("Literal['prune', 'summary']", event.method)}


def _steered(event: Steered) -> wire.Steered:
    return {"kind": "steered", "turn": event.turn, "text": event.text}


def _plan(event: PlanUpdated) -> wire.PlanProgress:
    return cast("wire.PlanProgress", {"kind": "plan", "turn": event.turn,
                                      **event.plan.as_dict()})


def _command(event: CommandRan) -> wire.Command:
    return {"kind": "command", "name": event.name, "arguments": event.arguments}


def _queued(event: Queued) -> wire.Queued:
    return {"kind": "queued", "queueId": event.queue_id, "position": event.position}


def _dequeued(event: Dequeued) -> wire.Dequeued:
    return {"kind": "dequeued", "queueId": event.queue_id,
            "reason": cast("Literal['started', 'removed', 'cancelled']", event.reason)}


def _run_finished(event: RunFinished) -> wire.RunFinished:
    finished: wire.RunFinished = {
        "kind": "run_finished", "status": cast("RunStatus", event.status),
        "turns": event.turns, "toolCalls": event.tool_calls, "usage": wire_usage(event.usage),
        "text": event.text,
    }
    if event.error is not None:
        finished["error"] = cast("RunError", event.error)
    return finished


# Each event sent to clients, and how it reads on the wire; other events are not sent.
_FIELDS: dict[type[Any], Callable[[Any], wire.ProgressFields]] = {
    RunStarted: _run_started, TurnStarted: _turn_started, ThinkingDone: _thinking,
    TextDelta: _text_delta, AssistantMessage: _assistant_message,
    ApprovalRequested: _approval_requested, ApprovalResolved: _approval_resolved,
    ToolStarted: _tool_started, ToolOutputShown: _tool_output, ToolFinished: _tool_finished,
    CheckpointTaken: _checkpoint, CheckpointsUnavailable: _checkpoints_off,
    ObservationAdded: _observation, UsageReported: _usage, ContextCompacted: _compacted,
    Steered: _steered, PlanUpdated: _plan, CommandRan: _command, Queued: _queued,
    Dequeued: _dequeued, RunFinished: _run_finished,
}


# What of a child agent's run its parent's progress shows: its rows, not its run's frame.
_CHILD_KINDS = frozenset({"assistant_message", "thinking", "tool_started", "tool_output",
                          "tool_completed", "tool_failed", "approval_requested",
                          "approval_resolved"})


def event_fields(event: Event) -> wire.ProgressFields | None:
    """The kind and fields of `event` on the wire, or None for events not sent to clients
    (a child agent's are its own, with `parentToolCallId` and `agent`)."""
    if isinstance(event, ChildEvent):
        fields = event_fields(event.event)
        if fields is None or fields["kind"] not in _CHILD_KINDS:
            return None
        marks = {"parentToolCallId": event.parent_call_id, "agent": event.agent}
        return cast("wire.ProgressFields", {**fields, **marks})
    shape = _FIELDS.get(type(event))
    return None if shape is None else shape(event)


class ProgressPublisher:
    """An event subscriber that sends one numbered `agent/progress` params dict per event.

    Consecutive text deltas of a turn are merged while they arrive faster than `DELTA_INTERVAL`,
    and for as long as `congested()` says the client lags behind our output (so a client that
    stops reading finds one delta, not thousands, when it reads again). Any other event first
    flushes the pending text, so the order on the wire is the engine's.
    """

    def __init__(
        self,
        send: Send,
        run_id: str,
        session_id: str,
        congested: Callable[[], bool] = output_congested,
    ) -> None:
        self._send = send
        self._congested = congested
        self._ids = {"runId": run_id, "sessionId": session_id}
        self._seq = 0
        self._pending: wire.TextDelta | None = None
        self._last_delta = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self.worktree: dict[str, str] | None = None  # a task's: added to `run_started`

    def __call__(self, event: Event) -> None:
        fields = event_fields(event)
        if fields is None:
            return
        if fields["kind"] == "text_delta":
            self._delta(fields)
            return
        self.flush()
        if fields["kind"] == "run_started" and self.worktree is not None:
            fields["worktree"] = {"path": self.worktree["path"],
                                  "branch": self.worktree["branch"]}
        self._emit(fields)

    def flush(self) -> None:
        """Send buffered text now."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._last_delta = time.monotonic()
            self._emit(pending)

    def _delta(self, fields: wire.TextDelta) -> None:
        if self._pending is not None and self._pending["turn"] == fields["turn"]:
            self._pending["text"] += fields["text"]
            # A busy loop may run the timer late while pieces keep coming: flush on arrival too.
            if time.monotonic() - self._last_delta >= DELTA_INTERVAL and not self._congested():
                self.flush()
            return
        self.flush()
        wait = self._last_delta + DELTA_INTERVAL - time.monotonic()
        if wait <= 0 and not self._congested():
            self._last_delta = time.monotonic()
            self._emit(fields)
            return
        self._pending = fields
        self._arm(wait if wait > 0 else DELTA_INTERVAL)

    def _arm(self, wait: float) -> None:
        self._timer = asyncio.get_running_loop().call_later(wait, self._on_timer)

    def _on_timer(self) -> None:
        """Send the pending text, unless the client still lags: then look again later."""
        self._timer = None
        if self._congested():
            self._arm(DELTA_INTERVAL)
        else:
            self.flush()

    def _emit(self, fields: wire.ProgressFields) -> None:
        self._seq += 1
        self._send({**self._ids, "seq": self._seq, **fields})
