"""edit_file on real folders: its contract, sandbox, refusals, bytes, atomicity and races."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness9.schema import ToolCall, ToolError
from harness9.tools.edit.refusals import EditError
from harness9.tools.edit_file import EditFileTool
from harness9.tools.registry import Registry


def args(path: str, source: str, target: str) -> str:
    return json.dumps({"path": path, "source_text": source, "target_text": target})


async def edit(workspace: Path, path: str, source: str, target: str) -> str:
    return (await EditFileTool(workspace).execute(args(path, source, target))).text


def test_definition_offers_the_seed_parameters(workspace: Path) -> None:
    tool = EditFileTool(workspace)
    definition = tool.definition()
    assert tool.name == definition.name == "edit_file"
    schema = definition.input_schema
    assert schema["type"] == "object"
    assert schema["required"] == ["path", "source_text", "target_text"]
    assert {p["type"] for p in schema["properties"].values()} == {"string"}
    assert "exactly once" in definition.description


def test_definition_names_what_is_refused(workspace: Path) -> None:
    # The model learns the refusals from the description, not by hitting each one.
    text = EditFileTool(workspace).definition().description
    for refusal in ("almost as close", "existing code ...` or a bare `...` line (refused",
                    "not `\\n`", "Latin-1", "HTML entities", "typographic operators",
                    "refused as already applied", "keeps fewer times",
                    "nesting otherwise than the file",
                    "quotes each match with a line that tells it apart"):
        assert refusal in text, refusal
    for tolerated in ("markdown fence", "diff's +/-/space column", "`12→`", "zero-width",
                      "backslashes doubled", "CR, LF or CRLF", "closing line left out",
                      "(whole or line by line)"):
        assert tolerated in text, tolerated


async def test_success_text_names_the_level_when_not_exact(workspace: Path) -> None:
    (workspace / "a.py").write_text("def f():\n    return 1\n")
    assert await edit(workspace, "a.py", "return 1", "return 2") == "Edited a.py"
    out = await edit(workspace, "a.py", "def f():\n  return 2", "def f():\n  return 3")
    assert out == "Edited a.py\n(matched at level 4: indentation-insensitive; re-indented)"
    out = await edit(workspace, "a.py", "  return 3  ", "return 4")
    assert out == "Edited a.py\n(matched at level 3: trimmed)"
    assert (workspace / "a.py").read_text() == "def f():\n    return 4\n"


async def test_path_outside_the_workspace_is_refused(workspace: Path) -> None:
    outside = workspace.parent / "outside.txt"
    outside.write_text("secret = 1\n")
    with pytest.raises(ToolError, match="outside the workspace"):
        await edit(workspace, "../outside.txt", "secret = 1", "secret = 2")
    (workspace / "link.txt").symlink_to(outside)
    with pytest.raises(ToolError, match="outside the workspace"):
        await edit(workspace, "link.txt", "secret = 1", "secret = 2")
    assert outside.read_text() == "secret = 1\n"


async def test_symlink_inside_the_workspace_edits_its_target(workspace: Path) -> None:
    (workspace / "real.txt").write_text("a\n")
    (workspace / "alias.txt").symlink_to("real.txt")
    await edit(workspace, "alias.txt", "a", "b")
    assert (workspace / "alias.txt").is_symlink()
    assert (workspace / "real.txt").read_text() == "b\n"


async def test_missing_file_is_an_error_and_no_folder_is_created(workspace: Path) -> None:
    with pytest.raises(ToolError) as refused:
        await edit(workspace, "new/dir/x.txt", "a", "b")
    assert str(refused.value) == (
        "Error: new/dir/x.txt does not exist. edit_file only changes existing files; check the "
        "path, or create the file with write_file"
    )
    assert os.listdir(workspace) == []


async def test_folder_is_an_error(workspace: Path) -> None:
    (workspace / "sub").mkdir()
    with pytest.raises(ToolError) as refused:
        await edit(workspace, "sub", "a", "b")
    assert str(refused.value) == "Error: sub is a folder; give the path of a file inside it"


async def test_latin1_text_is_edited_in_latin1(workspace: Path) -> None:
    (workspace / "latin1.txt").write_bytes(b"caf\xe9 = 1\nna\xefve = 2\n")
    await edit(workspace, "latin1.txt", "café = 1", "café = 3\nd\xe9j\xe0 = 4")
    assert (workspace / "latin1.txt").read_bytes() == (
        b"caf\xe9 = 3\nd\xe9j\xe0 = 4\nna\xefve = 2\n"
    )


async def test_latin1_text_refuses_what_latin1_cannot_hold(workspace: Path) -> None:
    data = b"caf\xe9 = 1\n"
    (workspace / "latin1.txt").write_bytes(data)
    with pytest.raises(ToolError) as refused:
        await edit(workspace, "latin1.txt", "= 1", "= '\u20ac'")
    assert str(refused.value) == (
        "Error: latin1.txt is Latin-1 text (not UTF-8), which cannot hold the character '\u20ac' "
        "of the new content; nothing was written. Use only Latin-1 characters (or escapes the "
        "language allows)"
    )
    assert (workspace / "latin1.txt").read_bytes() == data


async def test_binary_bytes_are_refused_and_kept(workspace: Path) -> None:
    data = b"caf\xe9 = 1\x00\n"
    (workspace / "blob.bin").write_bytes(data)
    with pytest.raises(ToolError) as refused:
        await edit(workspace, "blob.bin", "= 1", "= 2")
    assert str(refused.value) == (
        "Error: blob.bin is not UTF-8 text (byte 0xe9 at offset 3 is invalid), so edit_file "
        "will not change it; the file is unchanged"
    )
    assert (workspace / "blob.bin").read_bytes() == data


async def test_bom_is_kept_and_never_part_of_a_match(workspace: Path) -> None:
    (workspace / "b.txt").write_bytes(b"\xef\xbb\xbfname = 1\r\nother = 2\r\n")
    await edit(workspace, "b.txt", "\n  name = 1\n", "name = 10\n")
    assert (workspace / "b.txt").read_bytes() == b"\xef\xbb\xbfname = 10\r\nother = 2\r\n"


async def test_unpaired_surrogate_in_target_is_refused(workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\n")
    arguments = '{"path": "a.txt", "source_text": "a", "target_text": "bad \\ud800"}'
    with pytest.raises(ToolError, match="unpaired surrogate"):
        await EditFileTool(workspace).execute(arguments)
    assert (workspace / "a.txt").read_text() == "a\n"


@pytest.mark.parametrize("mode", [0o600, 0o755, 0o640])
async def test_write_replaces_the_inode_and_keeps_the_mode(workspace: Path, mode: int) -> None:
    file = workspace / "m.sh"
    file.write_text("echo a\n")
    file.chmod(mode)
    before = file.stat().st_ino
    await edit(workspace, "m.sh", "echo a", "echo b")
    after = file.stat()
    assert after.st_ino != before
    assert after.st_mode & 0o7777 == mode
    assert file.read_text() == "echo b\n"
    assert os.listdir(workspace) == ["m.sh"]


async def test_refusal_does_not_touch_the_file(workspace: Path) -> None:
    file = workspace / "r.txt"
    file.write_text("x\nx\n")
    before = file.stat()
    with pytest.raises(EditError):
        await edit(workspace, "r.txt", "x", "y")
    after = file.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


async def test_parallel_edits_of_one_file_both_land(workspace: Path) -> None:
    lines = [f"line_{i} = {i}" for i in range(2000)]
    (workspace / "p.txt").write_text("\n".join(lines) + "\n")
    tool = EditFileTool(workspace)
    calls = [tool.execute(args("p.txt", f"line_{i} = {i}\n", f"line_{i} = -{i}\n")) for i in
             range(0, 2000, 100)]
    await asyncio.gather(*calls)
    text = (workspace / "p.txt").read_text()
    assert all(f"line_{i} = -{i}\n" in text for i in range(0, 2000, 100))
    assert text.count("\n") == 2000


async def test_registry_turns_refusals_into_error_results(workspace: Path) -> None:
    (workspace / "a.txt").write_text("same\nsame\n")
    registry = Registry()
    registry.register(EditFileTool(workspace))
    call = ToolCall(id="c1", name="edit_file", arguments=args("a.txt", "same", "other"))
    result = await registry.execute(call)
    assert result.is_error
    assert result.output == (
        "Error: a.txt was not changed: source_text matches 2 places (level 1, exact), starting "
        "at lines 1, 2. Each place is quoted with the nearest line beside it that the others do "
        "not have there: include that line in source_text (and in target_text, unchanged) to "
        "take the place you mean.\n1| same\n2| same\n\n1| same\n2| same"
    )


_LIMITED_EDITOR = """
import asyncio, json, resource, signal, sys
from harness9.schema import ToolError
from harness9.tools.edit_file import EditFileTool
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of being killed
resource.setrlimit(resource.RLIMIT_FSIZE, (65536, resource.RLIM_INFINITY))
args = json.dumps({"path": "data.txt", "source_text": "old", "target_text": "n" * 1_000_000})
try:
    print(asyncio.run(EditFileTool(sys.argv[1]).execute(args)).text)
