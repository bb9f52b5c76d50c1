"""Answering a client's first `session/new` before the ACP SDK has loaded.

A client starts an agent, sends `initialize` (answered by `hello`), then `session/new`, and
shows nothing until that answer comes. The SDK's schema takes most of a second to import, the
service a fraction of that: when the message after `initialize` is a plain `session/new` (an
absolute folder that exists, no MCP servers of its own), the session is made on the service and
answered here; the agent adopts both once the SDK is up. Anything else (another method, MCP
servers to start, a `cwd` the SDK must refuse with its own error) goes to the SDK unread.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness9.acp import session_wire
from harness9.acp.hello import request_line

if TYPE_CHECKING:
    from harness9.service.agent_service import AgentService

_log = logging.getLogger("harness9.acp")


@dataclass(frozen=True, slots=True)
class EarlySession:
    """A session made and answered before the SDK loaded: its service, id, root, and the mode
    its answer gave."""

    service: AgentService
    session_id: str
    root: str
    mode: str


def plain_new_session(line: bytes) -> dict[str, Any] | None:
    """The request `line` holds if it is a `session/new` that can be answered early."""
    message = request_line(line, "session/new")
    if message is None or message["params"].get("mcpServers") != []:
        return None
    cwd = message["params"].get("cwd")
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        return None
    return message


def answer_new_session(
    rpc_in: int, rpc_out: int, unread: bytes, settings: dict[str, Any]
) -> tuple[bytes, EarlySession | None]:
    """Read up to the next line (after `unread`); answer it when it is a plain `session/new`.
    Returns the bytes the SDK must still see, and the session when one was answered."""
    data = unread
    while b"\n" not in data:
        chunk = os.read(rpc_in, 65536)
        if not chunk:
            return data, None
        data += chunk
    line, _, rest = data.partition(b"\n")
    request = plain_new_session(line)
    if request is None:
        return data, None
    try:
        early, result = _new_session(request["params"]["cwd"], settings)
    except Exception:  # the SDK answers it instead, with whatever error it meets
        _log.exception("session/new could not be answered before the ACP SDK loaded")
        return data, None
    _log.debug("session/new answered before the ACP SDK loaded: %s", early.session_id)
    answer = {"jsonrpc": "2.0", "id": request["id"], "result": result}
    view = memoryview(json.dumps(answer, separators=(",", ":")).encode() + b"\n")
    while view:
        view = view[os.write(rpc_out, view):]
    return rest, early


def _new_session(root: str, settings: dict[str, Any]) -> tuple[EarlySession, dict[str, Any]]:
    """A new session on `root` (stored at once, as the agent's are), and the `session/new`
    result that announces it."""
    from harness9.service.agent_service import AgentService
    from harness9.service.config.models import current_model
    from harness9.service.config.settings import from_environment, resolve

    service = AgentService()
    session = service.sessions.create(root, stored=True)
    resolved = resolve(from_environment(os.environ), settings)
    current = current_model(resolved, session.model)
    mode = session_wire.default_mode(resolved)
    result = {
        "sessionId": session.id,
        "modes": session_wire.mode_state(mode),
        "configOptions": session_wire.config_options(service.models.known(resolved), current),
    }
    return EarlySession(service, session.id, root, mode), result
