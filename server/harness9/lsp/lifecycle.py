"""The daemon's protocol class: the LSP lifecycle rules pygls leaves out (after `shutdown`,
requests are refused, not ignored), answers to our requests read as sent, and our capabilities
in the `initialize` answer."""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
)
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCResponseMessage
from pygls.protocol.language_server import lsp_method

from harness9.protocol.announced import ANNOUNCED_VERSION, METHODS, PROGRESS_KINDS

# `initialize`'s processId: a pid_t (0 and null: no process to end with).
MAX_PROCESS_ID = 2**31 - 1


@dataclass(frozen=True, slots=True)
class _Refused:
    """A request whose params fail a check made before pygls converts them: answered with
    -32602 and this reason, under its own id (pygls would answer -32600 with a null id, or fail
    later with -32603)."""

    msg_id: int | str
    reason: str


class LifecycleProtocol(LanguageServerProtocol):
    """pygls' protocol, but a request after `shutdown` gets -32600 instead of no answer.

    (pygls already ends with exit code 0 for an `exit` after `shutdown` and 1 without; our
    transport lets that code reach the process.)
    """

    def handle_message(self, message: Any) -> None:
        """Answer requests that arrive after `shutdown` with InvalidRequest; pass the rest on."""
        if isinstance(message, _Refused):
            refusal = JsonRpcInvalidParams(message=message.reason)
            self._send_response(message.msg_id, None, refusal.to_response_error())
            return
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        if self._shutdown and method not in (None, types.EXIT) and msg_id is not None:
            error = JsonRpcInvalidRequest(message=f"{method}: the server is shutting down")
            self._send_response(msg_id, None, error.to_response_error())
            return
        super().handle_message(message)

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A client's message as pygls' types, except answers to our own requests.

        Those stay as the client sent them, read field by field by whoever asked: lsprotocol's
        converter would turn `{"applied": "false"}` into an applied edit, and an answer it cannot
        convert would raise here and leave the request waiting forever. An error answer that
        cannot be read fails its request instead.
        """
        if not _is_answer(data):
            refused = _refused(data)
            return refused if refused is not None else super().structure_message(data)
        self._result_types.pop(data["id"], None)
        if "error" not in data:
            return JsonRPCResponseMessage(id=data["id"], jsonrpc=data["jsonrpc"],
                                          result=data.get("result"))
        try:
            return super().structure_message(data)
        except JsonRpcException:
            future = self._request_futures.pop(data["id"], None)
            if future is not None:
                future.set_exception(JsonRpcInternalError(
                    message=f"the editor's error answer could not be read: {data['error']!r}"))
            raise

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        """pygls' initialize, plus `capabilities.experimental.harness9`."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        if _is_ours(params.capabilities):
            # Our plugins run prompts with agent/run and show fixes of their own: commands and
            # code actions are for plain clients (VS Code's client would add them twice).
            result.capabilities.code_action_provider = None
            result.capabilities.execute_command_provider = None
        result.capabilities.experimental = {
            "harness9": {
                "protocolVersion": ANNOUNCED_VERSION,
                "methods": METHODS,
                "progressKinds": PROGRESS_KINDS,
                # An approval answer's `content` (the user's own text) is written.
                "approvalContent": True,
                # `agent/restore` takes `dryRun` and `files`; a restore touches only the
                # files of its own session.
                "restorePreview": True,
                # `pathMap` (client settings) translates every URI and path on the wire.
                "pathMap": True,
            }
        }
        return result


def _is_ours(capabilities: Any) -> bool:
    """Whether the client announces `experimental.harness9` (one of harness9's own clients)."""
    experimental = getattr(capabilities, "experimental", None)
    return isinstance(experimental, dict) and isinstance(experimental.get("harness9"), dict)


def _refused(data: Any) -> _Refused | None:
    """An `initialize` request whose `processId` is neither null nor a process id."""
    if not isinstance(data, dict) or data.get("method") != types.INITIALIZE:
        return None
    msg_id, params = data.get("id"), data.get("params")
    if not isinstance(msg_id, int | str) or isinstance(msg_id, bool):
        return None
    pid = params.get("processId") if isinstance(params, dict) else None
    if pid is None or (isinstance(pid, int) and not isinstance(pid, bool)
                       and 0 <= pid <= MAX_PROCESS_ID):
        return None
    shown = json.dumps(pid)
    shown = shown if len(shown) <= 40 else shown[:40] + "…"
    return _Refused(msg_id, f"processId: must be null or a process id (an integer from 0 to "
                            f"{MAX_PROCESS_ID}), got {shown}")


def _is_answer(data: Any) -> bool:
    """Whether a decoded message is a response (it has an id and no method)."""
    return isinstance(data, dict) and "jsonrpc" in data and "id" in data and "method" not in data
