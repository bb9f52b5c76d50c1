"""write_file on real folders: the seed's message, modes, folders, refusals and atomicity."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness9.schema import ToolError
from harness9.tools.read_file import ReadFileTool
from harness9.tools.write_file import WriteFileTool
from harness9.workspace.seen_files import SeenFiles


@pytest.fixture(autouse=True)
def _umask() -> Iterator[None]:
    """A known umask, so created folder modes are predictable."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


async def write(workspace: Path, path: str, content: str) -> str:
    """write_file as the model uses it: an existing file is read first (the stale guard)."""
    seen = SeenFiles()
    with contextlib.suppress(ToolError):
        await ReadFileTool(workspace, seen=seen).execute(json.dumps({"path": path}))
    tool = WriteFileTool(workspace, seen=seen)
    return (await tool.execute(json.dumps({"path": path, "content": content}))).text


async def write_error(workspace: Path, path: str, content: str = "x") -> str:
    with pytest.raises(ToolError) as caught:
        await write(workspace, path, content)
    return str(caught.value)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".h9tmp"))


def test_definition_requires_path_and_content(workspace: Path) -> None:
    definition = WriteFileTool(workspace).definition()
    assert definition.name == "write_file"
    assert definition.input_schema["required"] == ["path", "content"]
    assert "0644" in definition.description


async def test_creates_the_file_with_the_seed_message(workspace: Path) -> None:
    assert await write(workspace, "hello.txt", "hi\n") == "Wrote 3 bytes to hello.txt"
    assert (workspace / "hello.txt").read_text() == "hi\n"


async def test_counts_utf8_bytes(workspace: Path) -> None:
    assert await write(workspace, "zh.txt", "中文") == "Wrote 6 bytes to zh.txt"
    assert (workspace / "zh.txt").read_bytes() == "中文".encode()


async def test_new_file_gets_mode_0644(workspace: Path) -> None:
    os.umask(0o077)  # the mode is set exactly, whatever the umask
    await write(workspace, "new.txt", "x")
    assert stat.S_IMODE((workspace / "new.txt").stat().st_mode) == 0o644


@pytest.mark.parametrize("mode", [0o600, 0o755, 0o640, 0o444])
async def test_overwrite_keeps_the_mode(workspace: Path, mode: int) -> None:
    target = workspace / "a.txt"
    target.write_text("old content that is longer")
    target.chmod(mode)
    await write(workspace, "a.txt", "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert leftovers(workspace) == []


async def test_creates_parent_folders_0755(workspace: Path) -> None:
    message = await write(workspace, "a/b/c/d.txt", "")
    assert message == "Wrote 0 bytes to a/b/c/d.txt"
    assert (workspace / "a/b/c/d.txt").read_bytes() == b""
    for folder in ("a", "a/b", "a/b/c"):
        assert stat.S_IMODE((workspace / folder).stat().st_mode) == 0o755


async def test_absolute_path_inside_is_accepted(workspace: Path) -> None:
    path = str(workspace / "abs.txt")
    assert await write(workspace, path, "x") == f"Wrote 1 byte to {path}"


async def test_folder_target_is_an_error(workspace: Path) -> None:
    (workspace / "src").mkdir()
    assert await write_error(workspace, "src") == (
        "Error: src is a folder; give the path of a file inside it"
    )
    assert "names a folder" in await write_error(workspace, "new/")
    assert not (workspace / "new").exists()


async def test_file_in_the_way_of_a_folder_is_an_error(workspace: Path) -> None:
    (workspace / "a").write_text("a file")
    assert "a part of the path is a file" in await write_error(workspace, "a/b.txt")
    assert (workspace / "a").read_text() == "a file"


async def test_outside_paths_are_refused_and_nothing_is_written(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "ws-evil"
    outside.mkdir()
    (workspace / "out").symlink_to(outside, target_is_directory=True)
    (workspace / "dangling").symlink_to(outside / "planted.txt")
    for path in ("../x.txt", "../ws-evil/x.txt", "out/x.txt", "dangling", str(outside / "x")):
        assert "outside the workspace" in await write_error(workspace, path)
    assert list(outside.iterdir()) == []


async def test_link_inside_the_workspace_writes_its_target(workspace: Path) -> None:
    (workspace / "real.txt").write_text("old")
    (workspace / "alias.txt").symlink_to("real.txt")
    await write(workspace, "alias.txt", "new")
    assert (workspace / "alias.txt").is_symlink()
    assert (workspace / "real.txt").read_text() == "new"


async def test_unencodable_content_writes_nothing(workspace: Path) -> None:
    (workspace / "a.txt").write_text("old")
    # JSON may carry an unpaired surrogate; it has no UTF-8 form.
    arguments = '{"path": "a.txt", "content": "bad \\ud800 text"}'
    with pytest.raises(ToolError, match="unpaired surrogate at character 4"):
        await WriteFileTool(workspace).execute(arguments)
    assert (workspace / "a.txt").read_text() == "old"


_LIMITED_WRITER = """
import asyncio, json, resource, signal, sys
from harness9.schema import ToolError
from harness9.tools.read_file import ReadFileTool
from harness9.workspace.seen_files import SeenFiles
from harness9.tools.write_file import WriteFileTool
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of being killed
resource.setrlimit(resource.RLIMIT_FSIZE, (65536, resource.RLIM_INFINITY))
args = json.dumps({"path": "data.txt", "content": "n" * 1_000_000})
seen = SeenFiles()
asyncio.run(ReadFileTool(sys.argv[1], seen=seen).execute('{"path": "data.txt"}'))
try:
    print(asyncio.run(WriteFileTool(sys.argv[1], seen=seen).execute(args)).text)
except ToolError as exc:
    print(exc)
"""


@pytest.mark.timeout(20)
def test_failure_mid_write_leaves_the_old_file_and_no_temp_file(workspace: Path) -> None:
    # A real short write: the file size limit stops the kernel after 64 KiB of the new content.
    (workspace / "data.txt").write_text("old")
    done = subprocess.run(
        [sys.executable, "-c", _LIMITED_WRITER, str(workspace)],
        capture_output=True,
        text=True,
        timeout=15,
        check=True,
    )
    assert done.stdout.startswith("Error: cannot write data.txt: File too large")
    assert "the file was left unchanged" in done.stdout
    assert (workspace / "data.txt").read_text() == "old"
    assert leftovers(workspace) == []


_KILLED_WRITER = """
import asyncio, json, sys
from harness9.tools.read_file import ReadFileTool
from harness9.workspace.seen_files import SeenFiles
from harness9.tools.write_file import WriteFileTool
args = json.dumps({"path": "data.txt", "content": "n" * 64_000_000})
seen = SeenFiles()
asyncio.run(ReadFileTool(sys.argv[1], seen=seen).execute('{"path": "data.txt"}'))
asyncio.run(WriteFileTool(sys.argv[1], seen=seen).execute(args))
"""


@pytest.mark.timeout(30)
def test_kill_mid_write_leaves_the_old_content(workspace: Path) -> None:
    (workspace / "data.txt").write_text("old")
    child = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(workspace)])
    try:
        # Kill exactly while the new bytes are going to disk: the temp file exists and grows.
        deadline = time.monotonic() + 20
        while not any(p.stat().st_size > 0 for p in temp_files(workspace)):
            assert child.poll() is None, "the write finished before it could be interrupted"
            assert time.monotonic() < deadline
            time.sleep(0.001)
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=10)
    assert (workspace / "data.txt").read_bytes() == b"old"


def temp_files(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.endswith(".h9tmp")]
