"""The OS sandbox and approval mode `auto` over the wire, with real bubblewrap: a command inside
the sandbox runs unasked; one that needs the network asks, with the model's reason, and runs
once allowed; the red-team shapes of the trust pass are harmless."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness9.process.sandbox import Mechanism, availability
from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.test_approvals import Editor, kinds
from tests.fakellm import Call, FakeLLM, Reply
from tests.process.test_sandbox import loopback

__all__ = ["loopback"]  # the fixture
pytestmark = [
    pytest.mark.timeout(90),
    pytest.mark.skipif(availability().mechanism is not Mechanism.BWRAP,
                       reason="bubblewrap does not work here"),
]
# The machine's defaults: the sandbox on, the approval mode it implies (auto).
MACHINE_DEFAULTS = {"HARNESS9_SANDBOX": "", "HARNESS9_APPROVALS": ""}


async def auto_daemon(start: StartDaemon, fake: FakeLLM, root: Path) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", **MACHINE_DEFAULTS}
    return await start(root, env=env, approval_requests=True)


async def test_auto_runs_inside_unasked_and_asks_to_leave_with_the_reason(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, loopback: int
) -> None:
    fetch = f"exec 3<>/dev/tcp/127.0.0.1/{loopback} && head -1 <&3 > index.txt"
    fake_llm.script([
        Reply("", [Call("bash", {"command": "echo built > build.txt"}, id="b1")]),
        Reply("", [Call("bash", {"command": fetch, "escalate": True,
                                 "reason": "download the package index"}, id="b2")]),
        Reply("done"),
    ])
    daemon = await auto_daemon(start, fake_llm, workspace)
    editor = Editor(daemon, {"decision": "allow_once"})
    result = await daemon.run(prompt="build, then fetch")
    assert (workspace / "build.txt").read_text() == "built\n"
    assert (workspace / "index.txt").read_text() == "hello from the host\n"
    [asked] = editor.asked
    assert asked["reason"] == "asks to run outside the OS sandbox: download the package index"
    assert asked["arguments"]["escalate"] is True
    started = kinds(daemon, result["runId"], "tool_started")
    completed = kinds(daemon, result["runId"], "tool_completed")
    assert [n["sandbox"] for n in started] == ["bwrap", "none"]
    assert [n["sandbox"] for n in completed] == ["bwrap", "none"]
    tools = await daemon.client.protocol.send_request_async("agent/tools", {})
    [bash] = [tool for tool in tools["tools"] if tool["name"] == "bash"]
    assert "escalate" in bash["inputSchema"]["properties"]


async def test_a_command_the_sandbox_stopped_is_asked_about_then_rerun_outside(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, loopback: int
) -> None:
    fetch = f"exec 3<>/dev/tcp/127.0.0.1/{loopback} && head -1 <&3 > index.txt"
    fake_llm.script([Reply("", [Call("bash", {"command": fetch}, id="b1")]), Reply("done")])
    daemon = await auto_daemon(start, fake_llm, workspace)
    editor = Editor(daemon, {"decision": "allow_once"})
    result = await daemon.run(prompt="fetch")
    [asked] = editor.asked
    assert asked["reason"].startswith("was stopped by the OS sandbox (")
    order = [n["kind"] for n in daemon.of_run(result["runId"])
             if n["kind"].startswith(("tool_", "approval_")) and n["kind"] != "tool_output"]
    assert order == ["tool_started", "approval_requested", "approval_resolved",
                     "tool_completed"]
    [completed] = kinds(daemon, result["runId"], "tool_completed")
    assert completed["sandbox"] == "none" and completed["exitCode"] == 0
    assert (workspace / "index.txt").read_text() == "hello from the host\n"


async def test_the_red_team_shapes_are_harmless_in_auto(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    """An unasked .git/config write followed by `git status`, and rm spelled many ways at a
    folder outside: nothing outside changes, .git/config keeps its bytes, no question."""
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious\n")
    spellings = ["rm", "\\rm", "/bin/rm", "command rm", "env rm", "'rm'", "r''m", "builtin rm",
                 "nohup rm", "xargs rm <<< "]
    calls = [Call("bash", {"command": f"{word} -rf {victim}/keep.txt"}, id=f"r{n}")
             for n, word in enumerate(spellings)]
    calls += [Call("bash", {"command": "python3 -c \"open('.git/config','a').write("
                                       "'[core]\\n\\tfsmonitor = touch PWNED\\n')\"; git status"},
                   id="g1"),
              Call("bash", {"command": f"find {victim} -delete"}, id="f1")]
    fake_llm.script([Reply("", calls), Reply("done")])
    daemon = await auto_daemon(start, fake_llm, workspace)
    editor = Editor(daemon, *[{"decision": "reject"}] * 20)
    result = await daemon.run(prompt="clean up")
    assert (victim / "keep.txt").read_text() == "precious\n"
    assert (workspace / ".git" / "config").read_text() == "[core]\n\trepositoryformatversion = 0\n"
    assert not (workspace / "PWNED").exists()
    # The attempts the sandbox visibly stopped were offered to run outside; the user said no.
    assert editor.asked and all(
        a["reason"].startswith("was stopped by the OS sandbox") for a in editor.asked)
    completed = kinds(daemon, result["runId"], "tool_completed")
    assert {n["sandbox"] for n in completed} == {"bwrap"}
    second = json.dumps(fake_llm.requests[1].body)
    assert "escalate: true" in second


async def test_an_allowed_command_the_sandbox_then_stopped_is_asked_about_again(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    """A write under .git is asked about in auto; once allowed, bubblewrap still keeps .git
    read-only: the second question (run it outside?) is asked and answered, no hang."""
    (workspace / ".git" / "info").mkdir(parents=True)
    command = "echo build/ >> .git/info/exclude"
    fake_llm.script([Reply("", [Call("bash", {"command": command}, id="x1")]), Reply("done")])
    daemon = await auto_daemon(start, fake_llm, workspace)
    editor = Editor(daemon, {"decision": "allow_once"}, {"decision": "allow_once"})
    async with asyncio.timeout(30):
        result = await daemon.run(prompt="ignore build/")
    first, second = editor.asked
    assert first["title"] == f"bash: {command}"
    assert second["reason"].startswith("was stopped by the OS sandbox (")
    assert (workspace / ".git" / "info" / "exclude").read_text() == "build/\n"
    [completed] = kinds(daemon, result["runId"], "tool_completed")
    assert completed["sandbox"] == "none" and completed["exitCode"] == 0


async def test_in_ask_mode_declining_to_leave_ends_the_call_with_the_sandboxs_error(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    """`ask` asks before every command; the one the sandbox then stops is asked about again,
    and declining ends the call with what the sandbox said (a failed command, not a hang)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    command = f"echo x > {outside}/made"
    fake_llm.script([Reply("", [Call("bash", {"command": command}, id="a1")]), Reply("done")])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_SANDBOX": "",
           "HARNESS9_APPROVALS": "ask"}
    daemon = await start(workspace, env=env, approval_requests=True)
    editor = Editor(daemon, {"decision": "allow_once"}, {"decision": "reject"})
    async with asyncio.timeout(30):
        result = await daemon.run(prompt="make it")
    assert result["status"] == "completed"
    first, second = editor.asked
    assert "reason" not in first or not first["reason"].startswith("was stopped")
    assert second["reason"].startswith("was stopped by the OS sandbox (")
    assert not (outside / "made").exists()
    [completed] = kinds(daemon, result["runId"], "tool_completed")
    assert completed["sandbox"] == "bwrap" and completed["exitCode"] != 0
    assert "escalate: true" in json.dumps(fake_llm.requests[1].body)
