"""Run one `bash -c` command in its own process group, read its output with a bound, and make
sure nothing it started is left running when the call ends (normally, on timeout or cancelled).

stdout and stderr share one pipe, so their lines keep the order in which they were written. The
pipe is read as fast as the command writes, whatever the volume, but only the head and the tail of
the output are kept (`OutputBuffer`), so a 50 MB flood costs no more memory than the cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass

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
    proc, pipe = await _start(command, cwd, environment, confinement)
    REAPER.register(proc.pid)
    reader = _PipeReader(pipe, output, on_output)
    watch = _ExitWatch(proc.pid)
    exited = emptied = False
    try:
        exited = await watch.wait(budget)
        if exited:
            emptied = await _settle(proc, reader)
    finally:
        # Unless _settle reaped it, bash is a zombie at most, so its pid (the group's id, as
        # start_new_session made it the leader) cannot have been reused by another process.
        if not emptied:
            kill_group(proc.pid)
        reader.drain_and_close()
        try:
            while not await watch.wait(1.0):
                kill_group(proc.pid)
        finally:
            watch.close()
            proc.poll()  # collects the zombie; never blocks, even when cancelled again here
            REAPER.unregister(proc.pid)
    return ShellResult(output=output, returncode=proc.returncode if exited else None)


async def _settle(proc: subprocess.Popen[bytes], reader: _PipeReader) -> bool:
    """After bash exited: a short grace for output in flight and for jobs leaving the group.

    A background child may still hold the pipe, and a job being detached (`setsid CMD &`) may
    not have left the group yet when bash exits; both get until the grace ends. bash is reaped
    first: while the group still has members its id stays reserved, so it cannot be reused.
    Returns whether the group is empty (then there is nothing to kill).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + EXIT_GRACE_SECONDS
    await reader.wait_eof(EXIT_GRACE_SECONDS)
    proc.poll()
    while loop.time() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except OSError:  # ProcessLookupError: the group is empty
            return True
        await asyncio.sleep(0.01)
    return False


async def _start(
    command: str, cwd: str, env: Mapping[str, str], confinement: Confinement
) -> tuple[subprocess.Popen[bytes], int]:
    """`_spawn`, from the confinement's spawner thread when it has one. A start the caller
    gave up on while it was under way is killed and reaped before the cancellation goes on."""
    if confinement.spawner is None:
        return _spawn(command, cwd, env, confinement)
    started = asyncio.wrap_future(
        confinement.spawner.submit(_spawn, command, cwd, env, confinement))
    try:
        return await asyncio.shield(started)
    except asyncio.CancelledError:
        proc, pipe = await started
        kill_group(proc.pid)
        os.close(pipe)
        await asyncio.to_thread(proc.wait)
        raise


def _spawn(
    command: str, cwd: str, env: Mapping[str, str], confinement: Confinement
) -> tuple[subprocess.Popen[bytes], int]:
    """Start bash (inside `confinement`) with stdin from /dev/null and stdout+stderr on one
    non-blocking pipe."""
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen(
            [*confinement.prefix, "bash", "-c", command],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=write_end,
            start_new_session=True,
            env=env,
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    os.set_blocking(read_end, False)
    return proc, read_end


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


class _ExitWatch:
    """Tells when a child process has exited, without reaping it.

    A pidfd wakes the waiter where Linux has one; elsewhere it polls. `waitid(WNOWAIT)` checks
    the state and leaves the zombie in place, so its pid stays reserved until `Popen.wait`.
    """

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._loop = asyncio.get_running_loop()
        self._ready = asyncio.Event()
        self._fd: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self._fd = os.pidfd_open(pid)
            self._loop.add_reader(self._fd, self._on_exit)

    def _on_exit(self) -> None:
        if self._fd is not None:
            self._loop.remove_reader(self._fd)
        self._ready.set()

    def exited(self) -> bool:
        """Whether the process has ended (it may still await reaping)."""
        flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
        try:
            return os.waitid(os.P_PID, self._pid, flags) is not None
        except ChildProcessError:
            return True

    async def wait(self, timeout: float) -> bool:
        """Whether the process exited within `timeout` seconds."""
        deadline = self._loop.time() + timeout
        while not self.exited():
            left = deadline - self._loop.time()
            if left <= 0:
                return False
            step = left if self._fd is not None else min(left, 0.02)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), step)
        return True

    def close(self) -> None:
        """Release the pidfd."""
        fd, self._fd = self._fd, None
        if fd is not None:
            self._loop.remove_reader(fd)
            os.close(fd)
