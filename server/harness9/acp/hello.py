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
from dataclasses import dataclass
from typing import Any

from harness9 import __version__
from harness9.provider.endpoints import KEY_VARIABLES, URL_VARIABLES

PROTOCOL_VERSION = 1
_SERVICES = {"openai": ("OpenAI", "https://platform.openai.com/api-keys"),
             "anthropic": ("Anthropic", "https://console.anthropic.com/settings/keys")}
# Each environment-variable authentication method and the key variable it needs.
AUTH_VARIABLES = {f"{provider}-api-key": variable for provider, variable in KEY_VARIABLES.items()}


def _key_method(provider: str) -> dict[str, Any]:
    """The `env_var` method of a service: its key, and its base URL for a compatible one."""
    name, link = _SERVICES[provider]
    url = URL_VARIABLES[provider]
    return {"type": "env_var", "id": f"{provider}-api-key", "name": f"{name} API key",
            "description": f"{name} or a compatible service ({url} for another)", "link": link,
            "vars": [{"name": KEY_VARIABLES[provider], "label": "API key"},
                     {"name": url, "label": "Base URL", "secret": False, "optional": True}]}


INITIALIZE_RESULT: dict[str, Any] = {
    "protocolVersion": PROTOCOL_VERSION,
    "agentCapabilities": {
        "loadSession": True,
        # Text always; embedded resources (and resource links, read through the workspace).
        "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
        "mcpCapabilities": {"http": True, "sse": True},  # and stdio, ACP's baseline
        "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "delete": {}},
    },
    # The API keys come from the environment the client starts the agent with, or from
    # `harness9 login` run in a terminal.
    "authMethods": [
        *(_key_method(provider) for provider in KEY_VARIABLES),
        {"type": "terminal", "id": "login", "name": "Log in in a terminal",
         "description": "Store an OpenAI or Anthropic API key for harness9 (harness9 login)",
         "args": ["login"]},
    ],
    "agentInfo": {"name": "harness9", "title": "harness9", "version": __version__},
}


def request_line(line: bytes, method: str) -> dict[str, Any] | None:
    """The request `line` holds if it is a `method` request with an id (an int or a string)
    and object params, else None (the SDK answers whatever it is)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("method") != method:
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    return message if isinstance(message.get("params"), dict) else None


def well_formed_initialize(line: bytes) -> dict[str, Any] | None:
    """The request `line` holds if it is a well-formed `initialize`, else None."""
    message = request_line(line, "initialize")
    if message is None or not isinstance(message["params"].get("protocolVersion"), int):
        return None  # the SDK answers it with the right error
    return message


def early_answer(line: bytes) -> bytes | None:
    """The response line to `line` if it is a well-formed `initialize` request, else None."""
    message = well_formed_initialize(line)
    return None if message is None else _answer(message)


def _answer(request: dict[str, Any]) -> bytes:
    answer = {"jsonrpc": "2.0", "id": request["id"], "result": INITIALIZE_RESULT}
    return json.dumps(answer, separators=(",", ":")).encode() + b"\n"


@dataclass(frozen=True, slots=True)
class Hello:
    """What reading the first line left: the bytes the SDK still has to see, and the client's
    capabilities when its `initialize` was answered here (None: the SDK answers it)."""

    unread: bytes
    client_capabilities: dict[str, Any] | None = None


def answer_initialize(rpc_in: int, rpc_out: int) -> Hello:
    """Read the first line; answer it if it is `initialize`. The bytes read that the SDK must
    still see are the line itself when it was not answered, and whatever followed."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(rpc_in, 65536)
        if not chunk:
            return Hello(data)
        data += chunk
    line, _, rest = data.partition(b"\n")
    request = well_formed_initialize(line)
    if request is None:
        return Hello(data)
    view = memoryview(_answer(request))
    while view:
        view = view[os.write(rpc_out, view) :]
    capabilities = request["params"].get("clientCapabilities")
    return Hello(rest, capabilities if isinstance(capabilities, dict) else {})
