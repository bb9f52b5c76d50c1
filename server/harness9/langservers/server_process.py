"""A language server's process: started by the launcher, like every command a tool runs, in a
process group of its own that the reaper knows (so it dies with the daemon), inside the
sandbox's read-only view of the workspace, and spoken to over its stdin and stdout.

Its stderr is read as it comes: the last few KiB are kept for the message when it fails, and
each line is logged at debug level.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shutil
from collections.abc import Mapping, Sequence

from harness9.process.launcher import LAUNCHER, Child, LaunchRequest
from harness9.process.reaper import REAPER, kill_group
from harness9.process.sandbox import Confinement

_log = logging.getLogger("harness9.langservers")
_STDERR_KEEP = 4096
_READ_LIMIT = 1 << 20  # a header line longer than this ends the connection


class _Tail(asyncio.Protocol):
    """Keeps the last bytes of the server's stderr and logs its lines."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.data = bytearray()

    def data_received(self, data: bytes) -> None:
        self.data += data
        del self.data[:-_STDERR_KEEP]
        for line in data.decode("utf-8", "replace").splitlines():
            _log.debug("language server %s: %s", self.name, line)


class _PipeWriter:
    """pygls' writer over the server's stdin: writes never block the loop (the transport keeps
    what the pipe does not take yet)."""

    def __init__(self, transport: asyncio.WriteTransport) -> None:
        self._transport = transport

    def write(self, data: bytes) -> None:
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self._transport.close()


class ServerProcess:
    """A started server: `reader` (its stdout), `writer` (its stdin), and `stop`."""

    def __init__(self, name: str, child: Child, reader: asyncio.StreamReader,
                 writer: _PipeWriter, tail: _Tail, closers: list[asyncio.BaseTransport]) -> None:
        self.name = name
        self.child = child
        self.reader = reader
        self.writer = writer
        self._tail = tail
        self._closers = closers

    @property
    def pid(self) -> int:
        """The process id (also its group's) of what the launcher started."""
        return self.child.pid

    def stderr_tail(self, lines: int = 12) -> str:
        """The last lines the server wrote to stderr."""
        text = self._tail.data.decode("utf-8", "replace")
        return "\n".join(text.strip().splitlines()[-lines:])

    async def stop(self, grace: float) -> None:
        """Close its stdin, give it `grace` seconds to exit, then kill its process group."""
        self.writer.close()
        try:
            if not await self.child.wait(grace):
                kill_group(self.child.pid)
                await self.child.wait(5.0)
        finally:
            kill_group(self.child.pid)  # what it started and left behind
            self.child.release()
            REAPER.unregister(self.child.pid)
            for transport in self._closers:
                transport.close()
            await self.child.reaped(1.0)


async def spawn(name: str, argv: Sequence[str], cwd: str, env: Mapping[str, str],
                confinement: Confinement) -> ServerProcess:
    """Start `argv` in `cwd` with `env` (marked for the reaper), confined; `OSError` (and
    `FileNotFoundError` for a program not on the environment's PATH) when it cannot start."""
    program = argv[0]
    if "/" not in program:
        found = shutil.which(program, path=env.get("PATH", os.defpath))
        if found is None:
            raise FileNotFoundError(errno.ENOENT, f"{program} is not on PATH", program)
        program = found
    REAPER.ensure_watching()
    environment = {**REAPER.tool_environment(env), **(confinement.env or {})}
    request = LaunchRequest(
        argv=[*confinement.prefix, program, *argv[1:]], cwd=cwd, env=environment,
        landlock=confinement.landlock, seccomp=confinement.seccomp,
        drop_caps=confinement.drop_caps)
    child, ours = await _launch(request)
    REAPER.register(child.pid)
    try:
        return await _connect(name, child, *ours)
    except BaseException:
        kill_group(child.pid)
        child.release()
        REAPER.unregister(child.pid)
        raise


async def _launch(request: LaunchRequest) -> tuple[Child, tuple[int, int, int]]:
    """Have the launcher start the request with three pipes; returns our ends (stdin's write
    end, stdout's and stderr's read ends). A start the caller gave up on while it was under
    way is killed before the cancellation goes on."""
    in_read, in_write = os.pipe2(os.O_CLOEXEC)
    out_read, out_write = os.pipe2(os.O_CLOEXEC)
    err_read, err_write = os.pipe2(os.O_CLOEXEC)
    ours = (in_write, out_read, err_read)
    try:
        started = LAUNCHER.spawn(request, out_write, stdin=in_read, stderr=err_write)
    except BaseException:
        _close(ours)
        raise
    finally:
        _close((in_read, out_write, err_write))
    try:
        child = await asyncio.shield(asyncio.wrap_future(started))
    except asyncio.CancelledError:
        _close(ours)
        with contextlib.suppress(OSError):
            child = await asyncio.wrap_future(started)
            kill_group(child.pid)
            child.release()
        raise
    except BaseException:
        _close(ours)
        raise
    return child, ours


def _close(fds: Sequence[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


async def _connect(name: str, child: Child, stdin: int, stdout: int,
                   stderr: int) -> ServerProcess:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_READ_LIMIT)
    out_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(stdout, "rb", buffering=0))
    tail = _Tail(name)
    err_transport, _ = await loop.connect_read_pipe(
        lambda: tail, os.fdopen(stderr, "rb", buffering=0))
    in_transport, _ = await loop.connect_write_pipe(
        asyncio.Protocol, os.fdopen(stdin, "wb", buffering=0))
    closers: list[asyncio.BaseTransport] = [out_transport, err_transport, in_transport]
    return ServerProcess(name, child, reader, _PipeWriter(in_transport), tail, closers)
