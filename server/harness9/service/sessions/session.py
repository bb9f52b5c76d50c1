"""A conversation kept by the daemon, and the runs in flight on it."""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from harness9.schema import ChangedFile, Message, Plan, ToolCall, ToolKind
from harness9.service.config.model_choice import ModelChoice
from harness9.tools.approvals.policy import SessionApprovals
from harness9.workspace.seen_files import SeenFiles


def iso_time(seconds: float) -> str:
    """A Unix time as ISO 8601 in UTC, to the millisecond: `2026-04-29T15:11:30.123Z`."""
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def run_cost(run: dict[str, Any]) -> float | None:
    """What a stored run cost in US dollars; None when it has no cost, or none that JSON can
    carry (a record written with an infinite cost)."""
    cost = run.get("costUsd")
    if isinstance(cost, bool) or not isinstance(cost, int | float) or not math.isfinite(cost):
        return None
    return float(cost)


def new_id(prefix: str) -> str:
    """A fresh id such as `r-3f2a…` (run) or `s-91c0…` (session)."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


@dataclass(slots=True)
class ActiveRun:
    """A run in flight: its task (to cancel) and an event set once its answer is written."""

    run_id: str
    session_id: str
    task: asyncio.Task[object]
    answered: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(frozen=True, slots=True)
class SessionCheckpoint:
    """A checkpoint of a session: where it was taken, what changed since the one before, and
    the history length a restore cuts back to."""

    checkpoint_id: str
    run_id: str
    turn: int
    created_at: float
    files: tuple[ChangedFile, ...]
    history_len: int
    root: str
    undoes: str | None = None  # set on the checkpoint a restore took of what it replaced
    # How many entries `Session.touched` had when it was taken: a restore to it puts back the
    # files of the entries after (None: kept by a version that did not count them).
    touched_len: int | None = None


@dataclass(slots=True)
class Session:
    """One conversation: its history goes back to the model on every run, and what the user
    allowed "for this session" holds for all its runs."""

    id: str
    history: list[Message] = field(default_factory=list)
    active: ActiveRun | None = None
    approvals: SessionApprovals = field(default_factory=SessionApprovals)
    checkpoints: list[SessionCheckpoint] = field(default_factory=list)
    # What is rewriting the history now ("restored to a checkpoint", "compacted"): no run
    # may start meanwhile.
    rewriting: str | None = None
    root: str = ""  # the workspace root of its first run
    runs: list[dict[str, Any]] = field(default_factory=list)  # finished runs, oldest first
    seen_files: SeenFiles = field(default_factory=SeenFiles)  # what it read or wrote (stale guard)
    instructions_seen: set[str] = field(default_factory=set)  # nested AGENTS.md already added
    # The approval mode a client chose for this session alone (ACP's session modes); None:
    # the settings' mode.
    approval_mode: str | None = None
    plan: Plan | None = None  # the model's latest plan (update_plan)
    model: ModelChoice | None = None  # chosen for this session (None: the settings' model)
    # What each tool call came to, by its wire id (see `call_outcome.outcome`): what a chat
    # shown again needs beyond the history (an edit's diff, an approval, why a call failed).
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The files its tool calls changed, as (workspace root, relative path), oldest first: the
    # files a restore may touch (never another session's, nor ones only the user edited).
    touched: list[tuple[str, str]] = field(default_factory=list)

    def cost(self) -> float:
        """What the session's finished runs cost, in US dollars (runs of models without known
        prices count nothing)."""
        return sum(run_cost(run) or 0.0 for run in self.runs)

    def history_rewritten(self) -> None:
        """The history was cut back (a restore) or summarized (a compaction): the nested
        instructions it held may be gone, so each is added again when a tool next reaches it."""
        self.instructions_seen.clear()

    def note_touched(self, root: str, paths: Sequence[str]) -> None:
        """Its call changed `paths` of workspace `root` (each is listed once after the newest
        checkpoint, which is all a restore needs to know)."""
        newest = self.checkpoints[-1].touched_len if self.checkpoints else None
        recent = set(self.touched[newest or 0:])
        for path in paths:
            if (root, path) not in recent:
                recent.add((root, path))
                self.touched.append((root, path))

    def call_kind(self, call: ToolCall) -> ToolKind:
        """The kind of a call's tool as it ran (kept with what the call came to); for a call
        kept without one (an older session, a run stopped mid-call), its built-in tool's."""
        from harness9.tools.defaults import builtin_kind  # the tools load on first use

        kept = self.calls.get(call.unique_id, {}).get("kind")
        try:
            return ToolKind(str(kept))
        except ValueError:  # none kept, or a kind this version does not know
            return builtin_kind(call.name)

    def checkpoint(self, checkpoint_id: str) -> SessionCheckpoint | None:
        """This session's checkpoint with that id."""
        return next((c for c in self.checkpoints if c.checkpoint_id == checkpoint_id), None)
