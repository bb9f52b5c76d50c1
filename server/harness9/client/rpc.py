"""The JSON-RPC connection to a daemon process: pygls' client, with plain-dict params."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from cattrs import Converter
from pygls.client import JsonRPCClient
from pygls.io_ import run_async
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)

from harness9.client.process import kill_group

ProgressHandler = Callable[[dict[str, Any]], None]
ApprovalHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
_log = logging.getLogger(__name__)


def plain_dict_converter() -> Converter:
    """pygls' converter, but custom params and results stay plain dicts (not namedtuples)."""
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    for cls in (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage):
        converter.register_structure_hook(cls, lambda obj, t: t(**obj))
    return converter


class DaemonClient(JsonRPCClient):
    """A harness9 daemon subprocess spoken to over LSP-framed JSON-RPC on its stdin/stdout."""

    def __init__(
        self,
        on_progress: ProgressHandler,
        on_log: Callable[[str], None],
        on_approval: ApprovalHandler | None = None,
    ) -> None:
        super().__init__(converter_factory=plain_dict_converter)
        self.process: asyncio.subprocess.Process | None = None
        self._next_id = 0
        self._answers_approvals = on_approval is not None
        if on_approval is not None:

            async def answer(params: Any) -> dict[str, Any]:  # pygls awaits coroutine functions
                return await on_approval(dict(params))

            self.feature("agent/requestApproval")(answer)
        # pygls tags each handler with attributes, so each gets a function of its own.
        self.feature("agent/progress")(lambda params: on_progress(params))
        self.feature("window/logMessage")(lambda params: on_log(str(params.get("message", ""))))
        self.feature("window/showMessage")(lambda params: on_log(str(params.get("message", ""))))

    def attach(self, process: asyncio.subprocess.Process) -> None:
        """Speak to a freshly spawned daemon over its stdin/stdout."""
        assert process.stdin is not None
        assert process.stdout is not None
        self.protocol.set_writer(process.stdin)
        reader = run_async(
            stop_event=self._stop_event,
            reader=process.stdout,
            protocol=self.protocol,
            logger=_log,
            error_handler=self.report_server_error,
        )
        self._async_tasks.extend([asyncio.create_task(reader), asyncio.create_task(self._exited())])
        self.process = process
        self._server = process

    async def _exited(self) -> None:
        """Fail every pending request once the daemon is gone, so no caller waits forever."""
        assert self.process is not None
        code = await self.process.wait()
        for msg_id, future in list(self.protocol._request_futures.items()):
            if not future.done():
                future.set_exception(DaemonExited(code))
                self.protocol._request_futures.pop(msg_id, None)
        self._stop_event.set()

    def new_id(self) -> int:
        """A fresh request id, so a request can be cancelled by id."""
        self._next_id += 1
        return self._next_id

    async def request(self, method: str, params: Any, msg_id: int | None = None) -> Any:
        """Send a request and wait for its answer (a JSON-RPC error raises `JsonRpcException`)."""
        msg_id = msg_id or self.new_id()
        return await self.protocol.send_request_async(method, params, msg_id=msg_id)

    def cancel(self, msg_id: int) -> None:
        """Ask the daemon to cancel request `msg_id`."""
        self.protocol.notify("$/cancelRequest", {"id": msg_id})

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
        self.protocol.notify("initialized", {})
        return result

    def _capabilities(self) -> dict[str, Any]:
        if not self._answers_approvals:
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
                self.protocol.notify("exit", None)
                assert process.stdin is not None
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), timeout)
            except TimeoutError:
                self.kill()
        await self.stop()  # type: ignore[no-untyped-call]

    def kill(self) -> None:
        """Kill the daemon's whole process group at once."""
        if self.process is not None:
            kill_group(self.process)


class DaemonExited(Exception):
    """The daemon ended while a request was waiting for its answer."""

    def __init__(self, code: int) -> None:
        super().__init__(f"the harness9 daemon exited with status {code}")
        self.code = code
