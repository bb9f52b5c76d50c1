"""Conversations kept by the daemon, and the runs in flight on them."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field

from harness9.schema import ChangedFile, Message
from harness9.tools.approval_policy import SessionApprovals


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


@dataclass(slots=True)
class Session:
    """One conversation: its history goes back to the model on every run, and what the user
    allowed "for this session" holds for all its runs."""

    id: str
    history: list[Message] = field(default_factory=list)
    active: ActiveRun | None = None
    approvals: SessionApprovals = field(default_factory=SessionApprovals)
    checkpoints: list[SessionCheckpoint] = field(default_factory=list)
    restoring: bool = False  # a restore is under way: no run may start
    instructions_seen: set[str] = field(default_factory=set)  # nested AGENTS.md already added

    def checkpoint(self, checkpoint_id: str) -> SessionCheckpoint | None:
        """This session's checkpoint with that id."""
        return next((c for c in self.checkpoints if c.checkpoint_id == checkpoint_id), None)


class SessionStore:
    """All sessions and active runs of one daemon."""

    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}
        self._runs: dict[str, ActiveRun] = {}

    def create(self) -> Session:
        """A new, empty session."""
        session = Session(id=new_id("s"))
        self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> Session | None:
        """The session with this id, if the daemon knows it."""
        return self._sessions.get(session_id)

    def start(self, session: Session, run_id: str, task: asyncio.Task[object]) -> ActiveRun:
        """Mark `session` busy with a new run."""
        run = ActiveRun(run_id=run_id, session_id=session.id, task=task)
        session.active = run
        self._runs[run_id] = run
        return run

    def finish(self, session: Session, run: ActiveRun) -> None:
        """The run's answer is written: the session takes its next prompt."""
        self._runs.pop(run.run_id, None)
        if session.active is run:
            session.active = None
        run.answered.set()

    def find_run(self, run_id: str | None, session_id: str | None) -> ActiveRun | None:
        """The active run with this run id, or the active run of this session."""
        if run_id is not None:
            return self._runs.get(run_id)
        session = self._sessions.get(session_id or "")
        return session.active if session is not None else None

    def active_runs(self) -> list[ActiveRun]:
        """Every run in flight."""
        return list(self._runs.values())
