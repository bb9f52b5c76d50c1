"""The `write_file` tool: atomically create or overwrite a workspace file.

The content goes to a temporary file in the target's folder, is flushed to disk and renamed over
the target, so a crash or a kill mid-write leaves the old content or the new, never half of it.
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
from harness9.tools.file_lock import file_lock
from harness9.tools.safe_path import open_beneath, resolve_beneath, safe_path

FILE_MODE = 0o644
_PREVIEW_LIMIT = 1 << 20  # an existing file larger than this is not diffed line by line

_DESCRIPTION = """\
Create a file in the workspace, or replace an existing file's whole content, with `content`.
`path` is relative to the workspace root (paths outside it, also through symbolic links, are \
refused). Missing parent folders are created. A new file gets mode 0644; an existing file keeps \
its mode. The write is atomic: the file holds either its old content or the new one, never a \
mix. To change part of a file, read it first and prefer the edit_file tool."""


class WriteFileTool:
    """Writes whole files inside the workspace."""

    name = "write_file"

    def __init__(self, workdir: str | os.PathLike[str]) -> None:
        self._workdir = workdir

    def definition(self) -> ToolDefinition:
        """The description and JSON Schema offered to the model."""
        return tool_definition(
            self.name,
            _DESCRIPTION,
            {
                "path": PATH_PROPERTY,
                "content": string_property("The complete new content of the file"),
            },
            ["path", "content"],
        )

    async def execute(self, arguments: str) -> str:
        """Write `content` to `path` and report the number of UTF-8 bytes written."""
        args = parse_arguments(arguments)
        path: str = args["path"]
        content: str = args["content"]
        if path.endswith(("/", os.sep)):
            raise ToolError(f"Error: {path} ends with '/', so it names a folder; give a file path")
        data = _encode(content)
        # Resolving first refuses a bad path early and names the file for its daemon-wide lock.
        async with file_lock(str(safe_path(self._workdir, path))):
            await asyncio.to_thread(_write, self._workdir, path, data)
        return f"成功将 {len(data)} 字节写入到文件: {path}"


    async def preview(self, arguments: dict[str, Any], shown: str) -> str:
        """The diff this call would make, labelled `shown`, without making it."""
        path, content = arguments["path"], arguments["content"]
        _encode(content)
        before = await asyncio.to_thread(_current_text, self._workdir, path)
        return unified_diff(shown, before, content)


def _current_text(workdir: str | os.PathLike[str], path: str) -> str | None:
    """The file's text now; None when it does not exist; a note when it cannot be shown."""
    try:
        with open_beneath(workdir, path, os.O_RDONLY | os.O_NONBLOCK) as (fd, _):
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise ToolError(f"Error: {path} is not a regular file; give the path of a file")
            if info.st_size > _PREVIEW_LIMIT:
                return f"(the current content: {info.st_size} bytes, too large to show)\n"
            data = os.pread(fd, _PREVIEW_LIMIT, 0)
    except FileNotFoundError:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"(the current content: {len(data)} bytes, not UTF-8 text)\n"


def _encode(content: str) -> bytes:
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"Error: content is not valid Unicode text (an unpaired surrogate at character "
            f"{exc.start}); nothing was written"
        ) from None


def _write(workdir: str | os.PathLike[str], shown: str, data: bytes) -> None:
    """Create the parent folders and replace the file atomically (blocking; run it in a thread).

    Everything happens relative to the descriptor of the file's folder, held from the check to
    the rename, so a folder swapped for a link meanwhile cannot redirect the write.
    """
    with resolve_beneath(workdir, shown, make_folders=True) as where:
        keep = _keep(where.dir_fd, where.name, shown)
        try:
            replace_in_folder(where.dir_fd, where.name, data, keep)
        except OSError as exc:
            raise ToolError(
                f"Error: cannot write {shown}: {exc.strerror or exc}; the file was left unchanged"
            ) from None


def _keep(dir_fd: int, name: str, shown: str) -> Owner | int:
    """The mode and owner an existing file keeps; a new file gets 0644."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return FILE_MODE
    if name == "." or stat.S_ISDIR(info.st_mode):
        raise ToolError(f"Error: {shown} is a folder; give the path of a file inside it")
    return Owner.of(info) if stat.S_ISREG(info.st_mode) else FILE_MODE
