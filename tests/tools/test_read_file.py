"""read_file on real files: pages, notices, encodings, limits and refusals."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from harness9.schema import ToolError
from harness9.tools.contract import ToolOutput
from harness9.tools.read_file import MAX_READ_BYTES, ReadFileTool

NOTICE = re.compile(r"\n\n\[(truncated|end of file): .*\]$")


async def read(workspace: Path, path: str, **extra: object) -> ToolOutput:
    result = await ReadFileTool(workspace).execute(json.dumps({"path": path, **extra}))
    assert isinstance(result, ToolOutput)
    return result


async def read_error(workspace: Path, path: str, **extra: object) -> str:
    with pytest.raises(ToolError) as caught:
        await ReadFileTool(workspace).execute(json.dumps({"path": path, **extra}))
    return str(caught.value)


def test_definition_requires_only_path(workspace: Path) -> None:
    definition = ReadFileTool(workspace).definition()
    assert definition.name == "read_file"
    assert definition.input_schema["required"] == ["path"]
    assert set(definition.input_schema["properties"]) == {"path", "offset", "limit"}
    assert "4096 bytes" in definition.description


async def test_small_file_is_returned_whole(workspace: Path) -> None:
    (workspace / "a.txt").write_text("hello\nworld\n")
    result = await read(workspace, "a.txt")
    assert result == ToolOutput(text="hello\nworld\n", bytes=12, truncated=False)


async def test_file_of_exactly_the_limit_is_not_truncated(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"x" * MAX_READ_BYTES)
    result = await read(workspace, "a.txt")
    assert result.text == "x" * MAX_READ_BYTES
    assert not result.truncated


async def test_one_byte_more_is_truncated_with_a_notice(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"x" * (MAX_READ_BYTES + 1))
    result = await read(workspace, "a.txt")
    assert result.text == "x" * MAX_READ_BYTES + (
        "\n\n[truncated: showed bytes 0-4095 (4096 bytes) of 4097 bytes in total; "
        "to read on, call read_file with offset=4096]"
    )
    assert result.truncated
    assert result.bytes == MAX_READ_BYTES + 1


async def test_last_page_says_where_the_file_ends(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"x" * 4097)
    result = await read(workspace, "a.txt", offset=4096)
    assert result.text == "x\n\n[end of file: showed bytes 4096-4096 of 4097 bytes]"
    assert not result.truncated


async def test_paging_by_the_notice_rebuilds_the_file_exactly(workspace: Path) -> None:
    # Multi-byte characters of every width straddle the page boundaries.
    text = "".join(f"{i} é中𝄞\n" for i in range(3000))
    (workspace / "u.txt").write_text(text, encoding="utf-8")
    pages, offset = [], 0
    while True:
        result = await read(workspace, "u.txt", offset=offset)
        body = NOTICE.sub("", result.text)
        assert "\ufffd" not in body
        pages.append(body)
        found = re.search(r"offset=(\d+)\]$", result.text)
        if not found:
            break
        offset = int(found.group(1))
    assert "".join(pages) == text
    assert len(pages) >= len(text.encode()) // MAX_READ_BYTES


async def test_cut_lands_on_a_character_boundary(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a" + "中".encode() * 2000)  # 3-byte chars, offset by 1
    result = await read(workspace, "a.txt")
    body = NOTICE.sub("", result.text)
    assert "\ufffd" not in body
    assert body == "a" + "中" * 1365  # 1 + 1365 * 3 = 4096
    assert "offset=4096]" in result.text


async def test_limit_asks_for_a_smaller_page_and_is_capped(workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"0123456789" * 1000)
    small = await read(workspace, "a.txt", offset=5, limit=3)
    assert small.text.startswith("567\n\n[truncated: showed bytes 5-7 (3 bytes) of 10000 bytes")
    assert small.text.endswith("offset=8]")
    big = await read(workspace, "a.txt", limit=10**9)
    assert NOTICE.sub("", big.text) == ("0123456789" * 1000)[:MAX_READ_BYTES]


async def test_page_smaller_than_a_character_still_moves_on(workspace: Path) -> None:
    (workspace / "a.txt").write_text("中文")
    result = await read(workspace, "a.txt", limit=1)
    assert result.text.startswith("\ufffd\n\n[truncated: showed bytes 0-0 (1 bytes)")
    assert result.text.endswith("offset=1]")


async def test_invalid_utf8_is_replaced(workspace: Path) -> None:
    (workspace / "bin").write_bytes(b"ok \xff\xfe\x00 end")
    result = await read(workspace, "bin")
    assert result.text == "ok \ufffd\ufffd\x00 end"


async def test_empty_file_says_so(workspace: Path) -> None:
    (workspace / "empty.txt").touch()
    assert await ReadFileTool(workspace).execute('{"path": "empty.txt"}') == (
        "(empty.txt is empty: 0 bytes)"
    )


@pytest.mark.timeout(10)
async def test_one_gigabyte_file_costs_one_page(workspace: Path) -> None:
    big = workspace / "big.bin"
    with big.open("wb") as handle:
        handle.write(b"head of a huge file\n")
        handle.truncate(1 << 30)  # sparse: no gigabyte is actually written
    started = time.perf_counter()
    result = await read(workspace, "big.bin")
    elapsed = time.perf_counter() - started
    assert result.text.startswith("head of a huge file\n")
    assert f"of {1 << 30} bytes in total" in result.text
    assert result.bytes == 1 << 30
    assert result.truncated
    assert elapsed < 0.5, elapsed
    far = await read(workspace, "big.bin", offset=(1 << 30) - 10)
    assert far.text.startswith("\x00" * 10 + "\n\n[end of file")


async def test_missing_file_is_an_error(workspace: Path) -> None:
    assert await read_error(workspace, "nope.txt") == "Error: file not found: nope.txt"


async def test_folder_is_an_error(workspace: Path) -> None:
    (workspace / "src").mkdir()
    message = await read_error(workspace, "src")
    assert message.startswith("Error: src is a folder, not a file")
    assert "is a folder" in await read_error(workspace, ".")


@pytest.mark.timeout(5)
async def test_fifo_is_refused_without_hanging(workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")
    assert "is not a regular file" in await read_error(workspace, "pipe")


async def test_offset_past_the_end_is_an_error(workspace: Path) -> None:
    (workspace / "a.txt").write_text("abc")
    message = await read_error(workspace, "a.txt", offset=3)
    assert message == (
        "Error: offset 3 is at or past the end of a.txt (3 bytes); pass an offset below 3"
    )


@pytest.mark.parametrize(("key", "value"), [("offset", -1), ("limit", 0), ("limit", -5)])
async def test_bad_page_bounds_are_errors(workspace: Path, key: str, value: int) -> None:
    (workspace / "a.txt").write_text("abc")
    assert f"{key} must be" in await read_error(workspace, "a.txt", **{key: value})


async def test_paths_outside_the_workspace_are_refused(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("secret")
    (workspace / "link").symlink_to(tmp_path / "secret.txt")
    assert "outside the workspace" in await read_error(workspace, "../secret.txt")
    assert "outside the workspace" in await read_error(workspace, "link")
    assert "outside the workspace" in await read_error(workspace, str(tmp_path / "secret.txt"))


async def test_link_inside_the_workspace_is_followed(workspace: Path) -> None:
    (workspace / "real.txt").write_text("real")
    (workspace / "alias.txt").symlink_to("real.txt")
    assert (await read(workspace, "alias.txt")).text == "real"
