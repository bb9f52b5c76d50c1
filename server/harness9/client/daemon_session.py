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
        self.cancel: Callable[[], None] | None = None  # set while a run is in flight
        self.count = 0
        self.on_idle: Callable[[], None] | None = None

    def __call__(self) -> None:
        self.count += 1
        if self.count == 1 and self.cancel is not None:
            self.cancel()
            self.view().cancelling()
        elif self.cancel is None and self.on_idle is not None:
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
    msg_id = client.new_id()
    ctrl_c.cancel, ctrl_c.count = (lambda: client.cancel(msg_id)), 0
    try:
        result, failed = await _guard(ctrl_c, client.request("agent/run", params, msg_id))
    finally:
        ctrl_c.cancel = None
    return failed or _result_outcome(result)


async def _guard(ctrl_c: CtrlC, call: Awaitable[Any]) -> tuple[Any, Outcome | None]:
    """Await a request: its answer, or the Outcome its failure means."""
    from harness9.client.rpc import DaemonExited, RpcError

    try:
        return await call, None
    except (RpcError, DaemonExited) as exc:
        return None, request_failure(exc, ctrl_c)


def finished_outcome(params: dict[str, Any], command: str | None = None) -> Outcome:
    """How a run ended, from its `run_finished` notification (a run the client did not start
    itself, such as a steer that became the next prompt, has no `agent/run` answer); `command`
    is the slash command the daemon ran as the run (its `command` notification), as the
    `agent/run` answer would name it."""
    status = str(params.get("status", "completed"))
    keys = ("runId", "sessionId", "turns", "toolCalls", "usage", "text")
    result = {key: params[key] for key in keys if key in params}
    if command:
        result["command"] = command
    error, failed = params.get("error"), None
    if status == "error":
        details = error if isinstance(error, dict) else {"message": str(error or "the run failed")}
        data = {k: details[k] for k in ("kind", "status", "model") if details.get(k)} or None
        failed = _error(-32803, str(details.get("message", "the run failed")), data)
    return Outcome(status, result=result, error=failed)


def request_failure(exc: Exception, ctrl_c: CtrlC) -> Outcome:
    """The Outcome a failed request means (a JSON-RPC error, or the daemon gone)."""
    from harness9.client.rpc import RpcError

    if isinstance(exc, RpcError):
        status = "cancelled" if exc.code == REQUEST_CANCELLED else "error"
        return Outcome(status, error=_error(exc.code, exc.message, exc.data))
    if ctrl_c.count:
        message = "cancelled: the daemon was stopped at once (Ctrl-C)"
        return Outcome("cancelled", error=_error(REQUEST_CANCELLED, message, None))
    return Outcome("error", error=_error(-32803, str(exc), {"kind": "internal"}))


def _result_outcome(result: Any) -> Outcome:
    if not isinstance(result, dict):
        message = f"unexpected agent/run result: {result!r}"
        return Outcome("error", error=_error(-32603, message, None))
    return Outcome(str(result.get("status", "completed")), result=result)


def _error(code: int, message: str, data: Any) -> dict[str, Any]:
    return {"code": code, "message": message, "data": data}
