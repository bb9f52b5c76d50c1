"""A session's file while this daemon holds it: what changed is written at the end of each turn.

The history is append-only on disk, but in memory it can shrink (a restore) or change in the
middle (a compaction). Each save finds the prefix the history shares with what the file holds
(`shared_prefix`), writes a cut back to it when they differ, then the new messages; a save
with the metadata (a run's end) makes it durable.
Checkpoints, "allow for this session" answers and what the stale guard knows go into the
metadata beside it.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness9.engine.call_ids import with_unique_ids
from harness9.engine.tool_pairing import pair_tool_calls
from harness9.schema import ChangedFile, Message, Plan, Usage, shared_prefix
from harness9.service.config.model_choice import ModelChoice
from harness9.service.sessions import session_log
from harness9.service.sessions.session import Session, SessionCheckpoint
from harness9.service.sessions.session_log import (
    LoadedSession,
    SessionLog,
    SessionMeta,
    Stamp,
    stamp,
    title_of,
)
from harness9.tools.approvals.policy import SessionApprovals
from harness9.workspace.seen_files import SeenFiles


class SessionFile:
    """The stored side of one session this daemon holds (and has locked)."""

    def __init__(self, log: SessionLog | Path, meta: SessionMeta, stored: list[Message]) -> None:
        # A new session's file is opened (and locked) at its first save: a client may open many
        # sessions it never prompts, and none of them may hold a descriptor or leave a file.
        self._log = log if isinstance(log, SessionLog) else None
        self._folder = log.path.parent if isinstance(log, SessionLog) else log
        self.meta = meta
        self._stored = list(stored)
        self._meta_written = bool(stored)
        self._let_go_at: Stamp | None = None  # the stored state when this daemon let it go

    @classmethod
    def create(cls, folder: Path, session_id: str, root: str) -> SessionFile:
        """A new session's file, opened when something is first written to it."""
        return cls(folder, SessionMeta(session_id, root), [])

    @property
    def log(self) -> SessionLog:
        """The session's log, opened and locked on first use (`SessionLocked`, `OSError`)."""
        return self._open()

    def _open(self) -> SessionLog:
        if self._log is None:
            self._log = SessionLog(self._folder, self.meta.session_id)
        return self._log

    def let_go(self) -> None:
        """Release the file (and its lock) while the session is idle, so another daemon can
        take the session over; what the file holds now is remembered (`changed_since`)."""
        if self._log is None:
            return
        self._log.close()
        self._log = None
        self._let_go_at = stamp(self._folder, self.meta.session_id)

    def outdated(self) -> bool:
        """Whether another daemon wrote the session since this one let it go (what is in
        memory is then out of date until `take`)."""
        return (self._let_go_at is not None
                and self._let_go_at != stamp(self._folder, self.meta.session_id))

    def take(self, *, hold: bool = False) -> LoadedSession | None:
        """Open and lock the file again after `let_go`: None when it is as this daemon left
        it, else what another daemon made of it meanwhile (what is in memory is then out of
        date). `hold`: a run starts, so a session with nothing on disk yet is locked too (its
        file made empty), for another daemon to find it in use. `SessionLocked` while another
        daemon uses it."""
        if not self._meta_written:
            if hold:  # a disk that fails here costs the stored copy (`save` says so), not the run
                with contextlib.suppress(OSError):
                    self._open()
            return None  # else its first save opens (and locks) the file
        self._open()
        outdated = self.outdated()
        self._let_go_at = None
        if not outdated:
            return None
        loaded = session_log.load(self._folder, self.meta.session_id)  # we hold the lock
        self.meta = loaded.meta or SessionMeta(self.meta.session_id, self.meta.workspace_root)
        self._stored = list(loaded.messages)
        self._meta_written = True
        return loaded

    def save(self, session: Session, *, meta: bool = True) -> None:
        """Write what changed in the session since the last save; the metadata too (and
        durably) unless `meta` is False (the end of a turn inside a run: the history is what
        must survive the daemon's crash, and the run's end writes the metadata), but always the
        first time, so that a session is listed from its first turn on."""
        history = session.history
        if not history and not self._meta_written:
            return  # nothing to keep yet: a session is listed from its first turn on
        common = shared_prefix(history, self._stored)
        if common < len(self._stored):
            self.log.cut(common)
        self.log.add(history[common:])
        self._stored = list(history)
        if not meta and self._meta_written:
            self.log.commit()
            return
        self._meta_written = True
        self.meta.checkpoints = [checkpoint_record(c) for c in session.checkpoints]
        self.meta.touched = [[root, path] for root, path in session.touched]
        self.meta.approvals = {
            "tools": sorted(session.approvals.tools),
            "commands": sorted(session.approvals.commands),
            "outside": sorted(session.approvals.outside),
        }
        self.meta.seen_files = session.seen_files.known()
        self.meta.instructions_seen = sorted(session.instructions_seen)
        self.meta.approval_mode = session.approval_mode
        self.meta.plan = session.plan.as_dict() if session.plan is not None else None
        self.meta.model = session.model.as_wire() if session.model is not None else None
        self.log.commit(self.meta)

    def keep(self, session: Session) -> None:
        """Store a session that has no turn yet: listed, and loadable by another daemon, from
        its creation on."""
        self._meta_written = True
        try:
            self.save(session)
        except BaseException:
            self._meta_written = False  # nothing is on disk to read back
            raise

    @property
    def written(self) -> bool:
        """Whether the session is on disk (it can be read back from there)."""
        return self._meta_written

    def run_finished(self, session: Session, run: dict[str, Any], usage: Usage) -> None:
        """Note a finished run and save."""
        self.log.note("run", run)
        meta = self.meta
        meta.title = meta.title or title_of(str(run.get("prompt", "")))
        meta.runs += 1
        meta.turns += int(run.get("turns", 0))
        meta.input_tokens += usage.input_tokens
        meta.output_tokens += usage.output_tokens
        self.save(session)

    def compacted(self, session: Session, fields: dict[str, Any]) -> None:
        """Note a compaction and save the history it rewrote (one write, one fsync)."""
        self.log.note("compaction", {**fields, "at": time.time()})
        self.save(session)

    def close(self) -> None:
        """Release the session (what is queued is written first)."""
        if self._log is not None:
            self._log.close()


