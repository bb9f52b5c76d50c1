"""The `edit_file` tool: replace one unique piece of an existing workspace file.

Matching is `apply_edit`'s five-level ladder (see `edit_apply`). The file is read and written as
bytes, so its line endings, BOM and every byte outside the edit stay as they were; the write is
atomic and keeps the file's mode and owner. Writes to one file are serialized across the whole
daemon, and a file changed by another program between the read and the rename is read again,
so no edit loses a concurrent change.
"""

from __future__ import annotations

import asyncio
import os
import stat
from typing import Any

from harness9.schema import ToolDefinition
from harness9.tools.atomic import Owner, replace_in_folder
from harness9.tools.base import (
    PATH_PROPERTY,
    ToolError,
    parse_arguments,
    string_property,
    tool_definition,
)
from harness9.tools.diff import unified_diff
from harness9.tools.edit_apply import EditOutcome, apply_edit
from harness9.tools.edit_errors import EditError
from harness9.tools.file_lock import file_lock
from harness9.tools.safe_path import Location, open_beneath, safe_path

__all__ = ["EditError", "EditFileTool", "EditOutcome", "apply_edit"]

_ATTEMPTS = 3  # reads of a file that another program keeps changing during the edit

_DESCRIPTION = """\
Replace one piece of text in an existing file of the workspace: the single place where \
`source_text` occurs becomes `target_text`.
Read the file first and copy `source_text` from it exactly, with its indentation, including \
enough neighbouring lines that it occurs exactly once; if it matches several places or none, \
nothing is changed and the error says where the matches are or which lines come closest. Small \
slips are tolerated (line endings, surrounding whitespace, indentation, blank lines inside the \
block, curly quotes and dashes). Lines you restate keep the file's exact text; new lines are \
indented to the file's. If it is unclear how your target_text's indentation fits the file, or \
source_text cuts a line that target_text rewrites, nothing is changed and the error says why.
To delete text, give an empty `target_text`. To add code, include a neighbouring line in \
`source_text` and repeat it in `target_text`. The file must exist (use write_file to create \
one). `path` is relative to the workspace root; paths outside it are refused."""


class EditFileTool:
    """Edits files inside the workspace by unique text replacement."""

    name = "edit_file"

    def __init__(self, workdir: str | os.PathLike[str]) -> None:
        self._workdir = workdir

    def definition(self) -> ToolDefinition:
        """The description and JSON Schema offered to the model."""
        return tool_definition(
            self.name,
            _DESCRIPTION,
            {
                "path": PATH_PROPERTY,
                "source_text": string_property(
                    "The exact text to replace, copied from the file; it must occur exactly "
                    "once (add surrounding lines until it does)"
                ),
                "target_text": string_property(
                    "The text that replaces source_text (empty to delete it)"
                ),
            },
            ["path", "source_text", "target_text"],
        )

    async def execute(self, arguments: str) -> str:
        """Apply the edit and report `成功修改文件: <path>` (plus the level when not exact)."""
        args = parse_arguments(arguments)
        path, source, target = (_text(args, key) for key in ("path", "source_text", "target_text"))
        # Resolving first refuses a bad path early and names the file for its daemon-wide lock.
        async with file_lock(str(safe_path(self._workdir, path))):
            outcome = await asyncio.to_thread(_edit, self._workdir, path, source, target)
        note = outcome.note()
        done = f"成功修改文件: {path}"
        return done if note is None else f"{done}\n{note}"

    async def preview(self, arguments: dict[str, Any], shown: str) -> str:
        """The diff this call would make, labelled `shown`, without making it; raises the
        error the call itself would report."""
        path, source, target = (_text(arguments, k) for k in ("path", "source_text", "target_text"))
        return await asyncio.to_thread(_preview, self._workdir, path, shown, source, target)


def _text(args: dict[str, object], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise ToolError(f"Error: argument {key!r} of 'edit_file' must be a string")
    return value


def _edit(workdir: str | os.PathLike[str], shown: str, source: str, target: str) -> EditOutcome:
    """Read, edit and atomically rewrite the file (blocking; run it in a thread)."""
    for _ in range(_ATTEMPTS):
        try:
            with open_beneath(workdir, shown, os.O_RDONLY | os.O_NONBLOCK) as (fd, where):
                info = _regular_file(fd, shown)
                content = _decode(_read_all(fd), shown)
                outcome = _apply(content, shown, source, target)
                if _replace_if_unchanged(where, info, outcome, shown):
                    return outcome
        except FileNotFoundError:
            raise _missing(shown) from None
    raise ToolError(
        f"Error: {shown} kept changing on disk while it was being edited (another program is "
        "writing it); it was not changed. Read it again and retry"
    )


def _preview(
    workdir: str | os.PathLike[str], path: str, shown: str, source: str, target: str
) -> str:
    try:
        with open_beneath(workdir, path, os.O_RDONLY | os.O_NONBLOCK) as (fd, _):
            _regular_file(fd, path)
            content = _decode(_read_all(fd), path)
    except FileNotFoundError:
        raise _missing(path) from None
    return unified_diff(shown, content, _apply(content, path, source, target).content)


def _missing(shown: str) -> ToolError:
    return ToolError(
        f"Error: {shown} does not exist. edit_file only changes existing files; check the "
        "path, or create the file with write_file"
    )


def _regular_file(fd: int, shown: str) -> os.stat_result:
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"Error: {shown} is a folder; give the path of a file inside it")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"Error: {shown} is not a regular file, so it cannot be edited")
    return info


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _apply(content: str, shown: str, source: str, target: str) -> EditOutcome:
    try:
        return apply_edit(content, source, target)
    except EditError as exc:
        raise exc.in_file(shown) from None


def _replace_if_unchanged(
    where: Location, read: os.stat_result, outcome: EditOutcome, shown: str
) -> bool:
    """Write the edited content unless the file changed since it was read (then False)."""
    try:
        data = outcome.content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"Error: target_text is not valid Unicode text (an unpaired surrogate at character "
            f"{exc.start}); {shown} was not changed"
        ) from None
    try:
        now = os.stat(where.name, dir_fd=where.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if _version(now) != _version(read):
        return False
    try:
        replace_in_folder(where.dir_fd, where.name, data, Owner.of(read))
    except OSError as exc:
        raise ToolError(
            f"Error: cannot write {shown}: {exc.strerror or exc}; the file was left unchanged"
        ) from None
    return True


def _version(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _decode(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"Error: {shown} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start} is invalid), so edit_file will not change it; the file is unchanged"
        ) from None
