"""bash with real bash: output, exit codes, limits, timeouts, cancellation and cleanup."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness9.process.reaper import REAPER, TOOL_SESSION_ENV
from harness9.process.shell_runner import OutputBuffer
from harness9.schema import ProcessExit, ToolCall, ToolError, ToolFailure
from harness9.tools.bash import MAX_OUTPUT_BYTES, BashTool, kill_all_groups
from harness9.tools.contract import DEADLINE, ToolOutput, ToolTimeoutError
from harness9.tools.registry import Registry

Running = Callable[[int], bool]


async def run(workspace: Path, command: str, hard_timeout: float = 30.0) -> ToolOutput:
    tool = BashTool(workspace, hard_timeout=hard_timeout)
    return await tool.execute(json.dumps({"command": command}))


def read_line(path: Path) -> str | None:
    """The file's text once a whole line has been written to it."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    return text if text.endswith("\n") else None


async def wait_for_file(path: Path, timeout: float = 5.0) -> str:
    deadline = time.monotonic() + timeout
    while (text := read_line(path)) is None:
        assert time.monotonic() < deadline, f"{path} never appeared"
        await asyncio.sleep(0.01)
    return text


async def gone_within(
    running: Callable[[], bool], timeout: float = 1.0, group: int | None = None
) -> float:
    """Seconds until `running()` turns false; fails past `timeout`.

    SIGKILL cannot be blocked, but a process still has to be scheduled to die after it is sent.
    """
    started = time.perf_counter()
    while running():
        if time.perf_counter() - started > timeout:
            members = group_members(group) if group is not None else []
            raise AssertionError(f"a process outlived the tool call: {members}")
        await asyncio.sleep(0.002)
    return time.perf_counter() - started


def test_definition_requires_command(workspace: Path) -> None:
    definition = BashTool(workspace).definition()
    assert definition.name == "bash"
    assert definition.input_schema["required"] == ["command"]
    assert "30 seconds" in definition.description
    assert "8000 bytes" in definition.description


async def test_runs_in_the_workspace_root(workspace: Path) -> None:
    root = os.path.realpath(workspace)  # noqa: ASYNC240 (a test's own fixture path)
    result = await run(workspace, "pwd; echo hi > made.txt")
    assert result == ToolOutput(text=f"{root}\n", bytes=len(root) + 1, exit=ProcessExit(code=0),
                                 sandbox="none")
    assert (workspace / "made.txt").read_text() == "hi\n"


async def test_stdout_and_stderr_keep_their_order(workspace: Path) -> None:
    result = await run(workspace, "echo 1; echo 2 >&2; echo 3; echo 4 >&2; printf 5 >&2")
    assert result.text == "1\n2\n3\n4\n5"


async def test_stdin_is_empty(workspace: Path) -> None:
    result = await run(workspace, "cat; read line; echo read=$?")
    assert result.text == "read=1\n"


async def test_nonzero_exit_is_a_normal_result(workspace: Path) -> None:
    assert (await run(workspace, "echo out; exit 3")).text == "out\nexit status 3"
    assert (await run(workspace, "printf partial; exit 2")).text == "partial\nexit status 2"
    assert (await run(workspace, "exit 1")).text == "exit status 1"
    assert (await run(workspace, "no-such-command-h9")).text.endswith("exit status 127")


async def test_the_exit_code_comes_with_the_output(workspace: Path) -> None:
    assert (await run(workspace, "echo out; exit 3")).exit == ProcessExit(code=3)
    assert (await run(workspace, "echo fine")).exit == ProcessExit(code=0)
    # Only the status line says it, the output never: a command printing one is not believed.
    assert (await run(workspace, "echo 'exit status 9'")).exit == ProcessExit(code=0)


async def test_death_by_signal_is_named(workspace: Path) -> None:
    result = await run(workspace, "echo bye; kill -TERM $$")
    assert result.text == "bye\nkilled by signal SIGTERM (15)"
    assert result.exit == ProcessExit(signal="SIGTERM")


