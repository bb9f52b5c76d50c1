"""`harness9 run --remote HOST:PATH` and `harness9 doctor --remote HOST`, through a real sshd on
loopback (tests/support/sshd.py): the daemon runs "on the remote side", on PATH, while the
terminal stands in a folder of its own."""

from __future__ import annotations

import os
import shlex
import time
from pathlib import Path
from typing import Any

import pytest

from tests.client.conftest import run_harness9
from tests.client.test_approvals import Terminal
from tests.support.sshd import HOST, SshHost

pytestmark = pytest.mark.timeout(60)

TURNS = [
    {"tool_calls": [{"name": "bash", "arguments": {"command": "pwd > where.txt && echo made"}}]},
    {"tool_calls": [{"name": "edit_file", "arguments": {
        "path": "a.txt", "source_text": "alpha", "target_text": "beta"}}]},
    {"text": "Done."},
]


def remote_env(host: SshHost, **daemon_env: str) -> dict[str, str]:
    """The client's environment: ssh with the test's config, harness9 started there as the
    test's checkout (with `daemon_env`)."""
    return {**os.environ, "HARNESS9_SSH": shlex.join(host.ssh_command),
            "HARNESS9_REMOTE_COMMAND": host.remote_command(daemon_env),
            "COLUMNS": "100", "TERM": "xterm"}


def test_run_remote_works_on_the_remote_folder_and_asks_here(
    ssh_host: SshHost, tmp_path: Path, replay: Any
) -> None:
    remote = tmp_path / "on-the-host"
    remote.mkdir()
    (remote / "a.txt").write_text("alpha\n")
    here = tmp_path / "here"
    here.mkdir()
    args = ["run", "make a file", "--workspace", str(here), "--remote", f"{HOST}:{remote}",
            "--replay", str(replay(TURNS))]
    terminal = Terminal(args, remote_env(ssh_host, HARNESS9_APPROVALS="ask"))
    terminal.expect("allow [a]once")
    assert "harness9 asks to run bash: pwd > where.txt && echo made" in terminal.text
    terminal.type("a")
    # The second question (the first one's text is still on the screen): its box, then its
    # line of answers; a key typed before that line would steer the run instead.
    terminal.expect("edit_file: a.txt", timeout=20)
    deadline = time.monotonic() + 20
    while terminal.screen.count("allow [a]once") < 2:
        assert time.monotonic() < deadline, terminal.text[-2000:]
        terminal.expect_more(0.2)
    terminal.type("a")
    assert terminal.wait() == 0
    assert "✓ completed" in terminal.text
    assert (remote / "where.txt").read_text().strip() == str(remote)
    assert (remote / "a.txt").read_text() == "beta\n"
    assert list(here.iterdir()) == []  # the terminal's folder only stands for the remote one


def test_run_remote_json_reports_the_local_folder(
    ssh_host: SshHost, tmp_path: Path, replay: Any
) -> None:
    remote = tmp_path / "on-the-host"
    remote.mkdir()
    here = tmp_path / "here"
    here.mkdir()
    done = run_harness9("run", "hi", "--json", "--workspace", str(here), "--remote",
                        f"{HOST}:{remote}", "--replay", str(replay([{"text": "Hi."}])),
                        env=remote_env(ssh_host))
    assert done.code == 0, done.err
    started = next(e for e in done.json_lines() if e.get("kind") == "run_started")
    assert started["workspaceRoot"] == str(here)


def test_a_bad_remote_target_is_a_usage_error() -> None:
    done = run_harness9("run", "hi", "--remote", "host:relative/path")
    assert (done.code, done.err) == (
        2, "harness9: --remote wants HOST:/absolute/path, got 'host:relative/path'.\n")


def test_doctor_remote_says_what_the_host_has(ssh_host: SshHost) -> None:
    done = run_harness9("doctor", "--remote", HOST, env=remote_env(ssh_host))
    lines = done.out.splitlines()
    assert done.code == 0, done.out + done.err
    assert lines[0].startswith(f"ssh {HOST}: connected as ")
    assert lines[1].startswith(f"harness9 on {HOST}: harness9 ")
    assert lines[2] == f"  an editor's server command: ssh {HOST} " \
        f"{remote_env(ssh_host)['HARNESS9_REMOTE_COMMAND']} serve"
    assert lines[3] == f"`harness9 doctor` on {HOST}:"
    assert lines[4].startswith("  sandbox: ")


def test_doctor_remote_says_what_the_host_lacks(ssh_host: SshHost) -> None:
    env = {k: v for k, v in remote_env(ssh_host).items() if k != "HARNESS9_REMOTE_COMMAND"}
    done = run_harness9("doctor", "--remote", HOST, env=env)
    if "harness9 on" in done.out and "MISSING" not in done.out:
        pytest.skip("harness9 is installed for this user on this machine: nothing is missing")
    assert done.code == 1
    assert f"harness9 on {HOST}: MISSING: harness9: not found on " in done.out
    assert "pipx install a clone or a wheel" in done.out


def test_doctor_remote_says_when_it_cannot_connect(ssh_host: SshHost) -> None:
    env = {**remote_env(ssh_host), "HARNESS9_SSH": "false"}  # an ssh that never connects
    done = run_harness9("doctor", "--remote", HOST, env=env)
    assert done.code == 1
    assert done.out.startswith(f"ssh {HOST}: cannot connect: ")
