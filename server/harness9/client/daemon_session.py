"""One conversation with the daemon: `initialize`, then `agent/run` calls, each an Outcome.

Ctrl-C while a run is in flight sends `$/cancelRequest` and waits for the daemon's `-32800`
answer; a second Ctrl-C, or one while nothing runs, kills the daemon's process group at once
(its own reaper then ends its tools' processes). At an interactive prompt it ends the session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from harness9.client.outcome import Outcome, View
from harness9.client.run_config import RunOptions

if TYPE_CHECKING:
    from harness9.client.rpc import DaemonClient

REQUEST_CANCELLED = -32800


class CtrlC:
    """The SIGINT handler: cancel the run in flight, else stop."""

    def __init__(self, client: DaemonClient, view: Callable[[], View]) -> None:
        self.client = client
        self.view = view
        self.run_id: int | None = None
        self.count = 0
        self.on_idle: Callable[[], None] | None = None

    def __call__(self) -> None:
        self.count += 1
        if self.count == 1 and self.run_id is not None:
            self.client.cancel(self.run_id)
            self.view().cancelling()
        elif self.run_id is None and self.on_idle is not None:
            self.on_idle()
        else:
            self.client.kill()


async def initialize(
    client: DaemonClient, options: RunOptions, ctrl_c: CtrlC
) -> tuple[Any, Outcome | None]:
    """The LSP handshake: the `initialize` result, or an Outcome when it failed."""
    return await _guard(ctrl_c, client.initialize(options.workspace, options.init_options))


async def run_once(client: DaemonClient, params: dict[str, Any], ctrl_c: CtrlC) -> Outcome:
    """One `agent/run`, with Ctrl-C wired to cancel it."""
    ctrl_c.run_id, ctrl_c.count = client.new_id(), 0
    try:
        result, failed = await _guard(ctrl_c, client.request("agent/run", params, ctrl_c.run_id))
    finally:
        ctrl_c.run_id = None
    return failed or _result_outcome(result)


async def _guard(ctrl_c: CtrlC, call: Awaitable[Any]) -> tuple[Any, Outcome | None]:
    """Await a request: its answer, or the Outcome its failure means."""
    from pygls.exceptions import JsonRpcException

    from harness9.client.rpc import DaemonExited

    try:
        return await call, None
    except JsonRpcException as exc:
        status = "cancelled" if exc.code == REQUEST_CANCELLED else "error"
        return None, Outcome(status, error=_error(exc.code, exc.message, exc.data))
    except DaemonExited as exc:
        if ctrl_c.count:
            message = "cancelled: the daemon was stopped at once (Ctrl-C)"
            return None, Outcome("cancelled", error=_error(REQUEST_CANCELLED, message, None))
        return None, Outcome("error", error=_error(-32803, str(exc), {"kind": "internal"}))


def _result_outcome(result: Any) -> Outcome:
    if not isinstance(result, dict):
        message = f"unexpected agent/run result: {result!r}"
        return Outcome("error", error=_error(-32603, message, None))
    return Outcome(str(result.get("status", "completed")), result=result)


def _error(code: int, message: str, data: Any) -> dict[str, Any]:
    return {"code": code, "message": message, "data": data}
