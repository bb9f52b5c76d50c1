"""harness9's resident: a daemon's start handed to a process that has the libraries loaded,
then standing for the daemon (its signals, its end), never outliving it nor letting it outlive
the start."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness9.resident import starter
from tests.e2e.raw import RawDaemon

pytestmark = pytest.mark.timeout(120)
PLAIN = [sys.executable, "-m", "harness9"]


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The environment of starts that use a resident whose socket is in a folder of the
    test's (short: a socket's path is); any resident started there is stopped afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="h9-run-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield {"HARNESS9_RESIDENT": "1", "XDG_RUNTIME_DIR": str(folder)}
    for pid_file in (folder / "harness9").glob("*.pid"):
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def serve(runtime: dict[str, str], tmp_path: Path) -> Iterator[Callable[..., RawDaemon]]:
    """`serve(**env)` starts a plain `harness9 serve` (no test fork server) with `runtime`."""
    started: list[RawDaemon] = []

    def make(**env: str) -> RawDaemon:
        started.append(RawDaemon({**runtime, **env}, tmp_path / f"serve-{len(started)}.log",
                                 [*PLAIN, "serve"]))
        return started[-1]

    yield make
    for daemon in started:
        daemon.kill()


def _until(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {what}")
        time.sleep(0.05)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(word) for word in text.split()]


def _resident_pid() -> int:
    path = starter.socket_path()
    assert path is not None
    pid_file = Path(path + ".pid")
    _until(pid_file.exists, "the resident has its libraries loaded", 120)
    return int(pid_file.read_text())


def _through_resident(runtime: dict[str, str]) -> None:
    """A short start (`exec --help`) through the resident, ready by then."""
    result = subprocess.run([*PLAIN, "exec", "--help"], env={**os.environ, **runtime},
                            capture_output=True, text=True, timeout=110)
    assert result.returncode == 0 and "exec" in result.stdout, result.stderr


def _daemon_of(resident: int) -> int:
    """The one daemon the resident runs (its supervisor's child)."""
    def daemons() -> list[int]:
        return [d for s in _children(resident) for d in _children(s) if _alive(d)]

    _until(lambda: len(daemons()) == 1, "one forked daemon")
    (daemon,) = daemons()
    return daemon


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


def test_a_second_start_is_forked_by_the_resident_and_ends_with_its_start(
        serve: Callable[..., RawDaemon], runtime: dict[str, str], tmp_path: Path) -> None:
    first = serve()
    first.initialize(tmp_path)  # on its own: no resident listened yet
    resident = _resident_pid()
    _through_resident(runtime)
    second = serve(OPENAI_API_KEY="sk-resident-test")
    second.initialize(tmp_path)  # answered by the forked daemon, on the start's pipes
    daemon = _daemon_of(resident)
    assert daemon != second.proc.pid
    # The start lives as long as the daemon: the key is wiped from its environment too.
    assert b"sk-resident-test" not in Path(f"/proc/{second.proc.pid}/environ").read_bytes()
    second.proc.send_signal(signal.SIGTERM)  # passed on: the daemon ends, and so the start
    assert second.proc.wait(30) in (128 + signal.SIGTERM, -signal.SIGTERM)
    _until(lambda: not _alive(daemon), "the daemon ends with its start")
    assert first.close() == b""
    assert second.rest(timeout=1) == b""


def test_a_killed_start_takes_its_daemon_along(runtime: dict[str, str], tmp_path: Path,
                                              serve: Callable[..., RawDaemon]) -> None:
    proc = subprocess.Popen([sys.executable, "-P", "-m", "harness9.resident.starter",
                             str(starter.socket_path())], env={**os.environ, **runtime},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert _resident_pid() == proc.pid
        doctor = subprocess.run([*PLAIN, "doctor"], env={**os.environ, **runtime},
                                capture_output=True, text=True, timeout=60)
        assert f"resident: ready (pid {proc.pid})" in doctor.stdout, doctor.stdout
        _through_resident(runtime)
        start = serve()
        start.initialize(tmp_path)
        daemon = _daemon_of(proc.pid)
        start.proc.kill()  # no signal to pass on: the supervisor sees the start gone
        start.proc.wait(10)
        _until(lambda: not _alive(daemon), "the daemon ends when its start is killed", 15)
    finally:
        proc.terminate()
        assert proc.wait(10) == 0


def test_the_exit_status_the_errors_and_the_environment_are_the_starts(
        runtime: dict[str, str], tmp_path: Path) -> None:
    def exec_run(**env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*PLAIN, "exec", "hi", "--workspace", "nothere"], cwd=tmp_path,
                              env={**os.environ, **runtime, **env}, capture_output=True,
                              text=True, timeout=60)

    cold = exec_run(HARNESS9_RESIDENT="0", OPENAI_API_KEY="k")
    exec_run()  # starts the resident
    resident = _resident_pid()
    _until(lambda: Path(str(starter.socket_path())).exists(), "the resident listens")
    warm = exec_run(OPENAI_API_KEY="k")
    assert (warm.returncode, warm.stdout, warm.stderr) == (
        cold.returncode, cold.stdout, cold.stderr)
    assert warm.returncode != 0
    assert f"{tmp_path}/nothere" in warm.stderr  # the start's folder, not the resident's
    assert _alive(resident)


def test_a_start_that_starts_python_differently_runs_on_its_own_once(
        runtime: dict[str, str], tmp_path: Path) -> None:
    exec_args = [*PLAIN, "exec", "hi", "--workspace", "nothere"]
    env = {**os.environ, **runtime, "OPENAI_API_KEY": "k"}
    subprocess.run(exec_args, cwd=tmp_path, env=env, capture_output=True, timeout=60)
    resident = _resident_pid()
    _through_resident(runtime)
    # PYTHONHASHSEED changes how an interpreter starts: not this resident's start (another
    # resident's, which it starts for next time), and never handed back and forth.
    fresh = subprocess.run(exec_args, cwd=tmp_path, env={**env, "PYTHONHASHSEED": "7"},
                           capture_output=True, text=True, timeout=60)
    assert fresh.returncode != 0 and f"{tmp_path}/nothere" in fresh.stderr, fresh.stderr
    _until(lambda: not [d for s in _children(resident) for d in _children(s)],
           "no daemon of the resident's is left", 15)
    folder = Path(runtime["XDG_RUNTIME_DIR"], "harness9")
    _until(lambda: len(list(folder.glob("*.pid"))) == 2, "a resident for that start")


def test_a_resident_whose_code_changed_leaves(runtime: dict[str, str]) -> None:
    folder = starter.socket_folder()
    assert folder is not None
    stale = Path(folder) / "resident-0000000000000000.sock"
    proc = subprocess.Popen([sys.executable, "-P", "-m", "harness9.resident.starter",
                             str(stale)], env={**os.environ, **runtime},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert proc.wait(60) == 0
    assert not stale.exists() and not Path(f"{stale}.pid").exists()


def test_a_folder_others_can_enter_is_not_used(runtime: dict[str, str],
                                               tmp_path: Path) -> None:
    folder = Path(runtime["XDG_RUNTIME_DIR"]) / "harness9"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    assert starter.socket_folder() is None
    result = subprocess.run([*PLAIN, "exec", "hi", "--workspace", "nothere"], cwd=tmp_path,
                            env={**os.environ, **runtime, "OPENAI_API_KEY": "k"},
                            capture_output=True, text=True, timeout=60)
    assert "nothere" in result.stderr
    assert list(folder.iterdir()) == []  # ran on its own, started no resident


def test_the_resident_and_what_it_forks_are_not_dumpable() -> None:
    # A supervisor keeps its start's environment (the editor's keys) for the daemon's life.
    source = ("import ctypes, os\n"
              "from harness9.resident import fork_server\n"
              "fork_server._not_dumpable()\n"
              "pid = os.fork()\n"
              "if pid == 0:\n"
              "    os._exit(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))\n"  # PR_GET_DUMPABLE
              "os._exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n")
    done = subprocess.run([sys.executable, "-c", source], timeout=30)
    assert done.returncode == 0


def test_a_stopped_resident_removes_its_files_and_a_new_one_sweeps_the_dead(
        runtime: dict[str, str]) -> None:
    folder = starter.socket_folder()
    assert folder is not None
    # A resident killed outright (SIGKILL) leaves its socket with no one listening.
    dead = Path(folder) / "resident-dead000000000000.sock"
    for name in (str(dead), f"{dead}.pid", f"{dead}.log"):
        Path(name).write_text("")
    path = str(starter.socket_path())
    proc = subprocess.Popen([sys.executable, "-P", "-m", "harness9.resident.starter", path],
                            env={**os.environ, **runtime},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert _resident_pid() == proc.pid
        assert not dead.exists() and not Path(f"{dead}.pid").exists()
        assert not Path(f"{dead}.log").exists()
    finally:
        proc.terminate()  # as `kill` stops it
        assert proc.wait(10) == 0
    assert sorted(os.listdir(folder)) == []


def test_a_resident_stopped_while_it_loads_removes_its_files(runtime: dict[str, str]) -> None:
    folder = starter.socket_folder()
    assert folder is not None
    path = str(starter.socket_path())
    proc = subprocess.Popen([sys.executable, "-P", "-m", "harness9.resident.starter", path],
                            env={**os.environ, **runtime},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _until(lambda: Path(path).exists(), "the resident listens", 30)
        assert not Path(f"{path}.pid").exists()  # still waiting to load its libraries
    finally:
        proc.terminate()
        assert proc.wait(10) == 0
    assert sorted(os.listdir(folder)) == []
