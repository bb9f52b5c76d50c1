"""The protocol as one JSON Schema document (draft 2020-12): what `harness9 schema` prints.

`$defs` holds every record; each progress kind's definition includes the envelope (`runId`,
`sessionId`, `seq`), as the notification carries it. The root accepts any message of the
protocol: a client's request, the server's request or its `agent/progress` notification, each
by `method` with its params; `x-harness9` maps each method to its params and result.
"""

from __future__ import annotations

from typing import Any

from harness9.protocol.json_schema import DRAFT, SchemaBuilder
from harness9.protocol.lsp_commands import COMMANDS
from harness9.protocol.method_table import (
    CLIENT_METHODS,
    PROGRESS_METHOD,
    SERVER_METHODS,
    VERSION,
    Method,
)
from harness9.protocol.progress_kinds import PROGRESS, ProgressEnvelope
from harness9.protocol.server_requests import (
    ClientCapabilities,
    PathMapping,
    ServerCapabilities,
)

SCHEMA_ID = "urn:harness9:protocol"
PROGRESS_DEF = "AgentProgress"


def protocol_schema() -> dict[str, Any]:
    """The whole protocol as a JSON Schema document."""
    builder = SchemaBuilder()
    progress = _progress(builder)
    for record in (ServerCapabilities, ClientCapabilities, PathMapping):
        builder.ref(record)
    methods = {m.name: _method_entry(builder, m) for m in CLIENT_METHODS + SERVER_METHODS}
    methods[PROGRESS_METHOD] = {"direction": "server_to_client", "notification": True,
                                "params": progress}
    messages = [_message(name, entry["params"]) for name, entry in methods.items()]
    commands = {name: _command_entry(builder, argument, answer)
                for name, (argument, answer) in COMMANDS.items()}
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID,
        "title": f"harness9 wire protocol {VERSION}",
        "description": "A message of the harness9 protocol (JSON-RPC 2.0 over LSP framing): a "
                       "request by its method and params, or the agent/progress notification. "
                       "Results are under x-harness9.methods.",
        "anyOf": messages,
        "x-harness9": {"version": VERSION, "methods": methods, "commands": commands},
        "$defs": dict(sorted(builder.defs.items())),
    }


def _progress(builder: SchemaBuilder) -> dict[str, Any]:
    envelope = builder.record(ProgressEnvelope)
    refs = []
    for record in PROGRESS:
        name = record.__name__
        schema = builder.record(record)
        own = schema["properties"]
        # The envelope, then `kind`, then the kind's fields (those of a shared base included).
        schema["properties"] = {**envelope["properties"], "kind": own.pop("kind"), **own}
        schema["required"] = [*envelope["required"], "kind",
                              *(key for key in schema["required"] if key != "kind")]
        builder.defs[name] = schema
        refs.append({"$ref": f"#/$defs/{name}"})
    builder.defs[PROGRESS_DEF] = {
        "description": "The params of an agent/progress notification: one of the kinds.",
        "oneOf": refs,
    }
    return {"$ref": f"#/$defs/{PROGRESS_DEF}"}


def _method_entry(builder: SchemaBuilder, method: Method) -> dict[str, Any]:
    entry: dict[str, Any] = {"direction": method.direction, "params": builder.ref(method.params)}
    if method.result is not None:
        entry["result"] = builder.ref(method.result)
    return entry


def _command_entry(builder: SchemaBuilder, argument: type | None, answer: type
                   ) -> dict[str, Any]:
    """A plain-LSP command: its one argument (in `arguments[0]`) and its answer."""
    entry = {"answer": builder.ref(answer)}
    return entry if argument is None else {"argument": builder.ref(argument), **entry}


def _message(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["jsonrpc", "method"],
        "properties": {"jsonrpc": {"const": "2.0"}, "id": {"type": ["integer", "string"]},
                       "method": {"const": method}, "params": params},
    }


def result_ref(method: str) -> dict[str, Any] | None:
    """A `$ref` to a method's result definition, or None when the protocol defines none."""
    found = next((m for m in CLIENT_METHODS + SERVER_METHODS if m.name == method), None)
    if found is None or found.result is None:
        return None
    return {"$ref": f"#/$defs/{found.result.__name__}"}
