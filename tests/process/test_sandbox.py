"""The OS sandbox with real bubblewrap and real Landlock: what a sandboxed bash command cannot
do (write outside, write what decides what runs, reach the host's loopback, see the daemon's
secrets, outlive its call) and what it still can (build and test a small project)."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from harness9.process.sandbox import (
    Availability,
    Mechanism,
    SandboxMode,
    SandboxPolicy,
    availability,
    protected_paths,
)
from harness9.schema import ProcessExit
from harness9.tools.bash import BashTool
from harness9.tools.contract import SANDBOX_WAIVED, ToolOutput

HAS_BWRAP = availability().mechanism is Mechanism.BWRAP
LANDLOCK = Availability(Mechanism.LANDLOCK)
BWRAP = Availability(Mechanism.BWRAP)

needs_bwrap = pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap does not work here")
MECHANISMS = [
    pytest.param(BWRAP, id="bwrap", marks=needs_bwrap),
    pytest.param(LANDLOCK, id="landlock", marks=pytest.mark.skipif(
        availability().mechanism is Mechanism.NONE, reason="no Landlock here")),
]


async def sandboxed(root: Path, command: str, found: Availability,
                    policy: SandboxPolicy | None = None) -> ToolOutput:
    tool = BashTool(root, sandbox=policy or SandboxPolicy(), found=found)
    return await tool.execute(json.dumps({"command": command}))


def host_has(path: str) -> bool:
    return Path(path).exists()


@pytest.fixture
def project(workspace: Path) -> Path:
    """A workspace with a git folder, editor settings and harness9's own folder."""
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "config").write_text("[core]\n")
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text("{}\n")
    (workspace / "src").mkdir()
    (workspace / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    return workspace


@pytest.fixture
async def loopback() -> AsyncIterator[int]:
    """A TCP server on the host's loopback; yields its port."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"hello from the host\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    yield server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()


@pytest.mark.parametrize("found", MECHANISMS)
async def test_a_command_writes_nothing_outside_the_workspace(
    project: Path, tmp_path: Path, found: Availability
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    spellings = [f"echo x > {outside}/a", f"touch {outside}/b", f"cp src/calc.py {outside}/c",
                 f"mkdir {outside}/d", f"python3 -c \"open('{outside}/e', 'w')\"",
                 f"rm -f {outside}/../elsewhere/keep", f"ln -s /etc {outside}/f"]
    (outside / "keep").write_text("kept\n")
    for command in spellings:
        result = await sandboxed(project, command, found)
        assert result.sandbox == found.mechanism.value
        # (`rm -f` of a path the sandbox hides succeeds: there is nothing to remove there.)
        assert command.startswith("rm -f") or result.exit != ProcessExit(code=0), command
    assert sorted(p.name for p in outside.iterdir()) == ["keep"]


@needs_bwrap
async def test_what_decides_what_runs_stays_read_only_with_bubblewrap(project: Path) -> None:
    for command in ["echo '[core] fsmonitor = touch PWNED' >> .git/config",
                    "echo 'touch PWNED' > .git/hooks/pre-commit",
                    "rm .vscode/settings.json", "mv .git .git-old",
                    "echo '{}' > .vscode/tasks.json"]:
        result = await sandboxed(project, command, BWRAP)
        assert result.exit is not None and result.exit.code != 0, command
        assert result.sandbox_denied is not None, result.text
    assert (project / ".git" / "config").read_text() == "[core]\n"
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert (project / ".vscode" / "settings.json").exists()
    assert not (project / ".vscode" / "tasks.json").exists()


@needs_bwrap
async def test_the_protect_globs_stay_read_only_too(project: Path) -> None:
    (project / "secrets").mkdir()
    (project / "secrets" / "prod.env").write_text("A=1\n")
    policy = SandboxPolicy(protect=("secrets/*.env",))
    result = await sandboxed(project, "echo B=2 >> secrets/prod.env", BWRAP, policy)
    assert result.exit is not None and result.exit.code != 0
    assert (project / "secrets" / "prod.env").read_text() == "A=1\n"


def test_protect_globs_never_name_what_lies_outside(project: Path) -> None:
    real = project.resolve()
    assert protected_paths([str(real)], ("../*",)) == [str(real / ".git"), str(real / ".vscode")]


@pytest.mark.parametrize("found", MECHANISMS)
async def test_the_hosts_loopback_is_out_of_reach(
    project: Path, loopback: int, found: Availability
) -> None:
    command = f"exec 3<>/dev/tcp/127.0.0.1/{loopback} && head -1 <&3"
    inside = await sandboxed(project, command, found)
    assert "hello from the host" not in inside.text
    assert inside.exit is not None and inside.exit.code != 0
    with_network = await sandboxed(project, command, found, SandboxPolicy(network=True))
    assert "hello from the host" in with_network.text


@pytest.mark.parametrize("found", MECHANISMS)
async def test_no_secret_of_the_daemon_is_visible(
    project: Path, monkeypatch: pytest.MonkeyPatch, found: Availability
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sandbox-test-secret")
    result = await sandboxed(
        project, "env; for f in /proc/[0-9]*/environ; do cat $f 2>/dev/null; done; true", found
    )
    assert "sk-sandbox-test-secret" not in result.text
    assert result.exit is not None and result.exit.code == 0


@needs_bwrap
async def test_with_bubblewrap_tmp_is_private_and_kept_across_calls(project: Path) -> None:
    first = await sandboxed(project, "echo kept > /tmp/h9-scratch && ls /tmp", BWRAP)
    assert first.exit == ProcessExit(code=0), first.text
    second = await sandboxed(project, "cat /tmp/h9-scratch", BWRAP)
    assert second.text == "kept\n"
    assert not host_has("/tmp/h9-scratch")


@needs_bwrap
async def test_nothing_a_command_starts_outlives_it(project: Path) -> None:
    marker = project / "alive"
    command = ("(setsid sh -c 'while true; do date +%s%N > alive; sleep 0.05; done' &) ; "
               "sleep 0.3; echo started")
    result = await sandboxed(project, command, BWRAP)
    assert "started" in result.text
    before = marker.read_text()
    await asyncio.sleep(0.5)
    assert marker.read_text() == before, "a detached loop still writes after the call ended"


@pytest.mark.parametrize("found", MECHANISMS)
async def test_a_small_project_builds_and_tests_inside(
    project: Path, found: Availability
) -> None:
    command = (
        "set -e; cat /etc/os-release > /dev/null; mkdir -p build tests; "
        "printf 'from src.calc import add\\nassert add(2, 3) == 5\\nprint(\"tests ok\")\\n' "
        "> tests/test_calc.py; python3 -m tests.test_calc; t=$(mktemp); echo tmp > $t; "
        "cat $t; echo scratch > $TMPDIR/scratch && cat $TMPDIR/scratch; python3 -c "
        "\"import tempfile; tempfile.NamedTemporaryFile().write(b'x'); print('tempfile ok')\""
    )
    result = await sandboxed(project, command, found)
    assert result.exit is not None and result.exit.code == 0, result.text
    assert result.text.splitlines() == ["tests ok", "tmp", "scratch", "tempfile ok"]
    assert (project / "tests" / "test_calc.py").exists()


@pytest.mark.parametrize("found", MECHANISMS)
async def test_read_only_mode_writes_nothing_in_the_workspace(
    project: Path, found: Availability
) -> None:
    policy = SandboxPolicy(SandboxMode.READ_ONLY)
    result = await sandboxed(project, "cat src/calc.py && echo y > src/new.py", found, policy)
    assert "return a + b" in result.text
    assert result.exit is not None and result.exit.code != 0
    assert not (project / "src" / "new.py").exists()


async def test_landlock_cannot_protect_a_part_of_the_workspace(project: Path) -> None:
    """Landlock allows a whole tree or none of it: .git is writable, which the tool's
    description does not claim otherwise (the approval step guards it instead)."""
    if availability().mechanism is Mechanism.NONE:
        pytest.skip("no Landlock here")
    tool = BashTool(project, sandbox=SandboxPolicy(), found=LANDLOCK)
    assert ".git" not in tool.definition().description
    bwrap_tool = BashTool(project, sandbox=SandboxPolicy(), found=BWRAP)
    assert "stays read-only and cannot be created" in bwrap_tool.definition().description


@pytest.mark.parametrize("found", MECHANISMS)
async def test_a_waived_call_runs_outside(project: Path, tmp_path: Path,
                                          found: Availability) -> None:
    outside = tmp_path / "allowed-out"
    token = SANDBOX_WAIVED.set(True)
    try:
        result = await sandboxed(project, f"echo ok > {outside}", found)
    finally:
        SANDBOX_WAIVED.reset(token)
    assert result.sandbox == "none" and outside.read_text() == "ok\n"


def test_availability_says_why_bubblewrap_is_not_used(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    found = availability(str(tmp_path))  # a PATH without bwrap
    assert found.mechanism is not Mechanism.BWRAP
    assert "bubblewrap is not installed" in found.reason
    if shutil.which("bwrap"):
        assert availability().mechanism is Mechanism.BWRAP


@needs_bwrap
async def test_a_signal_that_killed_the_command_is_reported_as_without_a_sandbox(
    project: Path,
) -> None:
    killed = await sandboxed(project, "kill -9 $$", BWRAP)
    assert killed.exit == ProcessExit(signal="SIGKILL")
    assert killed.text.endswith("killed by signal SIGKILL (9)")
    exited = await sandboxed(project, "exit 3", BWRAP)
    assert exited.exit == ProcessExit(code=3)


@pytest.mark.skipif(availability().mechanism is Mechanism.NONE, reason="no Landlock here")
async def test_landlock_confines_its_commands_and_never_the_daemon(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    out = await sandboxed(project, f"echo x > {outside}/a; echo y > inside.txt", LANDLOCK)
    assert not (outside / "a").exists() and (project / "inside.txt").exists(), out.text
    # The confined thread is the spawner's alone: this thread, its loop's default executor
    # and a new thread all still write anywhere.
    (outside / "b").write_text("daemon")
    await asyncio.to_thread((outside / "c").write_text, "executor")
    worker = threading.Thread(target=(outside / "d").write_text, args=("thread",))
    worker.start()
    worker.join()
    assert sorted(p.name for p in outside.iterdir()) == ["b", "c", "d"]
    # Commands started one after another and at once are all confined.
    outs = await asyncio.gather(*(sandboxed(project, f"touch {outside}/e{i}", LANDLOCK)
                                  for i in range(4)))
    assert all(o.sandbox == "landlock" for o in outs)
    assert sorted(p.name for p in outside.iterdir()) == ["b", "c", "d"]
