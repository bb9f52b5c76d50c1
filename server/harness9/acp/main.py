"""Process set-up for `harness9 acp`: newline-delimited JSON-RPC on a private stdio channel."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import os
import threading
from dataclasses import replace
from typing import Any, cast

from harness9.acp.early_session import EarlySession, answer_new_session
from harness9.acp.hello import Hello, answer_initialize
from harness9.acp.line_guard import LineGuard
from harness9.acp.schema_import import install as load_schema_lightly
from harness9.process import stdio_channel as stdio
from harness9.process.hardening import harden
from harness9.process.process_end import parent_to_watch, terminate_when_process_ends
from harness9.provider import tls
from harness9.redaction import looks_secret
from harness9.service.config.settings import merge_client
from harness9.service.warm_up import wanted, warm_up

_log = logging.getLogger("harness9.acp")

STREAM_LIMIT = 50 * 1024 * 1024  # one message may carry a large embedded resource


async def _pipes(
    rpc_in: int, rpc_out: int, unread: bytes
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """asyncio streams over the protocol's private file descriptors (`unread`: bytes already
    taken from `rpc_in` that the SDK must still read)."""
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(rpc_out, "wb", 0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    reader = asyncio.StreamReader(limit=STREAM_LIMIT)
    guard = LineGuard(reader, writer.write)
    guard.feed(unread)
    await loop.connect_read_pipe(lambda: guard, os.fdopen(rpc_in, "rb", 0))
    return reader, writer


def read_settings(raw: str | None) -> dict[str, Any]:
    """`--settings`: a JSON object, or @FILE holding one; validated as client settings
    (invalid keys are logged and ignored, as for an editor's initializationOptions)."""
    if raw is None:
        return {}
    try:
        if raw.startswith("@"):
            with open(raw[1:], encoding="utf-8") as file:
                raw = file.read()
        value = json.loads(raw)
    except (OSError, json.JSONDecodeError) as exc:
        raise SystemExit(f"harness9 acp: --settings: {exc}") from None
    settings, problems = merge_client({}, value)
    for problem in problems:
        _log.warning("ignoring invalid setting: %s", problem)
    return settings


async def serve(rpc_in: int, rpc_out: int, settings: dict[str, Any], hello: Hello,
                early: EarlySession | None = None) -> None:
    """Serve one client until it closes the connection (`hello`: what reading its first lines
    left; `early`: the session answered before the SDK loaded)."""
    from acp import Agent, AgentSideConnection

    from harness9.acp.agent import Harness9Agent
    from harness9.acp.raw_requests import add_raw_requests

    reader, writer = await _pipes(rpc_in, rpc_out, hello.unread)
    # The SDK's `Agent` protocol lists every optional method; the router answers "method not
    # found" for those an agent leaves out, as we do for session modes, forks and the like.
    agent = Harness9Agent(service=early.service if early is not None else None,
                          settings=settings, client_capabilities=hello.client_capabilities)
    if early is not None:
        agent.adopt(early)
    # session/close and session/resume are stable in the protocol, unstable in this SDK.
    conn = AgentSideConnection(cast(Agent, agent), writer, reader, listening=False,
                               use_unstable_protocol=True)
    add_raw_requests(conn, {"session/delete": agent.delete_session})
    try:
        await conn.listen()
    finally:
        # A client gone first makes closing fail; what follows must run all the same (the MCP
        # servers would be left to the interpreter's exit, which then waits for them).
        with contextlib.suppress(ConnectionError):
            await asyncio.shield(conn.close())
        await agent.announcer.settle()  # shadow repositories being opened
        await agent.service.shutdown()  # the MCP servers
        agent.service.close()  # release the stored sessions this process holds


def _load(provider: str | None) -> None:
    """Import the service (what an early `session/new` needs), then the SDK and the agent,
    while the client's `initialize` is answered without them; then what the first prompt needs
    (unless warming up is off)."""
    if wanted():
        tls.start()  # the certificate store loads beside the imports
    for module in ("harness9.service.agent_service", "harness9.acp.agent"):  # in this order
        importlib.import_module(module)
    warm_up(provider)


def main(raw_settings: str | None = None) -> None:
    """`harness9 acp`: an ACP agent on stdin/stdout; logs go to stderr."""
    parent = parent_to_watch()  # first: it may end while we start
    stdio.configure_logging()
    harden(looks_secret)
    settings = read_settings(raw_settings)
    rpc_in, rpc_out = stdio.claim_stdio()
    stdio.exit_on_sigterm()
    if parent is not None:  # its stdin may stay open: a pipe another of its processes inherited
        terminate_when_process_ends(parent, "the process that started the agent")
    stdio.reap_children_without_threads()
    load_schema_lightly()  # before anything imports the SDK
    provider = settings.get("provider")
    threading.Thread(target=_load, args=(provider if isinstance(provider, str) else None,),
                     name="harness9-acp-load", daemon=True).start()
    hello = answer_initialize(rpc_in, rpc_out)
    early = None
    if hello.client_capabilities is not None:  # `initialize` was answered here: what is next?
        unread, early = answer_new_session(rpc_in, rpc_out, hello.unread, settings)
        hello = replace(hello, unread=unread)
    try:
        asyncio.run(serve(rpc_in, rpc_out, settings, hello, early))
    finally:
        from harness9.process.reaper import kill_all_groups

        kill_all_groups()
