"""All sessions of one daemon: those in memory, those stored under the state directory, and the
runs in flight on them.

A session is stored under `sessions/<workspace key>/` of the state directory from its first
run on (or from its creation, when the front-end asks: ACP lists and resumes sessions at
once). A stored session is taken into memory (and its file locked) when a run, a restore or a
compaction needs it, and stays locked as long as runs hold it or wait for it (a run starting
on a new session locks its empty file); reading one for a listing or a view needs no lock.
When the state
directory cannot be written, sessions live in memory only and the reason is logged once.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness9.schema import Usage
from harness9.service.sessions import session_log
from harness9.service.sessions.session import ActiveRun, Session, new_id
from harness9.service.sessions.session_file import SessionFile, session_from
from harness9.service.sessions.session_log import (
    LoadedSession,
    SessionLocked,
    SessionLog,
    SessionMeta,
)
from harness9.service.state import private_folder, workspace_key

_log = logging.getLogger("harness9.sessions")
HELD = 32  # stored sessions a daemon keeps in memory at most; the idle rest are forgotten
# What a session keeps on disk, read again when another daemon changed it.
_STORED_FIELDS = ("history", "runs", "calls", "root", "checkpoints", "touched", "approvals",
                  "seen_files", "instructions_seen", "approval_mode", "plan", "model")
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class SessionStore:
    """Sessions in memory and on disk, and the active runs."""

    def __init__(self, state: Path | None, in_use: Callable[[str], bool] = lambda _: False,
                 ) -> None:
        """Sessions stored under `state` (None: in memory only); `in_use(session_id)` tells
        whether runs hold the session or wait for it (it is not let go meanwhile)."""
        self._in_use = in_use
        self._state = state
        self._folder = None if state is None else state / "sessions"
        self._sessions: dict[str, Session] = {}
        self._files: dict[str, SessionFile] = {}
        self._runs: dict[str, ActiveRun] = {}
        self._warned = False

    def folder(self, root: str) -> Path | None:
        """Where the sessions of workspace `root` are stored."""
        return None if self._folder is None else self._folder / workspace_key(root)

    def create(self, root: str, *, stored: bool = False) -> Session:
        """A new, empty session on workspace `root`, stored from its first save on (`stored`:
        at once, and let go, so another daemon can list and take it before its first run)."""
        session = Session(id=new_id("s"), root=root)
        folder = self.folder(root)
        if folder is not None and self._state is not None:
            try:
                private_folder(folder, self._state)
                file = self._files[session.id] = SessionFile.create(folder, session.id, root)
                if stored:
                    file.keep(session)
                    file.let_go()
            except OSError as exc:
                self._warn(exc)
        self._sessions[session.id] = session
        self._let_go()
        return session

    def get(self, session_id: str) -> Session | None:
        """The session with this id if it is in memory."""
        return self._sessions.get(session_id)

    def open(self, session_id: str) -> Session | None:
        """The session with this id, taken from disk when it is not in memory; None when there
        is none. `SessionLocked` when another daemon holds it."""
        session = self._sessions.pop(session_id, None)
        if session is not None:
            self._sessions[session_id] = session  # the most recently used last
            self.take(session)
            self.let_go_soon(session_id)
            return session
        folder = self._where(session_id)
        if folder is None or self._state is None:
            return None
        private_folder(folder, self._state)  # also what an older version made open to others
        log = SessionLog(folder, session_id)  # the lock first, then what it protects
        try:
            loaded = session_log.load(folder, session_id)
        except BaseException:
            log.close()  # whatever failed, the session must not stay locked
            raise
        if loaded.skipped:
            _log.warning("session %s: %d damaged line(s) skipped", session_id, loaded.skipped)
        file = SessionFile(log, loaded.meta or SessionMeta(session_id, ""), loaded.messages)
        session = session_from(session_id, loaded)
        self._sessions[session_id] = session
        self._files[session_id] = file
        self._let_go()
        self.let_go_soon(session_id)
        return session

    def take(self, session: Session, *, run: bool = False) -> None:
        """Hold a session this daemon let go while it was idle (a request reads it, or with
        `run` a run starts on it: then also one with nothing stored yet), bringing it up to
        date when another daemon wrote it meanwhile. `SessionLocked` while another daemon
        uses it."""
        file = self._files.get(session.id)
        loaded = None if file is None else file.take(hold=run)
        if loaded is not None:
            _log.info("session %s was continued by another daemon: read again", session.id)
            fresh = session_from(session.id, loaded)
            for name in _STORED_FIELDS:
                setattr(session, name, getattr(fresh, name))

    def let_go_soon(self, session_id: str) -> None:
        """Release the session's file once what uses it now is done, if it is idle then (no
        run holds it or waits for it, no rewrite): another daemon can take an idle session
        over. Outside an event loop (a script), it is held until `close`."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        loop.call_soon(self._let_go_if_idle, session_id)

    def _let_go_if_idle(self, session_id: str) -> None:
        session = self._sessions.get(session_id)
        file = self._files.get(session_id)
        if session is not None and file is not None and self._idle(session):
            file.let_go()

    def _idle(self, session: Session) -> bool:
        """Whether nothing of this daemon uses the session: no run, queued run or rewrite."""
        return session.active is None and session.rewriting is None \
            and not self._in_use(session.id)

    def _let_go(self) -> None:
        """Release the least recently used idle stored sessions beyond `HELD`: a daemon that
        lives for days must not hold a descriptor and a history per session it ever ran. A
        released session is read again from disk when it is needed; a session not yet on disk
        (no turn so far) is kept, since nothing could bring it back."""
        idle = [s for s in self._sessions.values()
                if s.id in self._files and self._files[s.id].written and self._idle(s)]
        for session in idle[: max(0, len(self._files) - HELD)]:
            del self._sessions[session.id]
            self._files.pop(session.id).close()

    def roots_of(self, session_id: str) -> set[str]:
        """The workspace roots a session has worked on (its first run's, its checkpoints'),
        from memory or its stored metadata, without taking it; empty for an unknown one."""
        session = self._sessions.get(session_id)
        if session is not None:
            roots = {session.root, *(c.root for c in session.checkpoints)}
        else:
            folder = self._where(session_id)
            meta = None if folder is None else session_log.read_meta(
                folder / f"{session_id}.meta.json")
            if meta is None:
                return set()
            roots = {meta.workspace_root, *(str(c.get("root", "")) for c in meta.checkpoints
                                              if isinstance(c, dict))}
        return {root for root in roots if root}

    def read(self, session_id: str) -> tuple[Session, int] | None:
        """A session to show (from memory, else read from disk without taking it: also when
        another daemon continued it) and the number of damaged lines skipped reading it."""
        session = self._sessions.get(session_id)
        file = self._files.get(session_id)
        if session is not None and (file is None or not file.outdated()):
            return session, 0
        found = self._locate(session_id)
        if found is None:
            return None
        return session_from(session_id, found[1]), found[1].skipped

    def file(self, session: Session) -> SessionFile | None:
        """The stored side of a session in memory (None: kept in memory only)."""
        return self._files.get(session.id)

    def save(self, session: Session, *, meta: bool = True) -> None:
        """Write what changed in `session` (nothing when it is not stored); `meta=False` at
        the end of a turn (see `SessionFile.save`). A save while the session is idle (after a
        restore, a model chosen) may have taken the file again: it is let go once done."""
        file = self._files.get(session.id)
        if file is not None:
            self._guarded(lambda: file.save(session, meta=meta))
            self.let_go_soon(session.id)

    def _guarded(self, write: Callable[[], None]) -> None:
        """Do a write; a failing disk costs the stored copy, never the run."""
        try:
            write()
        except OSError as exc:
            self._warn(exc)

    def note_run(self, session: Session, run: dict[str, Any], usage: Usage) -> None:
        """A run of `session` ended: note it and save."""
        session.runs.append(run)
        file = self._files.get(session.id)
        if file is not None:
            self._guarded(lambda: file.run_finished(session, run, usage))

    def note_call(self, session: Session, call_id: str, outcome: dict[str, Any]) -> None:
        """What a tool call of `session` came to: kept, and written with the turn's end."""
        session.calls[call_id] = outcome
        file = self._files.get(session.id)
        if file is not None:
            self._guarded(lambda: file.log.note("call", {"id": call_id, **outcome}))

    def note_compaction(self, session: Session, fields: dict[str, Any]) -> None:
        """`session` was compacted: save it and note how."""
        session.history_rewritten()
        file = self._files.get(session.id)
        if file is not None:
            self._guarded(lambda: file.compacted(session, fields))
        self.let_go_soon(session.id)

    def listing(self, root: str | None) -> list[SessionMeta]:
        """The stored sessions of workspace `root` (None: of every workspace), newest first."""
        if root is not None:
            folder = self.folder(root)
            return [] if folder is None else session_log.list_sessions(folder)
        if self._folder is None or not self._folder.is_dir():
            return []
        metas = [meta for folder in self._folder.iterdir() if folder.is_dir()
                 for meta in session_log.list_sessions(folder)]
        return sorted(metas, key=lambda meta: meta.updated_at, reverse=True)

    def release(self, session_id: str) -> None:
        """Let go of an idle session (its file is closed; a stored one is read again when it
        is next needed)."""
        session = self._sessions.get(session_id)
        if session is None or not self._idle(session):
            return
        del self._sessions[session_id]
        file = self._files.pop(session_id, None)
        if file is not None:
            file.close()

    def delete(self, session_id: str) -> bool:
        """Forget a session and remove its files; False when there is none. `SessionLocked`
        when another daemon holds it (a session running here is the caller's to refuse):
        then nothing is lost here either."""
        file = self._files.get(session_id)
        if file is not None:
            file.let_go()  # this daemon's own lock is no other daemon's run
        folder = self._where(session_id)
        removed = folder is not None and session_log.delete(folder, session_id)
        session = self._sessions.pop(session_id, None)
        file = self._files.pop(session_id, None)
        if file is not None:
            file.close()
        return removed or session is not None

    def close(self) -> None:
        """Release every stored session (at shutdown)."""
        for file in self._files.values():
            file.close()
        self._files.clear()

    def _where(self, session_id: str) -> Path | None:
        """The folder that stores this session, if any."""
        if self._folder is None or not _SESSION_ID.fullmatch(session_id):
            return None
        return next((p.parent for p in self._folder.glob(f"*/{session_id}.jsonl")), None)

    def _locate(self, session_id: str) -> tuple[Path, LoadedSession] | None:
        folder = self._where(session_id)
        if folder is None:
            return None
        try:
            return folder, session_log.load(folder, session_id)
        except OSError:
            return None

    def _warn(self, exc: OSError) -> None:
        if not self._warned:
            self._warned = True
            _log.warning("sessions are kept in memory only: cannot write %s: %s",
                         self._folder, exc)

    # Runs in flight.

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
        self.let_go_soon(session.id)

    def find_run(self, run_id: str | None, session_id: str | None) -> ActiveRun | None:
        """The active run with this run id, or the active run of this session."""
        if run_id is not None:
            return self._runs.get(run_id)
        session = self._sessions.get(session_id or "")
        return session.active if session is not None else None

    def active_runs(self) -> list[ActiveRun]:
        """Every run in flight."""
        return list(self._runs.values())


__all__ = ["SessionLocked", "SessionStore"]
