"""A minimal JSON-RPC client over a child's stdio, with LSP `Content-Length` framing.

Deliberately small (one reader task, `json.loads` per message) so that its own cost is the same
on both sides of a comparison and easy to measure; every notification is kept with its arrival
time on the machine-wide monotonic clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from benchmarks.core import now


class RpcError(Exception):
    """A JSON-RPC error response."""

    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.data = error.get("data")


@dataclass(frozen=True, slots=True)
class Note:
    """A notification received, with its arrival time."""

    at: float
    method: str
    params: Any


class RpcClient:
    """Talks to one child process; start it with `spawn`, stop it with `close`."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.notes: list[Note] = []
        self._by_run: dict[str, list[Note]] = {}
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 0
        self._waiters: list[tuple[str, asyncio.Future[Note]]] = []
        self.on_request: Callable[[str, Any], Any] | None = None
        self._answering: set[asyncio.Future[None]] = set()
        self._reader = asyncio.ensure_future(self._read_loop())

    @classmethod
    async def spawn(
        cls, argv: Sequence[str], env: Mapping[str, str], cwd: Path, stderr: IO[bytes] | None
    ) -> RpcClient:
        """Start `argv` with piped stdin/stdout; its stderr goes to `stderr` (or nowhere)."""
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr if stderr is not None else asyncio.subprocess.DEVNULL,
            env=dict(env),
            cwd=cwd,
            limit=1 << 20,
        )
        return cls(proc)

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self.proc.pid

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, separators=(",", ":")).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def start_request(self, method: str, params: Any) -> asyncio.Future[Any]:
        """Send a request now; the future resolves to its result (or raises `RpcError`)."""
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = future
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return future

    async def request(self, method: str, params: Any, timeout: float = 60.0) -> Any:
        """Send a request and wait for its result."""
        return await asyncio.wait_for(self.start_request(method, params), timeout)

    def take_run_notes(self, run_id: str) -> list[Note]:
        """Remove and return the notifications carrying `runId` (kept apart from `notes`, so a
        long benchmark does not accumulate them)."""
        return self._by_run.pop(run_id, [])

    async def wait_note(self, predicate: Callable[[Note], bool], timeout: float = 30.0) -> Note:
        """The first notification received (and not yet taken) that satisfies `predicate`,
        waiting for it if need be."""
        async with asyncio.timeout(timeout):
            while True:
                for notes in [self.notes, *self._by_run.values()]:
                    found = next((n for n in notes if predicate(n)), None)
                    if found is not None:
                        return found
                await asyncio.sleep(0.001)

    def next_note(self, method: str) -> asyncio.Future[Note]:
        """A future for the next notification of `method`."""
        future: asyncio.Future[Note] = asyncio.get_running_loop().create_future()
        self._waiters.append((method, future))
        return future

    async def _read_loop(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        error: BaseException = ConnectionError("the server closed its output")
        try:
            while True:
                header = await stdout.readuntil(b"\r\n\r\n")
                length = _content_length(header)
                self._dispatch(json.loads(await stdout.readexactly(length)))
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            error = exc
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError(f"server gone: {error}"))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" not in message:
            future = self._pending.pop(message.get("id", -1), None)
            if future is None or future.done():
                return
            if "error" in message:
                future.set_exception(RpcError(message["error"]))
            else:
                future.set_result(message.get("result"))
        elif "id" in message:
            # A request from the server: `on_request` answers it (at once, or when the
            # awaitable it returns is done), else it is accepted (progress token, configuration).
            answer = self.on_request(message["method"], message.get("params")) \
                if self.on_request is not None else None
            if inspect.isawaitable(answer):
                task = asyncio.ensure_future(self._answer_later(message["id"], answer))
                self._answering.add(task)
                task.add_done_callback(self._answering.discard)
                return
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": answer})
        else:
            note = Note(now(), message["method"], message.get("params"))
            run_id = note.params.get("runId") if isinstance(note.params, dict) else None
            if run_id is None:
                self.notes.append(note)
            else:
                self._by_run.setdefault(run_id, []).append(note)
            self._wake(note)

    async def _answer_later(self, msg_id: Any, answer: Awaitable[Any]) -> None:
        self._send({"jsonrpc": "2.0", "id": msg_id, "result": await answer})

    def _wake(self, note: Note) -> None:
        if not self._waiters:
            return
        keep = []
        for method, future in self._waiters:
            if method == note.method and not future.done():
                future.set_result(note)
            elif not future.done():
                keep.append((method, future))
        self._waiters = keep

    async def close(self, timeout: float = 5.0) -> int:
        """Shut the server down politely, then kill it if it lingers; returns its exit code."""
        with contextlib.suppress(Exception):
            await self.request("shutdown", None, timeout=timeout)
            self.notify("exit", None)
        return await end_process(self.proc, self._reader, timeout)


def _content_length(header: bytes) -> int:
    for line in header.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    raise ConnectionError(f"no Content-Length in {header!r}")


def initialize_params(
    root: Path, settings: dict[str, Any] | None = None, capabilities: dict[str, Any] | None = None
) -> dict[str, Any]:
    """`initialize` params for a client with one workspace folder and `capabilities` (default:
    no optional features), with `settings` as its initializationOptions."""
    uri = root.as_uri()
    params: dict[str, Any] = {
        "processId": os.getpid(),
        "rootUri": uri,
        "workspaceFolders": [{"uri": uri, "name": root.name}],
        "capabilities": capabilities or {},
    }
    if settings is not None:
        params["initializationOptions"] = settings
    return params


async def end_process(
    proc: asyncio.subprocess.Process, reader: asyncio.Task[Any], timeout: float
) -> int:
    """Close a child's input, wait `timeout` for it to exit (then kill it), stop the task
    reading its output; the exit code."""
    with contextlib.suppress(Exception):
        assert proc.stdin is not None
        proc.stdin.close()
    try:
        code = await asyncio.wait_for(proc.wait(), timeout)
    except TimeoutError:
        proc.kill()
        code = await proc.wait()
    reader.cancel()
    with contextlib.suppress(BaseException):
        await reader
    return code
