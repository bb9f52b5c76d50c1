"""Generated: every path × every change made between the decision and the write. Whatever the
change, the only file the call may have written is the one its path led to when it was decided;
everything else (`.git/config`, files outside the workspace, other folders) is as the change
left it."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness9.schema import ToolCall
from harness9.tools import ReadFileTool, Registry, WriteFileTool
from harness9.tools.approvals.policy import ApprovalPolicy
from harness9.tools.approvals.step import Answer, ApprovalAnswer, ApprovalRequest, ApprovalStep
from harness9.tools.contract import BaseTool, ToolOutput
from harness9.tools.registry import Proceed
from harness9.workspace.seen_files import SeenFiles

pytestmark = pytest.mark.timeout(60)
NEW = "written by the call\n"
PATHS = ("top.txt", "d/f.txt", "d/new.txt", "l.txt", "e/deep/new.txt")


def build(tmp: Path) -> Path:
    ws, outside = tmp / "ws", tmp / "outside"
    for folder in (ws / ".git", ws / "d", ws / "e", outside):
        folder.mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / "d" / "f.txt").write_text("f\n")
    (ws / "top.txt").write_text("top\n")
    (ws / "l.txt").symlink_to("d/f.txt")
    (outside / "secret.txt").write_text("secret\n")
    return ws


def _relink(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.is_dir():
        link.rename(link.with_name(link.name + ".old"))
    link.symlink_to(target)


def changes(ws: Path, path: str) -> dict[str, Callable[[], None]]:
    """What a command of the same turn might do meanwhile, by name."""
    outside = ws.parent / "outside"

    def replace_folder() -> None:
        (ws / "d").rename(ws / "d.old")
        (ws / "d").mkdir()
        (ws / "d" / "f.txt").write_text("another f\n")

    return {
        "nothing": lambda: None,
        "file to .git/config": lambda: _relink(ws / path, ws / ".git" / "config"),
        "file to outside": lambda: _relink(ws / path, outside / "secret.txt"),
        "d to .git": lambda: _relink(ws / "d", ws / ".git"),
        "d to outside": lambda: _relink(ws / "d", outside),
        "d replaced": replace_folder,
        "l.txt to .git/config": lambda: _relink(ws / "l.txt", ws / ".git" / "config"),
    }


def tree(root: Path) -> dict[str, str]:
    """Every entry under `root` (links not followed): a file's text, a link's target."""
    found = {}
    for folder, folders, files in os.walk(root):
        for name in files + [f for f in folders if os.path.islink(os.path.join(folder, f))]:
            full = Path(folder, name)
            key = str(full.relative_to(root))
            found[key] = f"-> {os.readlink(full)}" if full.is_symlink() else full.read_text()
    return found


class Allow:
    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer(Answer.ALLOW_ONCE)


class Meanwhile:
    """Makes the change after the decision, before the tool runs, and keeps the tree as the
    change left it."""

    def __init__(self, change: Callable[[], None], root: Path) -> None:
        self.change, self.root = change, root
        self.after: dict[str, str] = {}

    async def __call__(self, call: ToolCall, tool: BaseTool, arguments: dict[str, Any],
                       proceed: Proceed) -> str | ToolOutput:
        if call.name == "write_file":
            self.change()
            self.after = tree(self.root)
        return await proceed()


CASES = [(path, change) for path, change in itertools.product(PATHS, changes(Path("."), "x"))]


@pytest.mark.parametrize(("path", "change"), CASES)
async def test_only_the_file_decided_on_is_ever_written(
    tmp_path: Path, path: str, change: str
) -> None:
    ws = build(tmp_path)
    decided = _real(ws, path, tmp_path)
    meanwhile = Meanwhile(changes(ws, path)[change], tmp_path)
    tools = Registry([ApprovalStep(ApprovalPolicy("auto"), Allow(), root=str(ws)), meanwhile])
    seen = SeenFiles()
    tools.register(ReadFileTool(ws, seen=seen))
    tools.register(WriteFileTool(ws, seen=seen))
    if (ws / path).exists():  # the stale guard: a file is replaced only once read
        assert not (await tools.execute(_call("read_file", path=path))).is_error
    result = await tools.execute(_call("write_file", path=path, content=NEW))
    now = tree(tmp_path)
    changed = {key for key in now.keys() | meanwhile.after.keys()
               if now.get(key) != meanwhile.after.get(key)}
    assert changed <= {decided}, (result.output, changed)
    if not result.is_error:
        assert now[decided] == NEW
    if change == "nothing":
        assert not result.is_error, result.output
    assert not [key for key in now if key.endswith(".h9tmp")]


def _real(ws: Path, path: str, base: Path) -> str:
    return os.path.relpath(os.path.realpath(ws / path), base)


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=json.dumps(arguments))
