"""The sandbox tried from inside, as a hostile command would: what can it read, signal, attach
to, connect to, type into or leave running? Real bubblewrap and real Landlock; the test process
stands for the daemon."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from harness9.process.launcher import LAUNCHER
from harness9.process.sandbox import (
    Availability,
    Mechanism,
    SandboxPolicy,
    availability,
)
from harness9.schema import ProcessExit
from harness9.service.config.settings import parse_lenient
from harness9.tools.bash import BashTool
from harness9.tools.contract import ToolOutput

pytestmark = pytest.mark.timeout(60)

HAS_BWRAP = availability().mechanism is Mechanism.BWRAP
HAS_LANDLOCK = availability().mechanism is not Mechanism.NONE
BWRAP = Availability(Mechanism.BWRAP)
LANDLOCK = Availability(Mechanism.LANDLOCK)
MECHANISMS = [
    pytest.param(BWRAP, id="bwrap",
                 marks=pytest.mark.skipif(not HAS_BWRAP, reason="no bubblewrap here")),
    pytest.param(LANDLOCK, id="landlock",
                 marks=pytest.mark.skipif(not HAS_LANDLOCK, reason="no Landlock here")),
]


async def run(root: Path, command: str, found: Availability,
              policy: SandboxPolicy | None = None) -> ToolOutput:
    tool = BashTool(root, sandbox=policy or SandboxPolicy(), found=found)
    return await tool.execute(json.dumps({"command": command}))


def failed(result: ToolOutput) -> bool:
    return result.exit is not None and result.exit.code != 0


@pytest.mark.parametrize("found", MECHANISMS)
async def test_no_command_reads_or_signals_or_attaches_to_the_daemon(
    workspace: Path, found: Availability, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-daemon-secret-in-memory")
    await run(workspace, "true", found)  # the launcher is up; threads of the daemon exist
    daemon = os.getpid()
    tasks = sorted(int(t) for t in os.listdir(f"/proc/{daemon}/task"))
    command = "; ".join(
        [f"cat /proc/{daemon}/task/{tid}/environ" for tid in tasks]
        + [f"cat /proc/{daemon}/environ",
           f"python3 -c \"open('/proc/{daemon}/mem', 'rb')\" && echo ATTACHED",
           *[f"kill -0 {tid} && echo SIGNALLED" for tid in tasks],
           "true"])
    result = await run(workspace, command, found)
    assert "sk-daemon-secret-in-memory" not in result.text
    assert "ATTACHED" not in result.text and "SIGNALLED" not in result.text, result.text


@pytest.mark.parametrize("found", MECHANISMS)
async def test_a_command_runs_in_a_process_of_its_own_from_a_clean_launcher(
    workspace: Path, found: Availability
) -> None:
    result = await run(workspace, "echo $$; echo $PPID", found)
    assert LAUNCHER.pid is not None
    launcher_environment = await asyncio.to_thread(
        Path(f"/proc/{LAUNCHER.pid}/environ").read_bytes)
    assert launcher_environment == b""  # the launcher was started with nothing of ours
    if found.mechanism is Mechanism.LANDLOCK:
        bash_parent = int(result.text.split()[1])
        assert bash_parent == LAUNCHER.pid != os.getpid()


@pytest.fixture
def unix_listener(workspace: Path) -> Iterator[str]:
    """A pathname unix socket on the host that answers, standing for the session bus (in the
    workspace: a path every command sees)."""
    path = workspace / "bus"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)
    server.settimeout(0.1)
    yield str(path)
    server.close()


@pytest.fixture
async def udp_listener() -> AsyncIterator[tuple[int, list[bytes]]]:
    """A UDP socket on the host's loopback; yields its port and what it received."""
    got: list[bytes] = []

    class Sink(asyncio.DatagramProtocol):
        def datagram_received(self, data: bytes, addr: object) -> None:
            got.append(data)

    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(Sink, local_addr=("127.0.0.1", 0))
    yield transport.get_extra_info("sockname")[1], got
    transport.close()


