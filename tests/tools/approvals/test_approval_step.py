"""The approval step in a real registry with the real tools: asked, allowed, denied, rejected."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness9.schema import ToolCall, ToolDefinition, ToolFailure, ToolKind, ToolResult
from harness9.tools import BashTool, EditFileTool, ReadFileTool, Registry, WriteFileTool
from harness9.tools.approvals.policy import ApprovalPolicy, DecidedBy
from harness9.tools.approvals.step import (
    Answer,
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalStep,
    call_title,
)

pytestmark = pytest.mark.timeout(30)


class ScriptedUser:
    """An approver that answers from a list and records what it was asked; `hold` makes it
    wait for a signal before answering (a user thinking)."""

    def __init__(self, *answers: ApprovalAnswer, hold: asyncio.Event | None = None) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []
        self.hold = hold

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        if self.hold is not None:
            await self.hold.wait()
        return self.answers.pop(0)


class Journal:
    """An observer that keeps what the approval step reported."""

    def __init__(self) -> None:
        self.events: list[tuple[str, ...]] = []

    def requested(self, request: ApprovalRequest) -> None:
        self.events.append(("requested", request.call.id, request.title))

    def resolved(self, call: ToolCall, decision: str, by: DecidedBy, rule: str | None) -> None:
        self.events.append(("resolved", call.id, decision, by.value, str(rule)))


ONCE = ApprovalAnswer(Answer.ALLOW_ONCE)
SESSION = ApprovalAnswer(Answer.ALLOW_SESSION)


def registry(workspace: Path, user: ScriptedUser, journal: Journal | None = None,
             **policy: Any) -> tuple[Registry, ApprovalStep]:
    step = ApprovalStep(ApprovalPolicy.from_setting(policy), user, root=str(workspace),
                        observer=journal)
    tools = Registry([step])
    for tool in (ReadFileTool, WriteFileTool, EditFileTool, BashTool):
        tools.register(tool(workspace))
    return tools, step


def call(name: str, call_id: str = "c1", **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


async def test_bash_is_asked_about_and_runs_once_allowed(workspace: Path) -> None:
    user, journal = ScriptedUser(ONCE), Journal()
    tools, _ = registry(workspace, user, journal)
    result = await tools.execute(call("bash", command="echo hi > out.txt && echo done"))
    assert not result.is_error and result.output.strip() == "done"
    assert [r.title for r in user.asked] == ["bash: echo hi > out.txt && echo done"]
    assert user.asked[0].kind is ToolKind.EXECUTE
    assert journal.events == [
        ("requested", "c1", "bash: echo hi > out.txt && echo done"),
        ("resolved", "c1", "allow_once", "user", "None"),
    ]


async def test_a_rejected_call_never_runs_and_the_model_reads_why(workspace: Path) -> None:
    user = ScriptedUser(ApprovalAnswer(Answer.REJECT, "use the test runner instead"))
    tools, _ = registry(workspace, user)
    result = await tools.execute(call("bash", command="touch planted"))
    assert (result.is_error, result.failure) == (True, ToolFailure.REJECTED)
    assert "the user rejected this bash call: use the test runner instead" in result.output
    assert result.message == "use the test runner instead"  # the user's reason, for the rows
    assert not (workspace / "planted").exists()


async def test_a_rejection_s_reason_is_one_line_and_none_without_one(workspace: Path) -> None:
    user = ScriptedUser(ApprovalAnswer(Answer.REJECT, "  not\n now,\tthanks\x1b[2J \n"),
                        ApprovalAnswer(Answer.REJECT, " \n "), ApprovalAnswer(Answer.REJECT))
    tools, _ = registry(workspace, user)
    messages = [(await tools.execute(call("bash", command="touch planted"))).message
                for _ in range(3)]
    assert messages == ["not now, thanks\\x1b[2J", None, None]


async def test_allow_for_the_session_is_not_asked_again(workspace: Path) -> None:
    user = ScriptedUser(SESSION, ONCE)
    tools, step = registry(workspace, user)
    for _ in range(3):
        assert not (await tools.execute(call("bash", command="echo same"))).is_error
    await tools.execute(call("bash", command="echo other"))
    assert [r.title for r in user.asked] == ["bash: echo same", "bash: echo other"]
    assert step.memory.commands == {"echo same"}


async def test_deny_rules_and_read_only_refuse_without_asking(workspace: Path) -> None:
    user, journal = ScriptedUser(), Journal()
    tools, _ = registry(workspace, user, journal, mode="yolo", deny=["bash(rm *)"])
    result = await tools.execute(call("bash", command="ls && rm -rf src"))
    assert (result.failure, user.asked) == (ToolFailure.DENIED, [])
    assert "denied by the deny rule 'bash(rm *)'" in result.output
    assert result.message == "deny rule bash(rm *)"
    assert journal.events == [("resolved", "c1", "deny", "rule", "bash(rm *)")]
    tools, _ = registry(workspace, user, mode="read-only")
    result = await tools.execute(call("write_file", path="a.txt", content="x"))
    assert result.failure is ToolFailure.DENIED and "read-only" in result.output
    assert result.message == "read-only mode: only read_file may run"
    result = await tools.execute(call("write_file", path=".git/config", content="x"))
    assert (result.message or "").startswith("read-only mode: it writes .git/config")
    assert not (workspace / "a.txt").exists()
    (workspace / "b.txt").write_text("readable\n")
    assert (await tools.execute(call("read_file", path="b.txt"))).output == "readable\n"


class Lookup:
    """A tool of whatever kind it is given, answering with its `path` argument."""

    def __init__(self, kind: ToolKind) -> None:
        self.name = f"lookup_{kind.value}"
        self._kind = kind

    def definition(self) -> ToolDefinition:
        schema = {"type": "object", "properties": {"path": {"type": "string"}}}
        return ToolDefinition(self.name, "Look a path up.", schema, self._kind)

    async def execute(self, arguments: str) -> str:
        return f"found {json.loads(arguments)['path']}"


async def test_the_step_goes_by_the_kind_a_tool_declares(workspace: Path) -> None:
    user = ScriptedUser(ONCE)
    tools, _ = registry(workspace, user, mode="read-only")
    for kind in ToolKind:
        tools.register(Lookup(kind))
    reader = await tools.execute(call("lookup_read", path="a.py"))
    assert (reader.is_error, reader.output) == (False, "found a.py")
    for kind in ("edit", "execute", "other"):
        refused = await tools.execute(call(f"lookup_{kind}", path="a.py"))
        assert refused.failure is ToolFailure.DENIED, kind
    tools, _ = registry(workspace, user, mode="auto-edit")
    tools.register(Lookup(ToolKind.EDIT))
    tools.register(Lookup(ToolKind.OTHER))
    assert not (await tools.execute(call("lookup_edit", path="a.py"))).is_error
    assert user.asked == []
    assert not (await tools.execute(call("lookup_other", path="a.py"))).is_error
    [asked] = user.asked
    assert (asked.kind, asked.title, asked.path) == (ToolKind.OTHER, "lookup_other", None)


async def test_file_questions_carry_the_diff(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "a.py").write_text("x = 1\ny = 2\n")
    user = ScriptedUser(ONCE, ONCE)
    tools, _ = registry(workspace, user)
    await tools.execute(call("edit_file", path=str(workspace / "src/a.py"), source_text="y = 2",
                             target_text="y = 3"))
    await tools.execute(call("write_file", path="src/new.txt", content="hello\n"))
    edit, write = user.asked
    assert (edit.title, edit.path) == ("edit_file: src/a.py", "src/a.py")
    assert edit.kind is write.kind is ToolKind.EDIT
    assert edit.diff == (
        "--- a/src/a.py\n+++ b/src/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
    )
    assert write.diff == "--- /dev/null\n+++ b/src/new.txt\n@@ -0,0 +1 @@\n+hello\n"
    assert (workspace / "src" / "a.py").read_text() == "x = 1\ny = 3\n"


async def test_an_edit_that_would_fail_is_not_asked_about(workspace: Path) -> None:
    (workspace / "a.txt").write_text("x\n")
    user = ScriptedUser()
    tools, _ = registry(workspace, user)
    result = await tools.execute(call("edit_file", path="a.txt", source_text="nope",
                                      target_text="y"))
    assert result.is_error and "was not changed" in result.output
    assert user.asked == []


async def test_one_question_at_a_time_in_call_order_while_others_run(workspace: Path) -> None:
    (workspace / "r.txt").write_text("r\n")
    hold = asyncio.Event()
    user = ScriptedUser(ONCE, ONCE, hold=hold)
    tools, _ = registry(workspace, user)
    calls = [call("bash", "b1", command="echo one"), call("read_file", "r", path="r.txt"),
             call("bash", "b2", command="echo two")]
    tasks = [asyncio.create_task(tools.execute(c)) for c in calls]
    done, _ = await asyncio.wait(tasks, timeout=2, return_when=asyncio.FIRST_COMPLETED)
    assert [t for t in tasks if t in done] == [tasks[1]]  # the read ran while b1 waited
    assert [r.call.id for r in user.asked] == ["b1"]  # b2 is not asked before b1 is answered
    hold.set()
    results: list[ToolResult] = await asyncio.gather(*tasks)
    assert [r.output.strip() for r in results] == ["one", "r", "two"]
    assert [r.call.id for r in user.asked] == ["b1", "b2"]


async def test_waiting_for_the_user_does_not_count_against_the_timeout(workspace: Path) -> None:
    hold = asyncio.Event()
    user = ScriptedUser(ONCE, hold=hold)
    tools, _ = registry(workspace, user)
    running = asyncio.create_task(tools.execute(call("bash", command="sleep 0.3; echo ok"), 0.8))
    await asyncio.sleep(1.0)  # longer than the timeout
    hold.set()
    result = await running
    assert (result.is_error, result.output.strip()) == (False, "ok")


async def test_cancelling_while_a_question_is_pending_runs_nothing(workspace: Path) -> None:
    user = ScriptedUser(ONCE, hold=asyncio.Event())
    tools, _ = registry(workspace, user)
    running = asyncio.create_task(tools.execute(call("bash", command="touch planted")))
    while not user.asked:
        await asyncio.sleep(0.01)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    await asyncio.sleep(0.1)
    assert not (workspace / "planted").exists()


@pytest.mark.parametrize(("command", "shown"), [
    ("npm test\r; rm -rf ~", "npm test\\r; rm -rf ~"),
    ("npm test\x1c; rm -rf ~", "npm test\\x1c; rm -rf ~"),
    ("npm test\u2028; rm -rf ~", "npm test\\u2028; rm -rf ~"),
    ("npm test\x0b\x0c\x1d\x1e\x85; rm -rf ~", "npm test\\x0b\\x0c\\x1d\\x1e\\x85; rm -rf ~"),
    ("echo ok\x1b[2K\rrm -rf ~", "echo ok\\x1b[2K\\rrm -rf ~"),
    ("cd sub\nrm -rf ~", "cd sub\\nrm -rf ~"),
    ("echo '\u202erm -rf ~'", "echo '\\u202erm -rf ~'"),
    ("ls\u200b -la", "ls\\u200b -la"),
])
async def test_a_title_never_hides_part_of_what_will_run(
    workspace: Path, command: str, shown: str
) -> None:
    user = ScriptedUser(ApprovalAnswer(Answer.REJECT))
    tools, _ = registry(workspace, user)
    await tools.execute(call("bash", command=command))
    [asked] = user.asked
    assert asked.title == f"bash: {shown}"
    assert asked.title.splitlines() == [asked.title] and asked.title.isprintable()
    assert asked.arguments == {"command": command}  # the whole command, as it will run


def test_a_cut_title_says_so_and_every_title_is_one_printable_line() -> None:
    command = "npm test -- " + "--flag " * 40 + "; rm -rf ~"
    title = call_title("bash", ToolKind.EXECUTE, {"command": command})
    assert title.endswith("…") and len(title) == len("bash: ") + 120
    escapes = "\r" * 100
    cut = call_title("bash", ToolKind.EXECUTE, {"command": "ls" + escapes})
    assert cut.endswith("\\r…") and "\\" + "…" not in cut  # never inside an escape
    path = call_title("write_file", ToolKind.EDIT, {"path": "notes\r.git/config"}, "/ws")
    assert path == "write_file: notes\\r.git/config"
    assert call_title("mcp__x\x1b[2J", ToolKind.OTHER, {}) == "mcp__x\\x1b[2J"
