"""Keeps a session's stored copy in step with a run: a subscriber on the run's events."""

from __future__ import annotations

import time
from typing import Any

from harness9.engine.events import (
    ApprovalRequested,
    ApprovalResolved,
    AssistantMessage,
    ChildEvent,
    ContextCompacted,
    Event,
    ObservationAdded,
    PlanUpdated,
    RunFinished,
    ToolFinished,
    ToolStarted,
    UsageReported,
)
from harness9.schema import Message, Role, ToolKind, ToolResult
from harness9.service.call_outcome import outcome
from harness9.service.sessions.session import Session
from harness9.service.sessions.session_log import message_record, title_of
from harness9.service.sessions.session_store import SessionStore


class CallNotes:
    """What the calls of one run (the parent's, or a task's child's) came to, as they end:
    the approval that decided each, whether it began and whether its user was asked, and its
    tool's kind as shown live; `outcomes` keeps (by wire id) those of the calls `take` saw end."""

    def __init__(self) -> None:
        self._approvals: dict[str, ApprovalResolved] = {}
        self._started: set[str] = set()  # the calls that began to run
        self._asked: set[str] = set()  # the calls the user was asked about
        self._kinds: dict[str, ToolKind] = {}  # the kind of each call's tool, as shown live
        self.outcomes: dict[str, dict[str, Any]] = {}

    def take(self, event: Event) -> None:
        """Note what `event` tells of a call (a call's end: its outcome)."""
        match event:
            case AssistantMessage():
                for call, kind in event.calls_with_kinds():
                    self._kinds[call.unique_id] = kind
            case ApprovalRequested():
                self._asked.add(event.call.unique_id)
            case ApprovalResolved():
                self._approvals[event.call.unique_id] = event
            case ToolStarted():
                self._started.add(event.call.unique_id)
            case ToolFinished():
                self.outcomes[event.call.unique_id] = self.finished(event)

    def finished(self, event: ToolFinished) -> dict[str, Any]:
        """The outcome of the call `event` ended."""
        call_id = event.call.unique_id
        record = outcome(
            event, self._approvals.pop(call_id, None), call_id in self._started,
            call_id in self._asked, self._kinds.pop(call_id, None))
        self._started.discard(call_id)
        self._asked.discard(call_id)
        return record


class SessionRecorder:
    """Saves the session at the end of every turn (the history then pairs every tool call
    with its result) and with each new plan, notes what each tool call came to (its tool's
    kind, the files it changed) and each compaction, and notes the run when it ends."""

    def __init__(
        self, store: SessionStore, session: Session, run_id: str, prompt: str, root: str
    ) -> None:
        self._store = store
        self._session = session
        self._root = root
        self._run: dict[str, Any] = {"runId": run_id, "prompt": prompt, "startedAt": time.time()}
        self._calls = CallNotes()
        self._children: dict[str, CallNotes] = {}  # a task's child's calls, by the task call
        self._cost: float | None = None
        file = store.file(session)
        if file is not None and not file.meta.title:
            file.meta.title = title_of(prompt)

    def __call__(self, event: Event) -> None:
        match event:
            case ChildEvent():
                self._children.setdefault(event.parent_call_id, CallNotes()).take(event.event)
            case ToolFinished():
                call_id = event.call.unique_id
                child = self._children.pop(call_id, None)
                record = _with_transcript(self._calls.finished(event), event, child)
                self._store.note_call(self._session, call_id, record)
                self._session.note_touched(self._root, _changed_paths(event.result))
            case ObservationAdded():
                self._store.save(self._session, meta=False)
            case PlanUpdated():
                self._session.plan = event.plan
                self._store.save(self._session)
            case UsageReported():
                self._cost = event.cost
                file = self._store.file(self._session)
                if file is not None:
                    file.meta.context_tokens = event.usage.input_tokens
            case ContextCompacted():
                self._store.note_compaction(self._session, {
                    "turn": event.turn, "method": event.method,
                    "beforeTokens": event.before_tokens, "afterTokens": event.after_tokens,
                })
            case RunFinished():
                self._finished(event)
            case _:
                self._calls.take(event)

    def _finished(self, event: RunFinished) -> None:
        run = {**self._run, "status": event.status, "turns": event.turns,
               "toolCalls": event.tool_calls}
        if self._cost is not None:
            run["costUsd"] = round(self._cost, 6)
        self._store.note_run(self._session, run, event.usage)


def _changed_paths(result: ToolResult) -> list[str]:
    """The workspace files a call changed: a file tool's file, what a command changed."""
    paths = [result.edit.path] if result.edit is not None else []
    if result.changes is not None:
        paths += [f.path for f in result.changes.files]
    return paths


def _with_transcript(record: dict[str, Any], finished: ToolFinished,
                     calls: CallNotes | None) -> dict[str, Any]:
    """A task call's outcome with its child's whole conversation (`transcript`, its system
    prompt left out), each of the child's calls with its own `outcome` (`calls` noted them as
    they ended), kept with the session and shown again with it as it was live."""
    child = finished.result.child
    if child is not None:
        outcomes = calls.outcomes if calls is not None else {}
        record["transcript"] = [_child_record(m, child.kinds or {}, outcomes)
                                for m in child.messages if m.role is not Role.SYSTEM]
    return record


def _child_record(message: Message, kinds: dict[str, str],
                  outcomes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A child's message as its session keeps it, each call with its tool's kind and, when it
    ended, its outcome (the kind is the call's own field, as in `agent/session`)."""
    record = message_record(message)
    for call, shown in zip(message.tool_calls, record.get("toolCalls", ()), strict=True):
        shown["kind"] = kinds.get(call.unique_id, ToolKind.OTHER.value)
        found = outcomes.get(call.unique_id)
        if found is not None:
            shown["outcome"] = {k: v for k, v in found.items() if k != "kind"}
    return record