except ToolError as exc:
    print(exc)
"""


@pytest.mark.timeout(20)
def test_failure_mid_write_leaves_the_old_file(workspace: Path) -> None:
    (workspace / "data.txt").write_text("old\n")
    done = subprocess.run(
        [sys.executable, "-c", _LIMITED_EDITOR, str(workspace)],
        capture_output=True, text=True, timeout=15, check=True,
    )
    assert done.stdout.startswith("Error: cannot write data.txt: File too large")
    assert (workspace / "data.txt").read_text() == "old\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["data.txt"]


_KILLED_EDITOR = """
import asyncio, json, sys
from harness9.tools.edit_file import EditFileTool
args = json.dumps({"path": "data.txt", "source_text": "old", "target_text": "n" * 64_000_000})
asyncio.run(EditFileTool(sys.argv[1]).execute(args))
"""


@pytest.mark.timeout(30)
def test_kill_mid_write_leaves_the_old_content(workspace: Path) -> None:
    (workspace / "data.txt").write_text("keep\nold\n")
    child = subprocess.Popen([sys.executable, "-c", _KILLED_EDITOR, str(workspace)])
    try:
        deadline = time.monotonic() + 20
        while not _temp_file_growing(workspace):
            assert child.poll() is None, "the edit finished before it could be interrupted"
            assert time.monotonic() < deadline
            time.sleep(0.001)
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=10)
    assert (workspace / "data.txt").read_bytes() == b"keep\nold\n"


def _temp_file_growing(folder: Path) -> bool:
    """Whether a temporary file of the atomic write exists and has bytes in it."""
    for name in os.listdir(folder):
        if name.endswith(".h9tmp"):
            try:
                if (folder / name).stat().st_size > 0:
                    return True
            except FileNotFoundError:
                continue  # renamed over the target between listing and stat
    return False
