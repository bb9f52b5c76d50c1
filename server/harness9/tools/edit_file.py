"""The `edit_file` tool: replace one unique piece of an existing workspace file.

Matching is `apply_edit`'s five-level ladder (see `edit_apply`). The file is read and written as
bytes, so its line endings, BOM and every byte outside the edit stay as they were; the write is
atomic and keeps the file's mode. Edits of the same file are serialized, so two calls in one turn
never lose one another's change.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

from harness9.schema import ToolDefinition
from harness9.tools.atomic import atomic_write_bytes
from harness9.tools.base import (
    PATH_PROPERTY,
    ToolError,
    parse_arguments,
    string_property,
    tool_definition,
)
from harness9.tools.edit_apply import EditOutcome, apply_edit
from harness9.tools.edit_errors import EditError
from harness9.tools.safe_path import safe_path

__all__ = ["EditError", "EditFileTool", "EditOutcome", "apply_edit"]

_DESCRIPTION = """\
Replace one piece of text in an existing file of the workspace: the single place where \
`source_text` occurs becomes `target_text`.
Read the file first and copy `source_text` from it exactly, with its indentation, including \
enough neighbouring lines that it occurs exactly once; if it matches several places or none, \
nothing is changed and the error says where the matches are or which lines come closest. Small \
slips are tolerated (line endings, surrounding whitespace, indentation, curly quotes and dashes) \
and `target_text` is then re-indented to the file's indentation.
To delete text, give an empty `target_text`. To add code, include a neighbouring line in \
`source_text` and repeat it in `target_text`. The file must exist (use write_file to create \
one). `path` is relative to the workspace root; paths outside it are refused."""


class EditFileTool:
    """Edits files inside the workspace by unique text replacement."""

    name = "edit_file"

    def __init__(self, workdir: str | os.PathLike[str]) -> None:
        self._workdir = workdir
        self._locks: dict[Path, asyncio.Lock] = {}

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
        full = safe_path(self._workdir, path)
        lock = self._locks.setdefault(full, asyncio.Lock())
        async with lock:
            outcome = await asyncio.to_thread(_edit, full, path, source, target)
        note = outcome.note()
        done = f"成功修改文件: {path}"
        return done if note is None else f"{done}\n{note}"


def _text(args: dict[str, object], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise ToolError(f"Error: argument {key!r} of 'edit_file' must be a string")
    return value


def _edit(full: Path, shown: str, source: str, target: str) -> EditOutcome:
    """Read, edit and atomically rewrite `full` (blocking; run it in a thread)."""
    mode = _existing_file_mode(full, shown)
    content = _decode(full.read_bytes(), shown)
    try:
        outcome = apply_edit(content, source, target)
    except EditError as exc:
        raise exc.in_file(shown) from None
    try:
        data = outcome.content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"Error: target_text is not valid Unicode text (an unpaired surrogate at character "
            f"{exc.start}); {shown} was not changed"
        ) from None
    try:
        atomic_write_bytes(full, data, mode)
    except OSError as exc:
        raise ToolError(
            f"Error: cannot write {shown}: {exc.strerror or exc}; the file was left unchanged"
        ) from None
    return outcome


def _existing_file_mode(full: Path, shown: str) -> int:
    try:
        info = full.stat()
    except FileNotFoundError:
        raise ToolError(
            f"Error: {shown} does not exist. edit_file only changes existing files; check the "
            "path, or create the file with write_file"
        ) from None
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"Error: {shown} is a folder; give the path of a file inside it")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"Error: {shown} is not a regular file, so it cannot be edited")
    return stat.S_IMODE(info.st_mode)


def _decode(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"Error: {shown} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start} is invalid), so edit_file will not change it; the file is unchanged"
        ) from None
