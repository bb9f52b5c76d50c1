"""The JSON-RPC connection to a daemon process: LSP `Content-Length` framing over its stdio.

Small on purpose, with nothing but asyncio and json: the client starts the daemon first and
speaks to it at once, so a command that runs one prompt (`harness9 exec`, `harness9 run`) does
not spend the daemon's start-up importing an LSP library of its own. Notifications are handled
in the order they arrive; a request of the daemon's runs as a task of its own (a question to
the user may take a while), and the daemon's `$/cancelRequest` for it cancels that task.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from harness9.client.process import kill_group

ProgressHandler = Callable[[dict[str, Any]], None]
ApprovalHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
_log = logging.getLogger(__name__)
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800


class RpcError(Exception):
    """A JSON-RPC error answer: `code`, `message` and `data` as the daemon sent them."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data = data


class DaemonExited(Exception):
    """The daemon ended while a request was waiting for its answer."""

    def __init__(self, code: int) -> None:
        super().__init__(f"the harness9 daemon exited with status {code}")
        self.code = code


class DaemonClient:
    """A harness9 daemon subprocess spoken to over LSP-framed JSON-RPC on its stdin/stdout."""

    def __init__(
        self,
        on_progress: ProgressHandler,
        on_log: Callable[[str], None],
        on_approval: ApprovalHandler | None = None,
    ) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._answering: dict[Any, asyncio.Task[None]] = {}  # the daemon's requests in hand
        self._tasks: list[asyncio.Task[None]] = []
        self._on_approval = on_approval

        def log(params: dict[str, Any]) -> None:
            on_log(str(params.get("message", "")))

        self._notifications: dict[str, Callable[[dict[str, Any]], None]] = {
            "agent/progress": on_progress, "window/logMessage": log, "window/showMessage": log,
        }

    def attach(self, process: asyncio.subprocess.Process) -> None:
        """Speak to a freshly spawned daemon over its stdin/stdout."""
        assert process.stdin is not None
        assert process.stdout is not None
        self.process = process
        self._tasks += [asyncio.create_task(self._read(process.stdout)),
                        asyncio.create_task(self._exited())]

    # -- sending ---------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        if self.process is None or self.process.stdin is None:
            return
        body = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode()
        with contextlib.suppress(ConnectionError, RuntimeError):  # the daemon is gone
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def new_id(self) -> int:
        """A fresh request id, so a request can be cancelled by id."""
        self._next_id += 1
        return self._next_id

    async def request(self, method: str, params: Any, msg_id: int | None = None) -> Any:
        """Send a request and wait for its answer (a JSON-RPC error raises `RpcError`; the
        daemon's end, `DaemonExited`)."""
        msg_id = msg_id or self.new_id()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        if self.process is not None and self.process.returncode is not None:
            self._pending.pop(msg_id)
            raise DaemonExited(self.process.returncode)
        self._send({"id": msg_id, "method": method, "params": params})
        try:
            return await future
        finally:
            self._pending.pop(msg_id, None)

    def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        self._send({"method": method, "params": params})

    def cancel(self, msg_id: int) -> None:
        """Ask the daemon to cancel request `msg_id`."""
        self.notify("$/cancelRequest", {"id": msg_id})

    # -- receiving -------------------------------------------------------------------------

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        """Read messages until the daemon's stdout ends (or a frame cannot be read)."""
        while True:
            length = None
            try:
                while (line := await stdout.readline()).strip():
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if length is None:
                    return
                message = json.loads(await stdout.readexactly(length))
            except (asyncio.IncompleteReadError, ValueError, UnicodeDecodeError) as exc:
                _log.warning("cannot read the daemon's message: %s", exc)
                return
            if isinstance(message, dict):
                self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        method, msg_id = message.get("method"), message.get("id")
        if isinstance(method, str) and msg_id is not None:
            task = asyncio.create_task(self._answer(msg_id, method, message.get("params")))
            self._answering[msg_id] = task
        elif isinstance(method, str):
            self._notified(method, message.get("params"))
        elif msg_id in self._pending:
            future = self._pending[msg_id]
            if future.done():
                return
            error = message.get("error")
            if isinstance(error, dict):
                future.set_exception(RpcError(int(error.get("code", INTERNAL_ERROR)),
                                              str(error.get("message", "")), error.get("data")))
            else:
                future.set_result(message.get("result"))

    def _notified(self, method: str, params: Any) -> None:
        if method == "$/cancelRequest" and isinstance(params, dict):
            task = self._answering.get(params.get("id"))
            if task is not None:
                task.cancel()
            return
        handler = self._notifications.get(method)
        if handler is None:
            return
        try:
            handler(params if isinstance(params, dict) else {})
        except Exception:  # one bad notification must not stop the reader
            _log.exception("handling %s failed", method)

    async def _answer(self, msg_id: Any, method: str, params: Any) -> None:
        """Answer one request of the daemon's (only questions are expected)."""
        try:
            if method != "agent/requestApproval" or self._on_approval is None:
                error = {"code": METHOD_NOT_FOUND, "message": f"method not found: {method}"}
                self._send({"id": msg_id, "error": error})
                return
            result = await self._on_approval(dict(params or {}))
            self._send({"id": msg_id, "result": result})
        except asyncio.CancelledError:
            error = {"code": REQUEST_CANCELLED, "message": f"request {msg_id} was cancelled"}
            self._send({"id": msg_id, "error": error})
        except Exception as exc:
            _log.exception("answering %s failed", method)
            self._send({"id": msg_id, "error": {"code": INTERNAL_ERROR, "message": str(exc)}})
        finally:
            self._answering.pop(msg_id, None)

    async def _exited(self) -> None:
        """Fail every pending request once the daemon is gone, so no caller waits forever."""
        assert self.process is not None
        code = await self.process.wait()
        for future in list(self._pending.values()):
            if not future.done():
                future.set_exception(DaemonExited(code))

    # -- the session -----------------------------------------------------------------------

    async def initialize(self, root: Path, options: dict[str, Any]) -> Any:
        """The LSP handshake on workspace `root`."""
        uri = root.as_uri()
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": "harness9 run"},
                "rootUri": uri,
                "rootPath": str(root),
                "workspaceFolders": [{"uri": uri, "name": root.name or str(root)}],
                "capabilities": self._capabilities(),
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        return result

    def _capabilities(self) -> dict[str, Any]:
        if self._on_approval is None:
            return {}
        return {"experimental": {"harness9": {"approvalRequests": True}}}

    async def close(self, timeout: float = 5.0) -> None:
        """`shutdown` and `exit`, then wait for the daemon; kill its group if it lingers."""
        process = self.process
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.request("shutdown", None), timeout)
            with contextlib.suppress(Exception):
                self.notify("exit", None)
                assert process.stdin is not None
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), timeout)
            except TimeoutError:
                self.kill()
        for task in [*self._tasks, *self._answering.values()]:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def kill(self) -> None:
        """Kill the daemon's whole process group at once."""
        if self.process is not None:
            kill_group(self.process)