async def test_a_signal_without_a_name_is_given_by_number(workspace: Path) -> None:
    number = signal.SIGRTMIN + 2  # real-time signals have no name of their own
    result = await run(workspace, f"kill -{number} $$")
    assert result.text == f"killed by signal {number}"
    assert result.exit == ProcessExit(signal=str(number))


async def test_no_output_says_so(workspace: Path) -> None:
    assert await run(workspace, "true") == ToolOutput(
        text="(no output)", bytes=0, exit=ProcessExit(code=0), sandbox="none"
    )


@pytest.mark.parametrize("command", ["", "   ", "\n\t"])
async def test_empty_command_runs_nothing(workspace: Path, command: str) -> None:
    before = REAPER.groups
    with pytest.raises(ToolError) as caught:
        await run(workspace, command)
    assert str(caught.value) == "Error: the command is empty"
    assert not isinstance(caught.value, ToolTimeoutError)
    assert before == REAPER.groups


async def test_invalid_utf8_is_replaced(workspace: Path) -> None:
    result = await run(workspace, r"printf 'ok \xff\xfe end'")
    assert result.text == "ok \ufffd\ufffd end"
    assert result.bytes == 9


async def test_output_of_exactly_the_cap_is_kept_whole(workspace: Path) -> None:
    result = await run(workspace, f"head -c {MAX_OUTPUT_BYTES} /dev/zero | tr '\\0' a")
    assert result == ToolOutput(text="a" * MAX_OUTPUT_BYTES, bytes=MAX_OUTPUT_BYTES,
                                 exit=ProcessExit(code=0), sandbox="none")


async def test_long_output_keeps_head_and_tail(workspace: Path) -> None:
    result = await run(workspace, "seq 1 100000; exit 4")
    total = len("".join(f"{i}\n" for i in range(1, 100001)))
    assert result.truncated
    assert result.bytes == total
    assert result.text.startswith("1\n2\n3\n")
    assert result.text.endswith("99999\n100000\nexit status 4")
    assert f"[output truncated: {total} bytes in total; showing the first 4000" in result.text
    assert len(result.text.encode()) < MAX_OUTPUT_BYTES + 200


async def test_cut_characters_are_not_replaced(workspace: Path) -> None:
    result = await run(workspace, "for i in $(seq 4000); do printf 'é中'; done")
    assert result.truncated
    assert "\ufffd" not in result.text


@pytest.mark.parametrize("chunk", [1, 3, 7, 100])
def test_output_buffer_keeps_head_and_tail_whatever_the_chunks(chunk: int) -> None:
    data = bytes(range(256)) * 4
    for size in (7, 8, 9, 10, 600, 1024):
        buffer = OutputBuffer(8)
        for start in range(0, size, chunk):
            buffer.feed(data[start : min(start + chunk, size)])
        head, tail = buffer.parts()
        assert buffer.total == size
        assert buffer.truncated == (size > 8)
        if size <= 8:
            assert (head, tail) == (data[:size], b"")
        else:
            assert (head, tail) == (data[:4], data[size - 4 : size])


@pytest.mark.timeout(10)
async def test_fifty_megabyte_flood_is_counted_not_kept(workspace: Path) -> None:
    command = "printf START; head -c 50000000 /dev/zero | tr '\\0' a; printf END"
    started = time.perf_counter()
    result = await run(workspace, command)
    elapsed = time.perf_counter() - started
    assert result.bytes == 50_000_008
    assert result.truncated
    assert result.text.startswith("STARTaaa")
    assert result.text.endswith("aaaEND")
    assert len(result.text.encode()) < MAX_OUTPUT_BYTES + 200
    assert elapsed < 2.0, elapsed


_FLOOD_MEMORY = """
import asyncio, json, resource, sys
from harness9.tools.bash import BashTool
tool = BashTool(sys.argv[1])
asyncio.run(tool.execute(json.dumps({"command": "echo warm-up"})))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
command = "head -c 50000000 /dev/zero | tr '\\\\0' a"
result = asyncio.run(tool.execute(json.dumps({"command": command})))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(result.bytes, after - before)
"""