def checkpoint_record(checkpoint: SessionCheckpoint) -> dict[str, Any]:
    """A checkpoint as the metadata keeps it."""
    return {
        "checkpointId": checkpoint.checkpoint_id,
        "runId": checkpoint.run_id,
        "turn": checkpoint.turn,
        "createdAt": checkpoint.created_at,
        "files": [[f.path, f.status] for f in checkpoint.files],
        "historyLen": checkpoint.history_len,
        "root": checkpoint.root,
        "undoes": checkpoint.undoes,
        "touchedLen": checkpoint.touched_len,
    }


def checkpoint_from(record: dict[str, Any]) -> SessionCheckpoint:
    """A stored checkpoint back; `KeyError`/`TypeError`/`ValueError` when damaged."""
    return SessionCheckpoint(
        checkpoint_id=str(record["checkpointId"]),
        run_id=str(record["runId"]),
        turn=int(record["turn"]),
        created_at=float(record["createdAt"]),
        files=tuple(ChangedFile(str(p), str(s)) for p, s in record["files"]),
        history_len=int(record["historyLen"]),
        root=str(record["root"]),
        undoes=None if record.get("undoes") is None else str(record["undoes"]),
        touched_len=None if record.get("touchedLen") is None else int(record["touchedLen"]),
    )


def session_from(session_id: str, loaded: LoadedSession) -> Session:
    """The in-memory session of a stored one."""
    meta = loaded.meta
    session = Session(id=session_id, history=list(loaded.messages), runs=list(loaded.runs),
                      calls=dict(loaded.calls))
    pair_tool_calls(session.history)  # stored by a run stopped half way, or cut by hand
    with_unique_ids(session.history)  # stored before the unique ids were kept
    if meta is None:
        return session
    session.root = meta.workspace_root
    for record in meta.checkpoints:
        try:
            session.checkpoints.append(checkpoint_from(record))
        except (KeyError, TypeError, ValueError):
            continue  # a damaged entry only loses that checkpoint
    _load_touched(session, meta.touched)
    session.approvals = SessionApprovals(
        set(meta.approvals.get("tools", [])), set(meta.approvals.get("commands", [])),
        set(meta.approvals.get("outside", [])),
    )
    if isinstance(meta.seen_files, dict):  # a damaged entry only costs the model a read
        session.seen_files = SeenFiles(
            {str(k): str(v) for k, v in meta.seen_files.items() if isinstance(v, str)}
        )
    if isinstance(meta.instructions_seen, list):
        session.instructions_seen = {str(p) for p in meta.instructions_seen}
    if isinstance(meta.approval_mode, str):
        session.approval_mode = meta.approval_mode
    session.plan = Plan.from_dict(meta.plan)
    session.model = ModelChoice.from_wire(meta.model)
    return session



def _load_touched(session: Session, records: Any) -> None:
    """The files a stored session's calls changed. When the list is damaged (or does not
    match its checkpoints), a restore puts back the files its checkpoints name instead."""
    pairs = records if isinstance(records, list) else []
    if all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
           for p in pairs) and all((c.touched_len or 0) <= len(pairs)
                                   for c in session.checkpoints):
        session.touched = [(root, path) for root, path in pairs]
        return
    session.checkpoints = [replace(c, touched_len=None) for c in session.checkpoints]
