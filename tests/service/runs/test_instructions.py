"""Project instructions on real temp folders: the system prompt's part, caps, nested files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness9.schema import ToolCall
from harness9.service.runs.instructions import MAX_BYTES, NestedInstructions, project_instructions
from harness9.tools import default_registry

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg" / "deep").mkdir(parents=True)
    (root / "pkg" / "deep" / "mod.py").write_text("x = 1\n")
    (root / "pkg" / "top.py").write_text("y = 2\n")
    (root / "top.txt").write_text("top\n")
    return root


def config_home() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"])


def test_root_and_user_files_are_introduced_with_where_they_came_from(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("Run `make check` before you finish.\n")
    user = config_home() / "harness9" / "AGENTS.md"
    user.parent.mkdir(parents=True)
    user.write_text("Answer in French.\n")
    text = project_instructions(str(workspace))
    assert text == (
        f"Instructions from the user's own file {user} (for every project):\n"
        "Answer in French.\n\n"
        "Instructions from the project's AGENTS.md (at the workspace root; where they differ "
        "from the user's, the project's win):\nRun `make check` before you finish."
    )


def test_no_files_no_text(workspace: Path) -> None:
    assert project_instructions(str(workspace)) == ""


def test_each_file_is_capped_with_a_note(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("a" * (MAX_BYTES + 500))
    text = project_instructions(str(workspace))
    body = text.split(":\n", 1)[1]
    note = f"\n[cut: only the first {MAX_BYTES} bytes of this file are shown]"
    assert body == "a" * MAX_BYTES + note


def test_a_root_file_linking_out_of_the_workspace_is_not_read(
    workspace: Path, tmp_path: Path
) -> None:
    (tmp_path / "outside.md").write_text("secret")
    (workspace / "AGENTS.md").symlink_to(tmp_path / "outside.md")
    assert project_instructions(str(workspace)) == ""


async def test_the_closest_nested_file_is_added_once_per_session(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("root rules")
    (workspace / "pkg" / "AGENTS.md").write_text("pkg rules")
    (workspace / "pkg" / "deep" / "AGENTS.md").write_text("deep rules")
    seen: set[str] = set()
    registry = default_registry(workspace, middleware=[NestedInstructions(str(workspace), seen)])

    async def read(path: str) -> str:
        call = ToolCall(id=path, name="read_file", arguments=f'{{"path": "{path}"}}')
        result = await registry.execute(call)
        assert not result.is_error, result.output
        return result.output

    assert await read("top.txt") == "top\n"  # the root's file is in the system prompt
    first = await read("pkg/deep/mod.py")
    assert first == (
        "x = 1\n\n\n[Instructions from pkg/deep/AGENTS.md, which apply to the files under "
        "pkg/deep/. The closest AGENTS.md to a file wins over the workspace root's and any "
        "further up.]\ndeep rules"
    )
    assert await read("pkg/deep/mod.py") == "x = 1\n"  # once per session
    assert (await read("pkg/top.py")).endswith("[Instructions from pkg/AGENTS.md, which apply "
                                                "to the files under pkg/. The closest AGENTS.md "
                                                "to a file wins over the workspace root's and "
                                                "any further up.]\npkg rules")
    assert seen == {"pkg/deep/AGENTS.md", "pkg/AGENTS.md"}


async def test_a_failed_call_adds_nothing(workspace: Path) -> None:
    (workspace / "pkg" / "AGENTS.md").write_text("pkg rules")
    seen: set[str] = set()
    registry = default_registry(workspace, middleware=[NestedInstructions(str(workspace), seen)])
    call = ToolCall(id="1", name="read_file", arguments='{"path": "pkg/missing.py"}')
    result = await registry.execute(call)
    assert result.is_error and "pkg rules" not in result.output
    assert seen == set()


async def test_an_edit_that_brings_instructions_keeps_its_report(workspace: Path) -> None:
    (workspace / "pkg" / "AGENTS.md").write_text("pkg rules")
    registry = default_registry(workspace, middleware=[NestedInstructions(str(workspace), set())])
    arguments = '{"path": "pkg/new.py", "content": "z = 3\\n"}'
    result = await registry.execute(ToolCall(id="1", name="write_file", arguments=arguments))
    assert not result.is_error and result.output.endswith("pkg rules")
    assert result.edit is not None
    assert (result.edit.path, result.edit.added, result.edit.removed) == ("pkg/new.py", 1, 0)


def test_instruction_files_that_are_not_regular_are_skipped(workspace: Path) -> None:
    user = config_home() / "harness9" / "AGENTS.md"
    user.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(user)  # opening it for reading would wait for a writer forever
    (workspace / "AGENTS.md").symlink_to("/proc/self/environ")
    try:
        assert project_instructions(str(workspace)) == ""
    finally:
        user.unlink()