@pytest.mark.timeout(20)
async def test_flood_costs_no_more_memory_than_the_cap(workspace: Path) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _FLOOD_MEMORY, str(workspace), stdout=asyncio.subprocess.PIPE
    )
    out, _ = await child.communicate()
    size, growth_kib = map(int, out.split())
    assert size == 50_000_000
    assert growth_kib < 8 * 1024, f"peak RSS grew by {growth_kib} KiB"


@pytest.mark.timeout(5)
async def test_background_child_does_not_hold_the_call(
    workspace: Path, is_process_running: Running
) -> None:
    started = time.perf_counter()
    result = await run(workspace, "sleep 60 & echo $!; echo started")
    elapsed = time.perf_counter() - started
    pid_line, rest = result.text.split("\n", 1)
    assert rest == "started\n"
    assert elapsed < 0.5, elapsed
    await gone_within(lambda: is_process_running(int(pid_line)))


@pytest.mark.timeout(10)
async def test_timeout_kills_the_group_and_keeps_the_output(
    workspace: Path, is_group_running: Running
) -> None:
    DEADLINE.set(time.monotonic() + 1)
    started = time.perf_counter()
    with pytest.raises(ToolTimeoutError) as caught:
        await run(workspace, "echo $$; echo before; sleep 10; echo never")
    elapsed = time.perf_counter() - started
    message = str(caught.value)
    pgid = int(message.split("\n", 1)[0])
    assert message.startswith(f"{pgid}\nbefore\nError: the command timed out after 1 s and was")
    assert "never" not in message
    assert 0.9 < elapsed < 5, elapsed  # at the deadline, long before the sleep ends
    await gone_within(lambda: is_group_running(pgid))


@pytest.mark.timeout(10)
async def test_own_cap_applies_when_nearer_than_the_deadline(workspace: Path) -> None:
    started = time.perf_counter()
    with pytest.raises(ToolTimeoutError) as caught:
        await run(workspace, "sleep 5", hard_timeout=0.3)
    assert str(caught.value).startswith(
        "Error: the command timed out after 0.3 s and was killed, with every process it started "
        "(it printed nothing)."
    )
    assert time.perf_counter() - started < 1.0


async def test_passed_deadline_runs_nothing(workspace: Path) -> None:
    DEADLINE.set(time.monotonic() - 1)
    with pytest.raises(ToolTimeoutError, match="no time left"):
        await run(workspace, "touch ran")
    assert not (workspace / "ran").exists()


@pytest.mark.timeout(10)
async def test_registry_timeout_returns_the_partial_output(workspace: Path) -> None:
    registry = Registry()
    registry.register(BashTool(workspace))
    call = ToolCall(id="c1", name="bash", arguments='{"command": "echo partial; sleep 10"}')
    result = await registry.execute(call, timeout=0.5)
    assert result.is_error
    assert result.failure is ToolFailure.TIMEOUT
    assert result.output.startswith("partial\nError: the command timed out after 0.5 s")
    assert result.exit is None  # killed at the deadline: no exit code to report


async def test_the_result_carries_how_the_command_ended(workspace: Path) -> None:
    registry = Registry()
    registry.register(BashTool(workspace))
    call = ToolCall(id="c1", name="bash", arguments='{"command": "echo out; exit 4"}')
    result = await registry.execute(call)
    assert (result.is_error, result.output) == (False, "out\nexit status 4")
    assert result.exit == ProcessExit(code=4)


@pytest.mark.timeout(10)
async def test_cancel_kills_the_group_and_propagates(
    workspace: Path, is_group_running: Running
) -> None:
    task = asyncio.create_task(run(workspace, "echo $$ > pgid; sleep 30; echo never"))
    pgid = int(await wait_for_file(workspace / "pgid"))
    assert is_group_running(pgid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert pgid not in REAPER.groups
    await gone_within(lambda: is_group_running(pgid))


@pytest.mark.timeout(10)
async def test_cancel_leaves_no_process_at_all(workspace: Path) -> None:
    # bash replaces itself with sleep: the group is our direct child, reaped before cancel ends.
    task = asyncio.create_task(run(workspace, "echo $$ > pgid; exec sleep 30"))
    pgid = int(await wait_for_file(workspace / "pgid"))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)


