"""The `initialize` answer, and answering it before the ACP SDK has loaded.

Loading the SDK (its pydantic models) takes most of a second; the client's first request is
`initialize`, whose answer is fixed. `harness9 acp` therefore reads the first line itself and,
when it is `initialize`, answers from `INITIALIZE_RESULT` at once while the SDK loads in a
thread; every later message (or a first one that is not a well-formed `initialize`) goes to the
SDK. The SDK-side `initialize` handler answers from the same dict.
"""

from __future__ import annotations

import json
import os
from typing import Any

from harness9 import __version__

PROTOCOL_VERSION = 1

INITIALIZE_RESULT: dict[str, Any] = {
    "protocolVersion": PROTOCOL_VERSION,
    "agentCapabilities": {
        "loadSession": True,
        # Text always; embedded resources (and resource links, read through the workspace).
        "promptCapabilities": {"image": False, "audio": False, "embeddedContext": True},
        "mcpCapabilities": {"http": False, "sse": False},  # stdio, ACP's baseline
        "sessionCapabilities": {"list": {}},
    },
    "authMethods": [],
    "agentInfo": {"name": "harness9", "title": "harness9", "version": __version__},
}


def early_answer(line: bytes) -> bytes | None:
    """The response line to `line` if it is a well-formed `initialize` request, else None."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params, request_id = message.get("params"), message.get("id")
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), int):
        return None  # the SDK answers it with the right error
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    answer = {"jsonrpc": "2.0", "id": request_id, "result": INITIALIZE_RESULT}
    return json.dumps(answer, separators=(",", ":")).encode() + b"\n"


def answer_initialize(rpc_in: int, rpc_out: int) -> bytes:
    """Read the first line; answer it if it is `initialize`. Returns the bytes read that the
    SDK still has to see (the line itself when it was not answered, and whatever followed)."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(rpc_in, 65536)
        if not chunk:
            return data
        data += chunk
    line, _, rest = data.partition(b"\n")
    answer = early_answer(line)
    if answer is None:
        return data
    view = memoryview(answer)
    while view:
        view = view[os.write(rpc_out, view) :]
    return rest
