"""`SessionDesk`: the facade's sessions (`AgentService.sessions`): made, found, listed, shown,
deleted, compacted, and the choices stored with them (approval mode, model).

A session that runs (or has runs queued) or is being rewritten (restored, compacted) is
`busy` for what would change it; so is one another daemon holds.
"""

from __future__ import annotations

from harness9.engine.compaction import Compaction
from harness9.engine.compaction import compact as compact_history
from harness9.engine.context import messages_tokens
from harness9.provider.factory import create_provider
from harness9.provider.provider_errors import ProviderError
from harness9.service.config.model_choice import ModelChoice
from harness9.service.config.providers import provider_settings
from harness9.service.config.settings import RunSettings
from harness9.service.runs.assembly import context_policy
from harness9.service.runs.planning import PLAN_MODE
from harness9.service.runs.session_turns import SessionTurns
from harness9.service.service_errors import RunError, UnknownSession, busy
from harness9.service.sessions.session import Session
from harness9.service.sessions.session_log import SessionMeta
from harness9.service.sessions.session_store import SessionLocked, SessionStore


class SessionDesk:
    """The sessions of `store`; `turns` knows which ones runs hold or wait for."""

    def __init__(self, store: SessionStore, turns: SessionTurns) -> None:
        self._store = store
        self._turns = turns

    def create(self, root: str, *, stored: bool = False) -> Session:
        """A new session on `root` (`stored`: written at once, before its first run)."""
        return self._store.create(root, stored=stored)

    def get(self, session_id: str) -> Session | None:
        """The session with this id when this daemon has it in memory."""
        return self._store.get(session_id)

    def known(self, session_id: str) -> Session:
        """The session with this id, from memory or the store (then held by this daemon);
        `UnknownSession`, or a `busy` `RunError` when another daemon holds it."""
        try:
            session = self._store.open(session_id)
        except SessionLocked as exc:
            raise busy(str(exc), sessionId=session_id) from None
        if session is None:
            raise UnknownSession(session_id)
        return session

    def idle(self, session_id: str) -> Session:
        """The session, when nothing runs on it, waits for it or rewrites it: `UnknownSession`,
        or a `busy` `RunError`."""
        session = self.known(session_id)
        holder = self._turns.holder(session_id)
        if session.active is not None or self._turns.busy(session_id):
            running = session.active.run_id if session.active is not None else holder
            raise busy(f"session {session_id} is still running {running or 'queued prompts'}; "
                       "wait for it to finish or cancel it",
                       sessionId=session_id, runId=running or "")
        if session.rewriting is not None:
            raise busy(f"session {session_id} is being {session.rewriting}; try again in a "
                       "moment", sessionId=session_id)
        return session

    def roots(self, session_id: str) -> set[str]:
        """The workspace roots a session has worked on (empty for an unknown session), for a
        front-end to keep each session to the clients of its workspaces."""
        return self._store.roots_of(session_id)

    def stored(self, root: str | None) -> list[SessionMeta]:
        """The stored sessions of workspace `root` (None: of every workspace), newest first."""
        return self._store.listing(root)

    def view(self, session_id: str) -> tuple[Session, int]:
        """A session to show (without taking it from another daemon) and the number of damaged
        lines skipped reading it; `UnknownSession`."""
        found = self._store.read(session_id)
        if found is None:
            raise UnknownSession(session_id)
        return found

    def delete(self, session_id: str) -> bool:
        """Forget a session and remove its stored copy; False for an unknown id. A `busy`
        `RunError` while it runs here or another daemon holds it."""
        session = self._store.get(session_id)
        if self._turns.busy(session_id) or (session is not None and (
                session.active is not None or session.rewriting is not None)):
            raise busy(f"session {session_id} is running or has prompts queued; cancel and "
                       "unqueue them first", sessionId=session_id)
        try:
            return self._store.delete(session_id)
        except SessionLocked as exc:
            raise busy(str(exc), sessionId=session_id) from None

    def cleared(self, root: str, replaced: str | None) -> Session:
        """A new, empty session (`/clear`) that keeps what the user chose for the one it
        replaces: its approval mode (but plan mode, which is for the task left behind) and its
        model."""
        fresh = self._store.create(root)
        if replaced is None:
            return fresh
        try:
            old = self.known(replaced)
        except (UnknownSession, RunError):  # gone, or held elsewhere: nothing to keep
            return fresh
        if old.approval_mode not in (None, PLAN_MODE):
            fresh.approval_mode = old.approval_mode
        fresh.model = old.model
        if fresh.approval_mode or fresh.model:
            self._store.save(fresh)  # as `set_approval_mode` and `set_model` store them
        return fresh

    def set_approval_mode(self, session_id: str, mode: str) -> None:
        """The approval mode of the session's next runs, stored with it (a session not stored
        yet keeps it in memory until its first turn). `UnknownSession`, or a `busy`
        `RunError` when another daemon holds it."""
        session = self.known(session_id)
        session.approval_mode = mode
        self._store.save(session)

    def set_model(self, session_id: str, choice: ModelChoice) -> None:
        """The model of the session's next runs, stored with it. `UnknownSession`, or a `busy`
        `RunError` when another daemon holds it."""
        session = self.known(session_id)
        session.model = choice
        self._store.save(session)

    async def compact(self, session_id: str, settings: RunSettings) -> Compaction:
        """Compact a session now (prune, then a summary by the session's model).
        `UnknownSession`, a `busy` `RunError`, or a classified `RunError` from the provider."""
        session = self.idle(session_id)
        session.rewriting = "compacted"
        if session.model is not None:
            settings = session.model.applied(settings)
        try:
            estimate = messages_tokens(session.history)
            provider = create_provider(provider_settings(settings))
            policy = context_policy(settings, provider.model)
            done = await compact_history(session.history, provider, policy, estimate, force=True,
                                         plan=session.plan)
        except ProviderError as exc:
            raise RunError.of_provider(exc, sessionId=session_id) from None
        finally:
            session.rewriting = None
        if done.method != "none":
            self._store.note_compaction(session, {
                "turn": 0, "method": done.method,
                "beforeTokens": done.before, "afterTokens": done.after,
            })
        return done

    def release(self, session_id: str) -> None:
        """Let a session's stored copy go (it stays stored)."""
        self._store.release(session_id)

    def close(self) -> None:
        """Release the stored sessions this daemon holds (at shutdown)."""
        self._store.close()
