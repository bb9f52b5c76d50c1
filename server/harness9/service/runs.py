"""Run orchestration every front-end shares: a prompt becomes an engine run on a session.

`AgentService.run` opens (or continues) the session, registers the run so it can be cancelled,
lets the front-end wire its observers and its approver for the run's ids, builds the engine
(provider, tools, approval step), runs it, and always ends with one `RunFinished` event, also
when the run failed before the engine started. Failures come out classified (`RunError.kind`),
a cancellation as `RunCancelled`. Nothing here knows a wire protocol.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness9.engine import EventBus, RunResult
from harness9.engine.events import Event, RunFinished, Subscriber
from harness9.provider.errors import ProviderError
from harness9.schema import Usage
from harness9.service.assembly import CallTurns, build_engine
from harness9.service.sessions import Session, SessionStore, new_id
from harness9.service.settings import RunSettings
from harness9.tools.approval import Approver

_log = logging.getLogger("harness9.engine")


class RunError(Exception):
    """The run could not go on. `kind` classifies it (`auth`, `rate_limit`, `network`, `http`,
    `config`, `busy`, `internal`); `data` carries the rest (`status`, ids)."""

    def __init__(self, message: str, kind: str, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.data = data


class UnknownSession(LookupError):
    """No session of this daemon has that id."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"unknown session {session_id!r}")
        self.session_id = session_id


class RunCancelled(Exception):
    """The run was cancelled (by the user, or its front-end's request was)."""

    def __init__(self, run_id: str, session_id: str) -> None:
        super().__init__("the run was cancelled")
        self.run_id = run_id
        self.session_id = session_id


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What to run: the prompt, the session to continue (None: a new one), the workspace root
    the tools act on, and the settings after precedence."""

    prompt: str
    root: str
    settings: RunSettings
    session_id: str | None = None


@dataclass(frozen=True, slots=True)
class RunIds:
    """The ids a front-end needs before the run starts (to label its notifications)."""

    run_id: str
    session_id: str


@dataclass(frozen=True, slots=True)
class RunContext:
    """What a front-end learns before the run starts: its ids, and the turn of each call."""

    ids: RunIds
    turn_of: Callable[[str], int]


@dataclass(slots=True)
class RunWiring:
    """What a front-end plugs into one run: event subscribers and the approver (None: nobody
    can be asked, so a call that needs asking is rejected)."""

    subscribers: Sequence[Subscriber] = ()
    approver: Approver | None = None


Wire = Callable[[RunContext], Awaitable[RunWiring]]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """A finished run: its ids and the engine's result."""

    ids: RunIds
    result: RunResult


@dataclass(slots=True)
class _Finish:
    """Notes whether `RunFinished` went out, so the service can send it when the engine did not."""

    sent: bool = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.sent = True


class AgentService:
    """The sessions of one daemon and the runs on them."""

    def __init__(self) -> None:
        self.sessions = SessionStore()

    def session(self, session_id: str | None) -> Session:
        """The session to continue, or a new one; `UnknownSession`, or a `busy` `RunError`."""
        if session_id is None:
            return self.sessions.create()
        session = self.sessions.get(session_id)
        if session is None:
            raise UnknownSession(session_id)
        if session.active is not None:
            raise RunError(
                f"session {session_id} is still running {session.active.run_id}; "
                "wait for it to finish or cancel it",
                "busy",
                sessionId=session_id,
                runId=session.active.run_id,
            )
        return session

    async def run(self, request: RunRequest, wire: Wire) -> RunOutcome:
        """Run `request` in the current task (which cancelling the run cancels)."""
        session = self.session(request.session_id)
        ids = RunIds(new_id("r"), session.id)
        task: asyncio.Task[Any] = asyncio.current_task()  # type: ignore[assignment]
        active = self.sessions.start(session, ids.run_id, task)
        finish, turns = _Finish(), CallTurns()
        bus = EventBus(finish, turns)
        try:
            wiring = await wire(RunContext(ids, turns.turn_of))
            for subscriber in wiring.subscribers:
                bus.subscribe(subscriber)
            engine = build_engine(
                request.root, request.settings, session, bus, wiring.approver, turns
            )
            result = await engine.run(request.prompt, session.history)
            _close(bus, finish, result.status)
            return RunOutcome(ids, result)
        except asyncio.CancelledError:
            _close(bus, finish, "cancelled")
            raise RunCancelled(ids.run_id, ids.session_id) from None
        except ProviderError as exc:
            error = _provider_error(exc)
            _close(bus, finish, "error", error)
            raise RunError(exc.message, exc.kind, **_ids(ids), **_status(exc)) from None
        except Exception as exc:
            _log.exception("run %s failed", ids.run_id)
            message = f"internal error: {type(exc).__name__}: {exc}"
            _close(bus, finish, "error", {"kind": "internal", "message": message})
            raise RunError(message, "internal", **_ids(ids)) from None
        finally:
            self.sessions.finish(session, active)

    async def cancel(self, run_id: str | None, session_id: str | None) -> bool:
        """Cancel a run by its id or its session's; returns once it has ended (False: none)."""
        run = self.sessions.find_run(run_id, session_id)
        if run is None:
            return False
        run.task.cancel()
        # The run task's done-callbacks (a front-end writes its answer there) run before this
        # waiter wakes.
        await asyncio.wait({run.task})
        return True


def _close(
    bus: EventBus, finish: _Finish, status: str, error: dict[str, Any] | None = None
) -> None:
    """Make sure `run_finished` went out (also for runs that failed before the engine ran)."""
    if not finish.sent:
        bus.emit(RunFinished(status, 0, 0, Usage(), 0, error=error))


def _provider_error(exc: ProviderError) -> dict[str, Any]:
    return {"kind": exc.kind, "message": exc.message, **_status(exc)}


def _status(exc: ProviderError) -> dict[str, Any]:
    return {"status": exc.status} if exc.status is not None else {}


def _ids(ids: RunIds) -> dict[str, str]:
    return {"runId": ids.run_id, "sessionId": ids.session_id}