@pytest.mark.timeout(10)
async def test_kill_all_groups_stops_running_commands(
    workspace: Path, is_group_running: Running
) -> None:
    task = asyncio.create_task(run(workspace, "echo $$ > pgid; sleep 30; echo never"))
    pgid = int(await wait_for_file(workspace / "pgid"))
    assert kill_all_groups() >= 1
    result = await asyncio.wait_for(task, 5)
    assert result.text.endswith("killed by signal SIGKILL (9)")
    await gone_within(lambda: is_group_running(pgid))


@pytest.mark.timeout(10)
async def test_concurrent_calls_are_independent(workspace: Path) -> None:
    results = await asyncio.gather(*(run(workspace, f"sleep 0.2; echo {i}") for i in range(5)))
    assert [r.text for r in results] == [f"{i}\n" for i in range(5)]


_DAEMON = """
import asyncio, json, os, sys
from harness9.tools.bash import BashTool
from harness9.process.reaper import REAPER, TOOL_SESSION_ENV
tool = BashTool(sys.argv[1])
if sys.argv[2] == "lose-watcher":
    asyncio.run(tool.execute(json.dumps({"command": "true"})))
    os.kill(REAPER.watcher_pid, 9)
    os.waitpid(REAPER.watcher_pid, 0)
command = (
    "setsid sleep 60 > /dev/null 2>&1 & echo $! > detached; "
    "sleep 60 & echo $$ > pgid; sleep 60; echo never"
)
asyncio.run(tool.execute(json.dumps({"command": command})))
"""


@pytest.mark.timeout(20)
@pytest.mark.parametrize("mode", ["plain", "lose-watcher"])
async def test_nothing_outlives_a_killed_daemon(
    workspace: Path, is_group_running: Running, is_process_running: Running, mode: str
) -> None:
    # lose-watcher: the watcher was killed from outside; the daemon notices before the next
    # command and starts a new watcher that knows every live group.
    daemon = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _DAEMON, str(workspace), mode, cwd=workspace
    )
    try:
        pgid = int(await wait_for_file(workspace / "pgid"))
        detached = int(await wait_for_file(workspace / "detached"))
        assert is_group_running(pgid)
        assert is_process_running(detached)
        daemon.kill()
        await daemon.wait()
        await gone_within(lambda: is_group_running(pgid), timeout=2.0, group=pgid)
        await gone_within(lambda: is_process_running(detached), timeout=2.0, group=detached)
    finally:
        if daemon.returncode is None:
            daemon.kill()
            await daemon.wait()


@pytest.mark.timeout(10)
async def test_a_detached_job_survives_the_call(
    workspace: Path, is_process_running: Running
) -> None:
    result = await run(workspace, "setsid sleep 30 > /dev/null 2>&1 & echo $!")
    pid = int(result.text)
    try:
        await asyncio.sleep(0.1)
        assert is_process_running(pid)
        assert f"{TOOL_SESSION_ENV}={REAPER.token}".encode() in environ_of(pid)
    finally:
        os.kill(pid, 9)


def environ_of(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


def group_members(pgid: int) -> list[str]:
    """`pid state command` of every process in group `pgid`, for failure messages."""
    members = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if entry.name.isdigit() and int(fields[2]) == pgid:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                members.append(f"{entry.name} {fields[0]} {command}")
        except (FileNotFoundError, ProcessLookupError, NotADirectoryError):
            continue
    return members


async def test_a_nul_in_the_command_is_a_tool_error_not_a_crash(workspace: Path) -> None:
    with pytest.raises(ToolError, match="NUL"):
        await BashTool(workspace).execute(json.dumps({"command": "printf 'a\x00b'"}))
