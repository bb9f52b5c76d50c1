"""How a run that did not finish ends: its `run_finished` goes out, and its failure becomes
the service's error (`RunError`, `RunCancelled`)."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from typing import Any

from harness9.engine.events import Event, EventBus, RunFinished
from harness9.provider.provider_errors import ProviderError
from harness9.schema import Usage
from harness9.service.run_request import RunIds
from harness9.service.service_errors import RunCancelled, RunError, provider_status

_log = logging.getLogger("harness9.engine")


@dataclass(slots=True)
class Finish:
    """Notes whether `RunFinished` went out, so the service can send it when the engine did not."""

    sent: bool = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.sent = True


def ended(
    exc: BaseException, ids: RunIds, bus: EventBus, finish: Finish, root: str
) -> BaseException:
    """The error a run that did not finish raises, after its `run_finished` went out."""
    if isinstance(exc, OSError) and not os.path.isdir(root):  # it went while the run ran
        exc = RunError(f"the workspace folder no longer exists: {root}", "config")
    if isinstance(exc, RunError):
        close_run(bus, finish, "error", {"kind": exc.kind, "message": exc.message})
        exc.data.update(ids.as_data())
        return exc
    if isinstance(exc, asyncio.CancelledError):
        close_run(bus, finish, "cancelled")
        return RunCancelled(ids.run_id, ids.session_id)
    if isinstance(exc, RunCancelled):  # removed from the queue before it started
        close_run(bus, finish, "cancelled")
        return exc
    if isinstance(exc, ProviderError):
        close_run(bus, finish, "error", {"kind": exc.kind, "message": exc.message,
                                      **provider_status(exc)})
        return RunError.of_provider(exc, **ids.as_data())
    if not isinstance(exc, Exception):  # KeyboardInterrupt, SystemExit: not ours to translate
        return exc
    _log.exception("run %s failed", ids.run_id, exc_info=exc)
    message = f"internal error: {type(exc).__name__}: {exc}"
    close_run(bus, finish, "error", {"kind": "internal", "message": message})
    return RunError(message, "internal", **ids.as_data())


def close_run(
    bus: EventBus, finish: Finish, status: str, error: dict[str, Any] | None = None
) -> None:
    """Make sure `run_finished` went out (also for runs that failed before the engine ran)."""
    if not finish.sent:
        bus.emit(RunFinished(status, 0, 0, Usage(), 0, error=error))
