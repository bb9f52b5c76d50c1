"""A write goes where it was decided: a link swapped in between the approval step's decision
and the write (while the user is asked, or by a command meanwhile) fails the call, and nothing
is written through it."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness9.schema import ToolCall, ToolResult
from harness9.tools import EditFileTool, ReadFileTool, Registry, WriteFileTool
from harness9.tools.approvals.policy import ApprovalPolicy
from harness9.tools.approvals.step import (
    Answer,
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalStep,
)
from harness9.tools.contract import BaseTool, ToolOutput
from harness9.tools.registry import Proceed
from harness9.workspace.seen_files import SeenFiles

pytestmark = pytest.mark.timeout(30)
CONFIG = "[core]\n\tbare = false\n"


class SwappingUser:
    """A user who, while the question is open, lets `meanwhile` change the workspace (a
    sandboxed command of the same turn), then allows the call."""

    def __init__(self, meanwhile: Callable[[], None]) -> None:
        self.meanwhile = meanwhile
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        self.meanwhile()
        return ApprovalAnswer(Answer.ALLOW_ONCE)


class Meanwhile:
    """A middleware after the approval step: changes the workspace between the decision on a
    call and its tool's run (once, for the call named)."""

    def __init__(self, tool: str, change: Callable[[], None]) -> None:
        self.tool, self.change = tool, change

    async def __call__(self, call: ToolCall, tool: BaseTool, arguments: dict[str, Any],
                       proceed: Proceed) -> str | ToolOutput:
        if call.name == self.tool:
            self.change()
        return await proceed()


def registry(workspace: Path, approver: Any, *later: Any, mode: str) -> Registry:
    step = ApprovalStep(ApprovalPolicy(mode), approver, root=str(workspace))
    tools = Registry([step, *later])
    seen = SeenFiles()  # one session's: what it read, it may replace
    for tool in (ReadFileTool, WriteFileTool, EditFileTool):
        tools.register(tool(workspace, seen=seen))
    return tools


def call(name: str, call_id: str = "c1", **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


@pytest.fixture
def repo(workspace: Path) -> Path:
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text(CONFIG)
    (workspace / "sub").mkdir()
    (workspace / "a.txt").write_text("bare = false\n")
    return workspace


def link_in_place(path: Path, target: Path) -> Callable[[], None]:
    def swap() -> None:
        path.unlink()
        path.symlink_to(target)
    return swap


def assert_refused(result: ToolResult, repo: Path, words: str) -> None:
    assert result.is_error and words in result.output, result.output
    assert "nothing was written" in result.output
    assert (repo / ".git" / "config").read_text() == CONFIG


async def test_a_link_swapped_in_while_the_user_is_asked_is_not_written_through(
    repo: Path
) -> None:
    user = SwappingUser(link_in_place(repo / "a.txt", repo / ".git" / "config"))
    tools = registry(repo, user, mode="ask")
    result = await tools.execute(call("edit_file", path="a.txt", source_text="bare = false",
                                      target_text="fsmonitor = ./evil.sh"))
    assert [r.path for r in user.asked] == ["a.txt"]  # decided on a.txt, not a protected file
    assert_refused(result, repo, "a.txt was replaced by a symbolic link after this call was "
                                 "decided")
    assert (repo / "a.txt").is_symlink()  # the link itself is left alone too


async def test_a_link_swapped_in_before_an_unasked_write_fails_it(repo: Path) -> None:
    swap = Meanwhile("write_file", link_in_place(repo / "a.txt", repo / ".git" / "config"))
    tools = registry(repo, SwappingUser(lambda: None), swap, mode="auto")
    for path in (".git/config", "a.txt"):  # reads run unasked: the stale guard knows both
        assert not (await tools.execute(call("read_file", path=path))).is_error
    result = await tools.execute(call("write_file", path="a.txt", content="[core]\n\tx = 1\n"))
    assert_refused(result, repo, "a.txt was replaced by a symbolic link")


async def test_a_folder_swapped_for_a_link_before_the_write_fails_it(repo: Path) -> None:
    def swap() -> None:
        (repo / "sub").rmdir()
        (repo / "sub").symlink_to(repo / ".git", target_is_directory=True)
    tools = registry(repo, SwappingUser(lambda: None), Meanwhile("write_file", swap),
                     mode="auto")
    assert not (await tools.execute(call("read_file", path=".git/config"))).is_error
    result = await tools.execute(call("write_file", path="sub/config", content="[core]\n"))
    assert result.is_error and "is a symbolic link, not a folder" in result.output
    assert (repo / ".git" / "config").read_text() == CONFIG


async def test_a_folder_replaced_by_another_before_the_write_fails_it(repo: Path) -> None:
    def swap() -> None:
        os.rename(repo / "sub", repo / "sub.old")
        (repo / "sub").mkdir()
    tools = registry(repo, SwappingUser(lambda: None), Meanwhile("write_file", swap),
                     mode="auto")
    result = await tools.execute(call("write_file", path="sub/new.txt", content="x\n"))
    assert_refused(result, repo, "the folder of sub/new.txt was replaced after this call was "
                                 "decided")
    assert not (repo / "sub" / "new.txt").exists() and not (repo / "sub.old" / "new.txt").exists()


async def test_a_link_decided_on_is_written_at_its_target_never_replaced(repo: Path) -> None:
    (repo / "b.txt").write_text("one\n")
    (repo / "link.txt").symlink_to("b.txt")
    tools = registry(repo, SwappingUser(lambda: None), mode="auto")
    result = await tools.execute(call("edit_file", path="link.txt", source_text="one",
                                      target_text="two"))
    assert not result.is_error, result.output
    assert (repo / "b.txt").read_text() == "two\n" and (repo / "link.txt").is_symlink()


async def test_a_link_to_a_protected_file_is_decided_on_the_protected_file(repo: Path) -> None:
    (repo / "c.txt").symlink_to(".git/config")
    user = SwappingUser(lambda: None)
    tools = registry(repo, user, mode="auto")
    result = await tools.execute(call("edit_file", path="c.txt", source_text="bare = false",
                                      target_text="bare = true"))
    assert not result.is_error
    assert [r.reason for r in user.asked] == [
        "writes .git/config, which controls what git runs (through c.txt)"]