_CONNECT = """
import socket, sys
kind, where = sys.argv[1], sys.argv[2]
try:
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(where)
    elif kind == "abstract":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect("\\0" + where)
    elif kind == "mptcp":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
        s.connect(("127.0.0.1", int(where)))
    elif kind == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"escaped", ("127.0.0.1", int(where)))
    print("CONNECTED", kind)
except OSError as exc:
    print("refused", kind, exc)
"""


@pytest.mark.parametrize("found", MECHANISMS)
async def test_without_network_no_socket_leaves(
    workspace: Path, found: Availability, unix_listener: str,
    udp_listener: tuple[int, list[bytes]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    udp_port, received = udp_listener  # (bwrap: the sandbox's own loopback takes UDP)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind(f"\0harness9-test-{os.getpid()}")
    abstract.listen(1)
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)  # MPTCP, where the kernel has it
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(1)
    (workspace / "connect.py").write_text(_CONNECT)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={unix_listener}")
    monkeypatch.setenv("SSH_AUTH_SOCK", unix_listener)
    try:
        tries = [("unix", unix_listener), ("abstract", f"harness9-test-{os.getpid()}"),
                 ("mptcp", str(tcp.getsockname()[1])), ("udp", str(udp_port))]
        command = "; ".join(f"python3 connect.py {kind} {where}" for kind, where in tries)
        result = await run(workspace, command + "; env", found)
        await asyncio.sleep(0.1)
    finally:
        abstract.close()
        tcp.close()
    for kind in ("unix", "abstract", "mptcp"):
        assert f"CONNECTED {kind}" not in result.text, result.text
    if found.mechanism is Mechanism.LANDLOCK:
        assert "CONNECTED udp" not in result.text, result.text
    assert received == []
    assert "DBUS_SESSION_BUS_ADDRESS" not in result.text and "SSH_AUTH_SOCK" not in result.text
    with_network = await run(workspace, f"python3 connect.py unix {unix_listener}", found,
                             SandboxPolicy(network=True))
    assert "CONNECTED unix" in with_network.text, with_network.text


@pytest.mark.parametrize("found", MECHANISMS)
async def test_hidden_folders_cannot_be_read(
    workspace: Path, tmp_path: Path, found: Availability
) -> None:
    home = workspace / "home"  # (under /tmp, which bubblewrap replaces, only the workspace is)
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    (home / ".netrc").write_text("machine x password hunter2\n")
    (home / "notes.txt").write_text("readable\n")
    policy = SandboxPolicy(hide=(str(home / ".ssh"), str(home / ".netrc")))
    result = await run(workspace, f"cat {home}/.ssh/id_ed25519 {home}/.netrc; "
                                  f"cat {home}/notes.txt", found, policy)
    assert "PRIVATE KEY" not in result.text and "hunter2" not in result.text
    assert "readable" in result.text


@pytest.mark.parametrize("found", MECHANISMS)
async def test_commands_hold_no_capability_and_cannot_remount(
    workspace: Path, found: Availability
) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    command = ("grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status; "
               f"umount {workspace}/.git && echo UNMOUNTED; "
               "mount -o remount,rw,bind / && echo REMOUNTED; "
               f"echo '[core] fsmonitor = touch PWNED' >> {workspace}/.git/config; true")
    result = await run(workspace, command, found)
    for line in result.text.splitlines():
        if line.startswith(("CapEff", "CapPrm", "CapAmb")) or (
                line.startswith("CapBnd") and found.mechanism is Mechanism.LANDLOCK):
            assert line.split()[1] == "0000000000000000", line
    assert "UNMOUNTED" not in result.text and "REMOUNTED" not in result.text
    if found.mechanism is Mechanism.BWRAP:
        assert (workspace / ".git" / "config").read_text() == "[core]\n"


@pytest.mark.parametrize("found", MECHANISMS)
async def test_no_command_types_into_a_terminal(workspace: Path, found: Availability) -> None:
    command = ("python3 -c \"import fcntl, termios, os; "
               "fd = os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY); "
               "fcntl.ioctl(fd, termios.TIOCSTI, b'x'); print('TYPED')\"; "
               "for t in /dev/pts/[0-9]*; do echo hi > $t && echo WROTE $t; done; true")
    result = await run(workspace, command, found)
    assert "TYPED" not in result.text, result.text
    assert "Operation not permitted" in result.text
    if found.mechanism is Mechanism.LANDLOCK:
        assert "WROTE" not in result.text


_DAEMON = """
import asyncio, json, sys
from pathlib import Path
from harness9.process.sandbox import Availability, Mechanism, SandboxPolicy, SandboxMode
from harness9.tools.bash import BashTool

async def main():
    root, mechanism = Path(sys.argv[1]), Mechanism(sys.argv[2])
    policy = SandboxPolicy(SandboxMode.OFF if mechanism is Mechanism.NONE else
                           SandboxMode.WORKSPACE_WRITE)
    tool = BashTool(root, sandbox=policy, found=Availability(mechanism))
    command = ("env -u HARNESS9_TOOL_SESSION setsid sh -c 'echo $$ > escaped.pid; "
               "exec sleep 300' > /dev/null 2>&1 < /dev/null &")
    await tool.execute(json.dumps({"command": command}))
    print("ran", flush=True)
    await asyncio.sleep(300)

asyncio.run(main())
"""


@pytest.mark.parametrize("mechanism", [
    pytest.param(Mechanism.LANDLOCK, marks=pytest.mark.skipif(not HAS_LANDLOCK, reason="none")),
    Mechanism.NONE,
])
def test_nothing_a_command_started_outlives_its_daemon(workspace: Path,
                                                      mechanism: Mechanism) -> None:
    daemon = subprocess.Popen([sys.executable, "-c", _DAEMON, str(workspace), mechanism.value],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert daemon.stdout is not None and daemon.stdout.readline() == "ran\n"
        pid_file = workspace / "escaped.pid"
        for _ in range(100):
            if pid_file.exists() and pid_file.read_text().strip():
                break
            time.sleep(0.05)
        escaped = int(pid_file.read_text())
        assert _alive(escaped), "the detached job did not start"
    finally:
        daemon.send_signal(signal.SIGKILL)
        daemon.wait(10)
        if daemon.stdout is not None:
            daemon.stdout.close()
    deadline = time.monotonic() + 10
    while _alive(escaped) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(escaped), "a detached job outlived its daemon"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("found", MECHANISMS)
async def test_read_only_mode_ignores_writable_roots(
    workspace: Path, tmp_path: Path, found: Availability
) -> None:
    extra = tmp_path / "cache"
    extra.mkdir()
    settings, problems = parse_lenient({"sandbox": {"mode": "read-only",
                                                    "writableRoots": [str(extra)]}})
    assert problems == []
    policy = settings["sandbox"]
    result = await run(workspace, f"echo x > {extra}/written", found, policy)
    assert failed(result) and not (extra / "written").exists()


@pytest.mark.parametrize("found", MECHANISMS)
async def test_a_missing_or_swapped_writable_root_is_not_written_through(
    workspace: Path, tmp_path: Path, found: Availability
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    target = tmp_path / "target"
    target.mkdir()
    settings, _ = parse_lenient({"sandbox": {"writableRoots": [str(root),
                                                              str(tmp_path / "missing")]}})
    policy = settings["sandbox"]
    assert policy.writable_roots == (str(root),)  # the missing one left out, once
    first = await run(workspace, f"echo ok > {root}/a", found, policy)
    assert first.exit == ProcessExit(code=0), first.text  # a missing root breaks nothing
    root.rename(tmp_path / "moved")
    root.symlink_to(target)
    swapped = await run(workspace, f"echo x > {root}/b", found, policy)
    assert not (target / "b").exists(), swapped.text
    if found.mechanism is Mechanism.LANDLOCK:  # (bubblewrap: /tmp is the private one)
        assert failed(swapped)


async def test_a_launcher_that_died_is_replaced_and_its_commands_end(workspace: Path) -> None:
    tool = BashTool(workspace)
    running = asyncio.ensure_future(tool.execute(json.dumps({"command": "sleep 30"})))
    await asyncio.sleep(0.3)  # the launcher starts it
    first = LAUNCHER.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    ended = await asyncio.wait_for(running, 10)  # not a hang: reported as killed
    assert ended.exit == ProcessExit(signal="SIGKILL")
    again = await tool.execute(json.dumps({"command": "echo again"}))
    assert again.text == "again\n" and LAUNCHER.pid != first


@pytest.mark.skipif(not HAS_BWRAP, reason="no bubblewrap here")
async def test_what_decides_what_runs_stays_read_only_at_any_depth_and_cannot_be_created(
    workspace: Path,
) -> None:
    nested = workspace / "vendor" / "lib"
    (nested / ".git").mkdir(parents=True)
    (nested / ".git" / "config").write_text("[core]\n")
    (workspace / "pkg" / "sub").mkdir(parents=True)
    (workspace / "pkg" / "sub" / ".envrc").write_text("export A=1\n")
    (workspace / "src").mkdir()
    writes = [
        "echo '[core] fsmonitor = touch PWNED' >> vendor/lib/.git/config",
        "echo 'touch PWNED' >> pkg/sub/.envrc",
        "mkdir -p .vscode && echo '{\"runOn\": \"folderOpen\"}' > .vscode/tasks.json",
        "mkdir -p src/.githooks && echo 'touch PWNED' > src/.githooks/pre-commit",
        "echo 'touch PWNED' > src/.envrc",
        "mkdir -p .husky && echo x > .husky/pre-commit; echo x > app.code-workspace",
        "echo '(eval)' > src/.dir-locals.el; echo 'vim.cmd(1)' > .nvim.lua",
    ]
    for command in writes:
        result = await run(workspace, command, BWRAP)
        assert result.sandbox_denied is not None, (command, result.text)
    assert (nested / ".git" / "config").read_text() == "[core]\n"
    assert (workspace / "pkg" / "sub" / ".envrc").read_text() == "export A=1\n"
    for created in [".vscode", "src/.githooks", "src/.envrc", ".husky", "app.code-workspace",
                    "src/.dir-locals.el", ".nvim.lua"]:
        assert not (workspace / created).exists(), created
    ordinary = await run(workspace, "echo fine > src/main.py && mkdir -p build/out", BWRAP)
    assert ordinary.exit == ProcessExit(code=0) and ordinary.sandbox_denied is None


@pytest.fixture
def repository(workspace: Path) -> Path:
    """The workspace as a git repository whose hooks live in `tools/hooks`."""
    subprocess.run(["git", "init", "-q", str(workspace)], check=True, timeout=30)
    subprocess.run(["git", "-C", str(workspace), "config", "core.hooksPath", "tools/hooks"],
                   check=True, timeout=30)
    return workspace


@pytest.mark.skipif(not HAS_BWRAP, reason="no bubblewrap here")
async def test_the_folder_core_hooks_path_names_is_protected_existing_or_not(
    repository: Path,
) -> None:
    workspace = repository
    created = await run(workspace, "mkdir -p tools/hooks && echo x > tools/hooks/pre-commit",
                        BWRAP)
    assert created.sandbox_denied is not None and not (workspace / "tools" / "hooks").exists()
    (workspace / "tools" / "hooks").mkdir(parents=True)
    written = await run(workspace, "echo 'touch PWNED' > tools/hooks/pre-commit", BWRAP)
    assert written.exit is not None and written.exit.code != 0
    assert not (workspace / "tools" / "hooks" / "pre-commit").exists()
