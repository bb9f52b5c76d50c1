"""The workspace port: the disk implementation, the file tools through another implementation
(an in-memory editor holding some files open), and the stale guard of write_file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness9.schema import ToolError
from harness9.tools.bash import BashTool
from harness9.tools.edit_file import EditFileTool
from harness9.tools.read_file import ReadFileTool
from harness9.tools.write_file import WriteFileTool
from harness9.workspace.port import (
    DiskWorkspace,
    FileText,
    Moved,
    Page,
    Written,
    fingerprint_of,
    page_of,
)
from harness9.workspace.seen_files import SeenFiles


@pytest.fixture
def workspace(workspace: Path) -> Path:
    """The workspace, holding `a.txt` ("alpha")."""
    (workspace / "a.txt").write_text("alpha\n")
    return workspace


class MemoryEditor(DiskWorkspace):
    """An editor holding some files open: reads and writes of those go to its buffers (and
    written text to disk too, as the daemon's editor workspace does)."""

    def __init__(self, root: Path, buffers: dict[str, str]) -> None:
        super().__init__(root)
        self.buffers = buffers

    async def read_page(self, path: str, offset: int, limit: int) -> Page:
        if path not in self.buffers:
            return await super().read_page(path, offset, limit)
        data = self.buffers[path].encode()
        return page_of(data, offset, limit, fingerprint_of(data), "from the editor")

    async def read_text(self, path: str) -> FileText | None:
        if path not in self.buffers:
            return await super().read_text(path)
        text = self.buffers[path]
        return FileText(text, fingerprint_of(text.encode()), via="editor")

    async def write_text(
        self, path: str, text: str, *, tool: str, base: FileText | None, encoding: str = "utf-8"
    ) -> Written:
        if path not in self.buffers:
            return await super().write_text(path, text, tool=tool, base=base, encoding=encoding)
        self.buffers[path] = text
        await super().write_text(path, text, tool=tool, base=None)
        return Written("editor", fingerprint_of(text.encode()))


class Session:
    """The three file tools and bash of one session on `root`, through `workspace`."""

    def __init__(self, root: Path, workspace: DiskWorkspace | None = None) -> None:
        files = workspace or DiskWorkspace(root)
        seen = SeenFiles()
        self.tools = {
            "read_file": ReadFileTool(root, workspace=files, seen=seen),
            "write_file": WriteFileTool(root, workspace=files, seen=seen),
            "edit_file": EditFileTool(root, workspace=files, seen=seen),
            "bash": BashTool(root),
        }

    async def call(self, tool: str, **arguments: str) -> str:
        output = await self.tools[tool].execute(json.dumps(arguments))
        return output if isinstance(output, str) else output.text

    async def refused(self, tool: str, **arguments: str) -> str:
        with pytest.raises(ToolError) as caught:
            await self.call(tool, **arguments)
        return str(caught.value)


async def test_the_disk_gives_one_fingerprint_for_one_content(workspace: Path) -> None:
    disk = DiskWorkspace(workspace)
    page = await disk.read_page("a.txt", 0, 4096)
    text = await disk.read_text("a.txt")
    assert text is not None and (text.text, text.via) == ("alpha\n", "disk")
    assert page.fingerprint == text.fingerprint == fingerprint_of(b"alpha\n")
    written = await disk.write_text("a.txt", "beta\n", tool="write_file", base=text)
    assert (written.via, written.fingerprint) == ("disk", fingerprint_of(b"beta\n"))
    assert await disk.exists("a.txt") and not await disk.exists("missing.txt")
    assert await disk.read_text("missing.txt") is None


async def test_a_write_based_on_an_older_text_is_refused(workspace: Path) -> None:
    disk = DiskWorkspace(workspace)
    base = await disk.read_text("a.txt")
    (workspace / "a.txt").write_text("changed meanwhile\n")
    with pytest.raises(Moved):
        await disk.write_text("a.txt", "beta\n", tool="edit_file", base=base)
    assert (workspace / "a.txt").read_text() == "changed meanwhile\n"


async def test_not_utf8_text_is_marked_with_its_first_bad_byte(workspace: Path) -> None:
    (workspace / "l.txt").write_bytes(b"caf\xe9\n")
    text = await DiskWorkspace(workspace).read_text("l.txt")
    assert text is not None and (text.utf8, text.bad_byte) == (False, (0xE9, 3))


async def test_the_tools_read_and_edit_what_the_editor_holds(workspace: Path) -> None:
    editor = MemoryEditor(workspace, {"a.txt": "alpha\nunsaved\n"})
    session = Session(workspace, editor)
    assert await session.call("read_file", path="a.txt") == (
        "alpha\nunsaved\n\n\n[from the editor]"
    )
    edit = await session.tools["edit_file"].execute(json.dumps(
        {"path": "a.txt", "source_text": "unsaved", "target_text": "edited"}))
    assert editor.buffers["a.txt"] == "alpha\nedited\n"
    assert (workspace / "a.txt").read_text() == "alpha\nedited\n"
    assert not isinstance(edit, str) and edit.edit is not None
    assert (edit.edit.via, edit.edit.added, edit.edit.removed) == ("editor", 1, 1)


async def test_write_file_refuses_a_file_the_session_never_read(workspace: Path) -> None:
    session = Session(workspace)
    message = await session.refused("write_file", path="a.txt", content="omega\n")
    assert message == (
        "Error: a.txt already exists and you have not read it in this session, so write_file "
        "did not overwrite it. Read it first with read_file (then write the complete new "
        "content), or change part of it with edit_file"
    )
    assert (workspace / "a.txt").read_text() == "alpha\n"
    await session.call("read_file", path="./a.txt")  # the same file, spelled differently
    await session.call("write_file", path="a.txt", content="omega\n")
    await session.call("write_file", path="a.txt", content="again\n")  # it wrote it itself
    assert (workspace / "a.txt").read_text() == "again\n"


@pytest.mark.parametrize("change", ["disk", "bash", "editor", "other session"])
async def test_write_file_refuses_a_file_changed_since_the_read(
    workspace: Path, change: str
) -> None:
    editor = MemoryEditor(workspace, {})
    session = Session(workspace, editor)
    await session.call("read_file", path="a.txt")
    if change == "disk":
        (workspace / "a.txt").write_text("alpha\nmore\n")
    elif change == "bash":
        await session.call("bash", command="echo more >> a.txt")
    elif change == "editor":
        editor.buffers["a.txt"] = "alpha\ntyped\n"
    else:
        other = Session(workspace, editor)
        await other.call("edit_file", path="a.txt", source_text="alpha", target_text="beta")
    message = await session.refused("write_file", path="a.txt", content="omega\n")
    assert message.startswith("Error: a.txt has changed since you last read or wrote it")
    assert "Read it again with read_file" in message
    await session.call("read_file", path="a.txt")
    await session.call("write_file", path="a.txt", content="omega\n")
    assert (workspace / "a.txt").read_text() == "omega\n"


async def test_new_files_and_edits_need_no_read(workspace: Path) -> None:
    session = Session(workspace)
    await session.call("write_file", path="new/b.txt", content="b\n")
    await session.call("edit_file", path="a.txt", source_text="alpha", target_text="beta")
    # edit_file matched the current text, and the session now knows what it wrote.
    await session.call("write_file", path="a.txt", content="gamma\n")
    assert (workspace / "a.txt").read_text() == "gamma\n"


async def test_the_approval_preview_applies_the_guard_too(workspace: Path) -> None:
    tool = WriteFileTool(workspace)
    with pytest.raises(ToolError, match="you have not read it"):
        await tool.preview({"path": "a.txt", "content": "x"}, "a.txt")


async def test_edits_landing_together_are_all_kept(workspace: Path) -> None:
    (workspace / "p.txt").write_text("".join(f"{i}\n" for i in range(20)))
    editor = MemoryEditor(workspace, {})
    session = Session(workspace, editor)
    await asyncio.gather(*(
        session.call("edit_file", path="p.txt", source_text=f"{i}\n", target_text=f"-{i}\n")
        for i in range(10, 20)
    ))
    text = (workspace / "p.txt").read_text()
    assert all(f"-{i}\n" in text for i in range(10, 20))
