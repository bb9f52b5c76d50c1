"""Every message a test client sees, checked against the protocol's JSON Schema.

`WireChecker` is given what the daemon sent: `agent/progress` notifications (checked by their
`kind`'s definition), the daemon's own requests (`agent/requestApproval`, `harness9/…`) and the
results of the client's `agent/*` requests. Standard LSP messages are lsprotocol's business and
pass unchecked. What does not match is collected, so the test's client keeps running, and the
fixture that made the checker fails the test at its end (`assert_clean`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from harness9.protocol.lsp_commands import COMMANDS
from harness9.protocol.method_table import METHODS, PROGRESS_METHOD
from harness9.protocol.schema_document import SCHEMA_ID, protocol_schema, result_ref

COMMAND = "command:"  # what a pending executeCommand is noted as, before the command's name


@functools.cache
def _schema() -> dict[str, Any]:
    return protocol_schema()


@functools.cache
def _validator(ref: str) -> Draft202012Validator:
    registry: Registry[Any] = Registry().with_resource(
        SCHEMA_ID, Resource.from_contents(_schema()))
    return Draft202012Validator({"$ref": f"{SCHEMA_ID}{ref}"}, registry=registry)


def problems_of(ref: str, instance: Any) -> list[str]:
    """What is wrong with `instance` as the definition `ref` (`#/$defs/Name`) describes it."""
    errors = sorted(_validator(ref).iter_errors(instance), key=lambda e: list(e.path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors]


def progress_problems(params: Any) -> list[str]:
    """What is wrong with an `agent/progress` notification's params."""
    kind = params.get("kind") if isinstance(params, dict) else None
    names = {_kind(name): name for name in _progress_defs()}
    name = names.get(kind)
    if name is None:
        return [f"kind {kind!r} is not a progress kind of the protocol"]
    return problems_of(f"#/$defs/{name}", params)


def _progress_defs() -> list[str]:
    return [ref["$ref"].rsplit("/", 1)[1] for ref in _schema()["$defs"]["AgentProgress"]["oneOf"]]


def _kind(definition: str) -> str:
    return str(_schema()["$defs"][definition]["properties"]["kind"]["const"])


def request_problems(method: str, params: Any) -> list[str]:
    """What is wrong with the params of a request the daemon sent (one of its own methods)."""
    found = METHODS.get(method)
    if found is None or found.direction != "server_to_client":
        return []
    return problems_of(f"#/$defs/{found.params.__name__}", params)


def result_problems(method: str, result: Any) -> list[str]:
    """What is wrong with the daemon's result of a client's request (of `initialize`: what it
    announces of harness9; of a command, `command:NAME`: its answer)."""
    if method.startswith(COMMAND) and method[len(COMMAND):] in COMMANDS:
        answer = COMMANDS[method[len(COMMAND):]][1]
        return problems_of(f"#/$defs/{answer.__name__}", result)
    if method == "initialize":
        announced = ((result or {}).get("capabilities") or {}).get("experimental") or {}
        return problems_of("#/$defs/ServerCapabilities", announced.get("harness9"))
    found = METHODS.get(method)
    ref = result_ref(method)
    if found is None or found.direction != "client_to_server" or ref is None:
        return []
    return problems_of(ref["$ref"], result)


class WireChecker:
    """Collects what does not match the schema, of every message shown to it."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.checked = 0
        self._pending: dict[Any, str] = {}

    def sent(self, msg_id: Any, method: str, params: Any = None) -> None:
        """The client sent a request: its answer will be checked as `method`'s result (a
        command's as that command's answer)."""
        if method == "workspace/executeCommand":
            command = params.get("command") if isinstance(params, dict) else getattr(
                params, "command", None)
            method = f"{COMMAND}{command}"
        self._pending[msg_id] = method

    def received(self, message: dict[str, Any]) -> None:
        """A message from the daemon, as JSON."""
        method, msg_id = message.get("method"), message.get("id")
        if method == PROGRESS_METHOD:
            self._note(f"{method} {message.get('params', {}).get('kind')}",
                       progress_problems(message.get("params")))
        elif method in METHODS:
            self._note(method, request_problems(method, message.get("params")))
        elif method is not None:
            pass  # standard LSP (lsprotocol's shapes)
        elif "result" in message and msg_id in self._pending:
            sent = self._pending.pop(msg_id)
            self._note(f"{sent} result", result_problems(sent, message["result"]))
        else:
            self._pending.pop(msg_id, None)

    def _note(self, what: str, problems: list[str]) -> None:
        self.checked += 1
        self.problems += [f"{what}: {p}" for p in problems]

    def assert_clean(self) -> None:
        """Fail when a message did not match the schema."""
        assert not self.problems, "messages that break the protocol's schema:\n" + "\n".join(
            self.problems[:20])


def watch_protocol(protocol: Any, checker: WireChecker) -> None:
    """Show `checker` every message a pygls client's `protocol` sends and receives."""
    send_request: Callable[..., Any] = protocol.send_request
    handle_message: Callable[[Any], None] = protocol.handle_message

    def sending(method: str, params: Any = None, callback: Any = None,
                msg_id: Any = None) -> Any:
        future = send_request(method, params, callback, msg_id)
        sent_id = next((i for i, f in protocol._request_futures.items() if f is future), msg_id)
        checker.sent(sent_id, method, params)
        return future

    def handling(message: Any) -> None:
        checker.received(_as_json(message, protocol._converter.unstructure))
        handle_message(message)

    protocol.send_request = sending
    protocol.handle_message = handling


def _as_json(message: Any, unstructure: Callable[[Any], Any]) -> dict[str, Any]:
    """A pygls message object as the JSON it came as (our messages stay plain dicts inside;
    lsprotocol's, such as `initialize`'s result, are unstructured again)."""
    fields = {name: getattr(message, name) for name in ("id", "method", "params", "result")
              if hasattr(message, name)}
    fields = {key: unstructure(value) if hasattr(value, "__attrs_attrs__") else value
              for key, value in fields.items()}
    return {key: value for key, value in fields.items() if value is not None or key == "result"}
