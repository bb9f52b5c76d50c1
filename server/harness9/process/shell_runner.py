"""Run one `bash -c` command in its own process group, read its output with a bound, and make
sure nothing it started is left running when the call ends (normally, on timeout or cancelled).

stdout and stderr share one pipe, so their lines keep the order in which they were written. The
pipe is read as fast as the command writes, whatever the volume, but only the head and the tail of
the output are kept (`OutputBuffer`), so a 50 MB flood costs no more memory than the cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from harness9.process.launcher import LAUNCHER, Child, LaunchRequest
from harness9.process.reaper import REAPER, kill_group
from harness9.process.sandbox import NO_CONFINEMENT, Confinement

# After bash exits, how long to keep reading for output still in flight. A background child that
# inherited the pipe may keep it open forever; it must not hold the call.
EXIT_GRACE_SECONDS = 0.15
_CHUNK = 1 << 16
_DRAIN_READS = 64


class OutputBuffer:
    """Counts every byte written and keeps the first and the last `cap // 2` bytes of them."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.total = 0
        self._head = bytearray()
        self._tail = bytearray()

    def feed(self, data: bytes) -> None:
        """Account for `data`, keeping only what fits the head and the tail."""
        self.total += len(data)
        room = self.cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            keep = self.cap - self.cap // 2
            if len(self._tail) > keep:
                del self._tail[:-keep]

    @property
    def truncated(self) -> bool:
        """Whether bytes were dropped between the head and the tail."""
        return self.total > self.cap

    def parts(self) -> tuple[bytes, bytes]:
        """(head, tail): everything when it fits the cap, else the first and the last half."""
        if not self.truncated:
            return bytes(self._head + self._tail), b""
        half = self.cap // 2
        tail = (self._head[half:] + self._tail)[-(self.cap - half) :]
        return bytes(self._head[:half]), bytes(tail)


@dataclass(frozen=True, slots=True)
class ShellResult:
    """How the command ended: `returncode` is None when it was stopped at its time budget."""

    output: OutputBuffer
    returncode: int | None

    @property
    def timed_out(self) -> bool:
        """Whether the command was killed for running past its budget."""
        return self.returncode is None


async def run_shell(
    command: str,
    cwd: str,
    budget: float,
    cap: int,
    env: Mapping[str, str] | None = None,
    on_output: Callable[[bytes], None] | None = None,
    confinement: Confinement = NO_CONFINEMENT,
) -> ShellResult:
    """Run `bash -c command` in `cwd` for at most `budget` seconds, keeping `cap` bytes of output.

    `env` is the command's environment (default: the daemon's), marked for the process reaper.
    `on_output`, when given, hears every piece of output as it is read, uncapped and in order.
    `confinement` is the OS sandbox it runs in (default: none).

    When bash exits (or the budget is spent, or the caller is cancelled) its whole process group
    is SIGKILLed, background jobs included, and the process is reaped before this returns.
    """
    output = OutputBuffer(cap)
    REAPER.ensure_watching()
    environment = REAPER.tool_environment(env)
    if confinement.env:
        environment = {**environment, **confinement.env}
    child, pipe = await _start(command, cwd, environment, confinement)
    REAPER.register(child.pid)
    reader = _PipeReader(pipe, output, on_output)
    exited = emptied = False
    try:
        exited = await child.wait(budget)
        if exited:
            emptied = await _settle(child, reader)
    finally:
        # Until it is released, bash is a zombie at most, so its pid (the group's id, as it
        # leads a session of its own) cannot have been reused by another process.
        if not emptied:
            kill_group(child.pid)
        reader.drain_and_close()
        try:
            while not await child.wait(1.0):
                kill_group(child.pid)
        finally:
            child.release()
            REAPER.unregister(child.pid)
            # Nothing of the call is left once it returns: not even bash's zombie.
            await child.reaped(1.0)
    return ShellResult(output=output, returncode=child.returncode if exited else None)


async def _settle(child: Child, reader: _PipeReader) -> bool:
    """After bash exited: a short grace for output in flight and for jobs leaving the group.

    A background child may still hold the pipe, and a job being detached (`setsid CMD &`) may
    not have left the group yet when bash exits; both get until the grace ends. bash is reaped
    first: while the group still has members its id stays reserved, so it cannot be reused.
    Returns whether the group is empty (then there is nothing to kill).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + EXIT_GRACE_SECONDS
    await reader.wait_eof(EXIT_GRACE_SECONDS)
    child.release()
    await child.reaped(EXIT_GRACE_SECONDS)
    while loop.time() < deadline:
        try:
            os.killpg(child.pid, 0)
        except OSError:  # ProcessLookupError: the group is empty
            return True
        await asyncio.sleep(0.01)
    return False


async def _start(
    command: str, cwd: str, env: Mapping[str, str], confinement: Confinement
) -> tuple[Child, int]:
    """Have the launcher start bash (inside `confinement`) with stdin from /dev/null and
    stdout+stderr on one non-blocking pipe. A start the caller gave up on while it was under
    way is killed and released before the cancellation goes on."""
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    request = LaunchRequest(
        argv=[*confinement.prefix, "bash", "-c", command], cwd=cwd, env=env,
        landlock=confinement.landlock, seccomp=confinement.seccomp,
        drop_caps=confinement.drop_caps,
    )
    try:
        request = _resolved(request)
        started = asyncio.wrap_future(LAUNCHER.spawn(request, write_end))
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    try:
        child = await asyncio.shield(started)
    except asyncio.CancelledError:
        with contextlib.suppress(OSError):
            child = await started
            kill_group(child.pid)
            await child.wait(5.0)
            child.release()
        os.close(read_end)
        raise
    except BaseException:
        os.close(read_end)
        raise
    os.set_blocking(read_end, False)
    return child, read_end


def _resolved(request: LaunchRequest) -> LaunchRequest:
    """The request with its program found on the command's PATH, as a shell would."""
    program = request.argv[0]
    if "/" not in program:
        found = shutil.which(program, path=request.env.get("PATH", os.defpath))
        if found is None:
            raise FileNotFoundError(errno.ENOENT, f"{program} is not on PATH", program)
        program = found
    return dataclasses.replace(request, argv=[program, *request.argv[1:]])


class _PipeReader:
    """Feeds the pipe's bytes to an `OutputBuffer` (and a listener) from the event loop as
    they arrive."""

    def __init__(
        self, fd: int, output: OutputBuffer, listener: Callable[[bytes], None] | None = None
    ) -> None:
        self._fd: int | None = fd
        self._output = output
        self._listener = listener
        self._loop = asyncio.get_running_loop()
        self._eof = self._loop.create_future()
        self._loop.add_reader(fd, self._on_readable)

    def _on_readable(self) -> None:
        if self._fd is None:
            return
        try:
            data = os.read(self._fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self._take(data)
        else:
            self._loop.remove_reader(self._fd)
            if not self._eof.done():
                self._eof.set_result(None)

    def _take(self, data: bytes) -> None:
        self._output.feed(data)
        if self._listener is not None:
            self._listener(data)

    async def wait_eof(self, grace: float) -> None:
        """Wait up to `grace` seconds for every writer to close the pipe."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._eof), grace)

    def drain_and_close(self) -> None:
        """Take what is already in the pipe without waiting, then close it."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        self._loop.remove_reader(fd)
        with contextlib.suppress(OSError):
            # Bounded: a writer that escaped the group could otherwise keep this loop busy.
            for _ in range(_DRAIN_READS):
                data = os.read(fd, _CHUNK)
                if not data:
                    break
                self._take(data)
        os.close(fd)
        if not self._eof.done():
            self._eof.cancel()
