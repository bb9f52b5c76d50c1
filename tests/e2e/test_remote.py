"""Remote workspaces: the daemon started through a real sshd on loopback (`ssh host harness9
serve`), the editor's paths mapped to the daemon's by `pathMap`.

The editor's side of the workspace is a path that does not exist on the daemon's side, as on
another machine: every URI the daemon reads must have been translated, and every URI it sends
must come back to the editor's path.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.editor import Editor
from tests.fakellm import Call, FakeLLM, Reply
from tests.support.sshd import HOST, SshHost

pytestmark = pytest.mark.timeout(60)

def remote_env(fake: FakeLLM, **extra: str) -> dict[str, str]:
    """The remote daemon's environment over the test's: the fake model, and `extra`."""
    return {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_LANGUAGE_SERVERS": "{}",
            **extra}


def serve_through(host: SshHost, env: dict[str, str]) -> list[str]:
    """`ssh host harness9 serve`, as an editor's server command."""
    return [*host.ssh_command, HOST, host.remote_command(env, "serve")]


def sides(tmp_path: Path, workspace: Path) -> tuple[Path, Path]:
    """The editor's path of the workspace (absent on the daemon's side) and the daemon's."""
    return tmp_path / "editor-machine" / "project", workspace


async def remote_daemon(start: StartDaemon, host: SshHost, fake: FakeLLM, local: Path,
                        remote: Path, **env: str) -> Daemon:
    path_map = [{"local": local.as_uri(), "remote": str(remote)}]
    return await start(local, command=serve_through(host, remote_env(fake, **env)),
                       init={"pathMap": path_map}, approval_requests=True, diagnostics=True)


async def test_an_editor_works_through_ssh_on_its_own_paths(
    start: StartDaemon, ssh_host: SshHost, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    local, remote = sides(tmp_path, workspace)
    fake_llm.script([
        Reply("", [Call("read_file", {"path": "a.txt"})]),
        Reply("", [Call("edit_file", {"path": "a.txt", "source_text": "typed",
                                      "target_text": "edited"})]),
        Reply("", [Call("bash", {"command": "pwd"})]),
        Reply("done"),
    ])
    daemon = await remote_daemon(start, ssh_host, fake_llm, local, remote,
                                 HARNESS9_APPROVALS="ask")
    assert daemon.initialized.capabilities.experimental["harness9"]["pathMap"] is True
    editor = Editor(daemon)
    asked: list[dict[str, Any]] = []
    problems_of: list[str] = []

    @daemon.client.feature("agent/requestApproval")
    async def _ask(ls: Any, params: Any) -> dict[str, Any]:
        asked.append(dict(params))
        return {"decision": "allow_once"}

    @daemon.client.feature("harness9/diagnostics")
    async def _diagnostics(ls: Any, params: Any) -> dict[str, Any]:
        problems_of.append(dict(params)["uri"])
        return {"diagnostics": []}

    editor.open(local / "a.txt", "alpha\n")
    editor.type(local / "a.txt", 1, "typed\n")
    result = await daemon.run(prompt="go", workspaceFolder=local.as_uri())

    assert result["status"] == "completed"
    started = next(n for n in daemon.of_run(result["runId"]) if n["kind"] == "run_started")
    assert started["workspaceRoot"] == str(local)
    outputs = [n["output"] for n in daemon.of_run(result["runId"])
               if n["kind"] == "tool_completed"]
    assert "typed" in outputs[0]  # the editor's buffer, found under the daemon's path
    assert outputs[2].strip().splitlines()[0] == str(remote)  # bash runs on the remote side
    (applied,) = editor.edits
    assert (applied["edit"]["documentChanges"][0]["textDocument"]["uri"]
            == (local / "a.txt").as_uri())
    assert editor.text(local / "a.txt") == "alpha\nedited\n"
    assert (remote / "a.txt").read_text() == "alpha\nedited\n"
    assert [a["tool"] for a in asked] == ["edit_file", "bash"]
    assert set(problems_of) == {(local / "a.txt").as_uri()}
    sessions = await daemon.request("agent/sessions", {"workspaceFolder": local.as_uri()})
    assert [s["workspaceRoot"] for s in sessions["sessions"]] == [str(local)]


async def test_a_dropped_connection_cancels_the_run_and_the_next_one_continues_it(
    start: StartDaemon, ssh_host: SshHost, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    local, remote = sides(tmp_path, workspace)
    pid_file = tmp_path / "daemon.pid"
    fake_llm.script([
        Reply("", [Call("bash", {"command": f"echo $PPID > {pid_file}; sleep 30"})]),
        Reply("carried on"),
    ])
    first = await remote_daemon(start, ssh_host, fake_llm, local, remote,
                                HARNESS9_APPROVALS="yolo")
    running = asyncio.ensure_future(first.run(prompt="the first prompt"))
    await first.wait_for(lambda n: n["kind"] == "tool_started")
    session_id = first.progress[0]["sessionId"]
    async with asyncio.timeout(10):
        while not pid_file.exists() or not pid_file.read_text().strip():
            await asyncio.sleep(0.05)
    daemon_pid = int(pid_file.read_text())
    ssh = first.client._server
    assert ssh is not None
    ssh.send_signal(signal.SIGKILL)  # the network goes away: no shutdown, no exit
    running.cancel()

    async with asyncio.timeout(10):  # the remote daemon notices and ends, cancelling the run
        while _alive(daemon_pid):
            await asyncio.sleep(0.05)
    second = await remote_daemon(start, ssh_host, fake_llm, local, remote,
                                 HARNESS9_APPROVALS="yolo")
    stored = await second.request("agent/session", {"sessionId": session_id})
    assert stored["runs"][0]["prompt"] == "the first prompt"
    assert stored["runs"][0]["status"] == "cancelled"
    result = await second.run(prompt="go on", sessionId=session_id)
    assert (result["status"], result["text"]) == ("completed", "carried on")
    seen = [m.get("content") for m in fake_llm.requests[-1].body["messages"]]
    assert "the first prompt" in str(seen)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_bad_path_map_is_a_warning_and_changes_nothing(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon = await start(workspace, init={"pathMap": [{"local": "/x"}]})
    daemon.change_configuration({"harness9": {"pathMap": "/a=/b"}})
    await daemon.request("agent/tools", {})
    async with asyncio.timeout(10):
        while len(daemon.client.messages) < 2:
            await asyncio.sleep(0.02)
    first, second = (m.message for m in daemon.client.messages)
    assert first.startswith("harness9: ignoring invalid settings: pathMap: must be a list")
    assert second.endswith('got str')
    root = daemon.progress  # nothing ran; the root is the workspace as given, unmapped
    assert root == []
    answer = await daemon.request("agent/sessions", {"workspaceFolder": workspace.as_uri()})
    assert answer == {"sessions": []}
