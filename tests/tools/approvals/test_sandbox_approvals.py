"""Approval mode `auto` and leaving the OS sandbox, through the real step, registry, bash and
bubblewrap (or Landlock): sandboxed commands run unasked, leaving the sandbox is asked about
with a reason, a command the sandbox stopped is offered to run outside."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness9.process.sandbox import Mechanism, SandboxPolicy, availability
from harness9.schema import ToolCall, ToolFailure
from harness9.tools import BashTool, EditFileTool, ReadFileTool, Registry, WriteFileTool
from harness9.tools.approvals.policy import ApprovalPolicy
from harness9.tools.approvals.step import Answer, ApprovalAnswer, ApprovalStep
from tests.tools.approvals.test_approval_step import Journal, ScriptedUser

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(availability().mechanism is Mechanism.NONE, reason="no OS sandbox here"),
]

ONCE = ApprovalAnswer(Answer.ALLOW_ONCE)
SESSION = ApprovalAnswer(Answer.ALLOW_SESSION)
REJECT = ApprovalAnswer(Answer.REJECT, "no")


def sandboxed_registry(workspace: Path, user: ScriptedUser, journal: Journal | None = None,
                       **policy: Any) -> Registry:
    step = ApprovalStep(ApprovalPolicy.from_setting(policy), user, root=str(workspace),
                        observer=journal)
    tools = Registry([step])
    for tool in (ReadFileTool, WriteFileTool, EditFileTool):
        tools.register(tool(workspace))
    tools.register(BashTool(workspace, sandbox=SandboxPolicy()))
    return tools


def bash(command: str, call_id: str = "c1", **more: Any) -> ToolCall:
    return ToolCall(id=call_id, name="bash", arguments=json.dumps({"command": command, **more}))


def write(path: str, content: str) -> ToolCall:
    return ToolCall(id="w1", name="write_file",
                    arguments=json.dumps({"path": path, "content": content}))


async def test_auto_runs_edits_and_sandboxed_commands_unasked(workspace: Path) -> None:
    user = ScriptedUser()
    tools = sandboxed_registry(workspace, user, mode="auto")
    written = await tools.execute(write("src/a.py", "x = 1\n"))
    ran = await tools.execute(bash("python3 -c 'import src.a; print(src.a.x)' && touch made"))
    assert not written.is_error and not ran.is_error, ran.output
    assert ran.output.strip() == "1" and (workspace / "made").exists()
    assert ran.sandbox == availability().mechanism.value
    assert user.asked == []


async def test_leaving_the_sandbox_is_asked_with_the_models_reason(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "cache"
    user, journal = ScriptedUser(ONCE), Journal()
    tools = sandboxed_registry(workspace, user, journal, mode="auto")
    result = await tools.execute(bash(f"echo ok > {outside}", escalate=True,
                                      reason="write the shared cache"))
    assert not result.is_error and result.sandbox == "none"
    assert outside.read_text() == "ok\n"
    [asked] = user.asked
    assert asked.reason == "asks to run outside the OS sandbox: write the shared cache"


async def test_a_rejected_escalation_runs_nothing(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "cache"
    tools = sandboxed_registry(workspace, ScriptedUser(REJECT), mode="auto")
    result = await tools.execute(bash(f"echo ok > {outside}", escalate=True, reason="r"))
    assert result.is_error and result.failure is ToolFailure.REJECTED
    assert not outside.exists()


async def test_escalation_is_asked_even_where_an_allow_rule_matches(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "o"
    user = ScriptedUser(REJECT)
    tools = sandboxed_registry(workspace, user, mode="auto", allow=["bash(echo *)"])
    result = await tools.execute(bash(f"echo ok > {outside}", escalate=True))
    assert result.is_error and len(user.asked) == 1 and not outside.exists()


async def test_a_command_the_sandbox_stopped_is_offered_to_run_outside(
    workspace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    user, journal = ScriptedUser(SESSION), Journal()
    tools = sandboxed_registry(workspace, user, journal, mode="auto")
    command = f"touch {target}/made && echo done"
    result = await tools.execute(bash(command))
    assert not result.is_error and result.output.strip() == "done", result.output
    assert result.sandbox == "none" and (target / "made").exists()
    [asked] = user.asked
    assert asked.reason is not None and asked.reason.startswith("was stopped by the OS sandbox")
    # "For this session": the same command leaves the sandbox again without a question.
    (target / "made").unlink()
    again = await tools.execute(bash(command, "c2"))
    assert again.output.strip() == "done" and len(user.asked) == 1


async def test_declining_to_leave_keeps_the_sandboxed_result(
    workspace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    tools = sandboxed_registry(workspace, ScriptedUser(REJECT), mode="auto")
    result = await tools.execute(bash(f"touch {target}/made"))
    assert not result.is_error and "escalate: true" in result.output
    assert result.exit is not None and result.exit.code != 0
    assert not (target / "made").exists()


async def test_yolo_leaves_the_sandbox_without_asking_and_read_only_never(
    workspace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "t"
    yolo = sandboxed_registry(workspace, ScriptedUser(), mode="yolo")
    assert not (await yolo.execute(bash(f"echo y > {target}", escalate=True))).is_error
    assert target.read_text() == "y\n"
    read_only = sandboxed_registry(workspace, ScriptedUser(), mode="read-only")
    denied = await read_only.execute(bash(f"echo r > {target}", escalate=True))
    assert denied.is_error and denied.failure is ToolFailure.DENIED
    assert target.read_text() == "y\n"


async def test_auto_still_asks_before_a_redirection_into_git(workspace: Path) -> None:
    """What Landlock cannot keep read-only, the step still asks about."""
    (workspace / ".git").mkdir()
    user = ScriptedUser(REJECT)
    tools = sandboxed_registry(workspace, user, mode="auto")
    result = await tools.execute(bash("echo '[core] fsmonitor = x' >> .git/config"))
    assert result.is_error and len(user.asked) == 1
    assert not (workspace / ".git" / "config").exists()


async def test_without_a_sandbox_auto_asks_before_commands(workspace: Path) -> None:
    user = ScriptedUser(REJECT)
    step = ApprovalStep(ApprovalPolicy.from_setting({"mode": "auto"}), user, root=str(workspace))
    tools = Registry([step])
    tools.register(BashTool(workspace))  # no sandbox policy: commands would run unconfined
    result = await tools.execute(bash("touch x"))
    assert result.is_error and len(user.asked) == 1 and not (workspace / "x").exists()


async def test_an_asked_command_the_sandbox_stops_is_asked_about_again(
    workspace: Path, tmp_path: Path
) -> None:
    """The first answer allowed the sandboxed command; the sandbox stopping it brings the
    second question (run it outside?) at once, from the same call."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    user = ScriptedUser(ONCE, ONCE)
    tools = sandboxed_registry(workspace, user, mode="ask")
    async with asyncio.timeout(20):
        result = await tools.execute(bash(f"touch {target}/made && echo done"))
    assert result.output.strip() == "done" and result.sandbox == "none", result.output
    first, second = user.asked
    assert first.reason is None
    assert second.reason is not None and second.reason.startswith("was stopped by the OS sandbox")
    assert (target / "made").exists()


async def test_declining_the_second_question_keeps_the_sandboxs_error(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / ".git" / "info").mkdir(parents=True)
    user = ScriptedUser(ONCE, REJECT)
    tools = sandboxed_registry(workspace, user, mode="auto")
    async with asyncio.timeout(20):
        result = await tools.execute(bash("echo build/ >> .git/info/exclude"))
    assert not result.is_error and len(user.asked) == 2
    assert result.exit is not None and result.exit.code != 0
    assert "escalate: true" in result.output
    assert not (workspace / ".git" / "info" / "exclude").exists()
