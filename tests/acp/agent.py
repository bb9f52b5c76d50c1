"""Drive `harness9 acp` as a subprocess through the ACP Python SDK's client side."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, Agent, Client, RequestError, spawn_agent_process, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    PermissionOption,
    PromptResponse,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from tests.fakellm.server import FakeLLM
from tests.support import preloaded

Answer = str | None  # an option id to select, or None for the `cancelled` outcome


class RecordingClient:
    """An ACP client that records every `session/update`, answers permission requests from a
    script (`answers`, in order; `allow_once` when it runs out), and serves `fs/*` from its
    buffers (when the agent was started with `fs=True`)."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.permissions: list[dict[str, Any]] = []
        self.answers: list[Answer] = []
        self.answer_delay = 0.0
        # The client's file system: open buffers by absolute path (unsaved text), what the
        # agent read and wrote through it, whether a write saves the buffer, a forced error.
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.saves = False
        self.fs_error: str | None = None
        self.after_read: Callable[[str], None] | None = None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        self.permissions.append({
            "sessionId": session_id,
            "callAnnounced": any(getattr(u, "tool_call_id", None) == tool_call.tool_call_id
                                 for _, u in self.updates),
            "statusWhenAsked": ([getattr(u, "status", None) for _, u in self.updates
                                 if getattr(u, "tool_call_id", None) == tool_call.tool_call_id
                                 and getattr(u, "status", None) is not None] or [None])[-1],
            "toolCall": tool_call.model_dump(by_alias=True, exclude_none=True),
            "options": [o.model_dump(by_alias=True, exclude_none=True) for o in options],
        })
        await asyncio.sleep(self.answer_delay)
        answer = self.answers.pop(0) if self.answers else "allow_once"
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        """`fs/read_text_file`: the buffer's text when one is open, else the disk's."""
        self.reads.append(path)
        if self.fs_error is not None:
            raise RequestError.internal_error({"details": self.fs_error})
        text = self.buffers.get(path)
        if text is None:
            text = await asyncio.to_thread(Path(path).read_text)
        if self.after_read is not None:
            self.after_read(path)
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        """`fs/write_text_file`: into the buffer, saved to disk when `saves` (as Zed does)."""
        self.writes.append((path, content))
        if self.fs_error is not None:
            raise RequestError.internal_error({"details": self.fs_error})
        self.buffers[path] = content
        if self.saves:
            await asyncio.to_thread(Path(path).write_text, content)
        return WriteTextFileResponse()

    def of(self, session_id: str) -> list[dict[str, Any]]:
        """The updates of a session as wire dicts, in arrival order."""
        return [
            u.model_dump(by_alias=True, exclude_none=True)
            for sid, u in self.updates if sid == session_id
        ]

    def kinds(self, session_id: str) -> list[str]:
        """`sessionUpdate` of each update of the session."""
        return [u["sessionUpdate"] for u in self.of(session_id)]

    def text(self, session_id: str, kind: str = "agent_message_chunk") -> str:
        """The joined text of the session's chunks of `kind`."""
        return "".join(u["content"]["text"] for u in self.of(session_id)
                       if u["sessionUpdate"] == kind)

    def tool_updates(self, session_id: str, call_id: str) -> list[dict[str, Any]]:
        """`tool_call` and `tool_call_update`s of one call, in order."""
        return [u for u in self.of(session_id)
                if u["sessionUpdate"] in ("tool_call", "tool_call_update")
                and u["toolCallId"] == call_id]

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20
                       ) -> None:
        """Wait until some update satisfies `predicate`."""
        async with asyncio.timeout(timeout):
            while not any(predicate(u.model_dump(by_alias=True, exclude_none=True))
                          for _, u in self.updates):
                await asyncio.sleep(0.02)


class AcpAgent:
    """A started `harness9 acp`: the connection, its process, and the recording client."""

    def __init__(self, conn: ClientSideConnection, process: Any, client: RecordingClient,
                 stderr: Path) -> None:
        self.conn = conn
        self.process = process
        self.client = client
        self.stderr = stderr
        self.initialized: Any = None  # the answer to `initialize`

    async def new_session(self, root: Path) -> str:
        """`session/new` on `root`; returns the session id."""
        return (await self.conn.new_session(cwd=str(root), mcp_servers=[])).session_id

    async def end(self) -> int:
        """Close the agent's stdin, as a client that leaves does; its exit code."""
        self.process.stdin.close()
        async with asyncio.timeout(10):
            code: int = await self.process.wait()
        return code

    async def prompt(self, session_id: str, text: str, *blocks: Any) -> PromptResponse:
        """`session/prompt` with `text` (and more content blocks)."""
        return await self.conn.prompt(session_id=session_id, prompt=[text_block(text), *blocks])


StartAgent = Callable[..., Any]


def openai_env(fake: FakeLLM, **extra: str) -> dict[str, str]:
    """The environment of an agent whose model is `fake` (OpenAI wire format), plus `extra`."""
    return {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "fake", **extra}


def capabilities(fs: bool) -> ClientCapabilities:
    """The client's capabilities: its file system offered for reading and writing, or not."""
    if not fs:
        return ClientCapabilities()
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)
    )


@asynccontextmanager
async def agent_factory(logs: Path) -> AsyncIterator[StartAgent]:
    """Yields `start(env=…, settings=…, initialize=True, fs=False)`, an async function starting
    an agent (approvals yolo unless `env` says otherwise; `fs`: the client offers its file
    system); every agent started is stopped afterwards."""
    async with AsyncExitStack() as stack:
        count = 0

        async def start(
            env: dict[str, str] | None = None,
            settings: dict[str, Any] | None = None,
            initialize: bool = True,
            fs: bool = False,
        ) -> AcpAgent:
            nonlocal count
            count += 1
            stderr_path = logs / f"acp-{count}.stderr"
            stderr = stack.enter_context(stderr_path.open("wb"))
            client = RecordingClient()
            conn, process = await stack.enter_async_context(spawn_agent_process(
                cast(Client, client), *preloaded.command("acp"),
                *(["--settings", json.dumps(settings)] if settings else []),
                env={**os.environ, "HARNESS9_APPROVALS": "yolo", **(env or {})},
                transport_kwargs={"stderr": stderr.fileno()},
            ))
            agent = AcpAgent(conn, process, client, stderr_path)
            if initialize:
                agent.initialized = await conn.initialize(
                    protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities(fs)
                )
            return agent

        yield start


__all__ = ["AcpAgent", "Agent", "RecordingClient", "StartAgent", "agent_factory", "openai_env"]
