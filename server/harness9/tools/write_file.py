"""The `write_file` tool: atomically create or overwrite a workspace file.

The content goes to a temporary file in the target's folder, is flushed to disk and renamed over
the target, so a crash or a kill mid-write leaves the old content or the new, never half of it.
"""

from __future__ import annotations

import asyncio
import os
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
from harness9.tools.safe_path import safe_path

FILE_MODE = 0o644
FOLDER_MODE = 0o755

_DESCRIPTION = """\
Create a file in the workspace, or replace an existing file's whole content, with `content`.
`path` is relative to the workspace root (paths outside it, also through symbolic links, are \
refused). Missing parent folders are created. The file gets mode 0644. The write is atomic: the \
file holds either its old content or the new one, never a mix. To change part of a file, read it \
first and prefer the edit_file tool."""


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
        target = safe_path(self._workdir, path)
        data = _encode(content)
        await asyncio.to_thread(_write, target, path, data)
        return f"成功将 {len(data)} 字节写入到文件: {path}"


def _encode(content: str) -> bytes:
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"Error: content is not valid Unicode text (an unpaired surrogate at character "
            f"{exc.start}); nothing was written"
        ) from None


def _write(target: Path, shown: str, data: bytes) -> None:
    """Create the parent folders and replace `target` atomically (blocking; run it in a thread)."""
    if target.is_dir():
        raise ToolError(f"Error: {shown} is a folder; give the path of a file inside it")
    try:
        target.parent.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ToolError(
            f"Error: cannot create the folders for {shown}: a part of the path is a file"
        ) from None
    except OSError as exc:
        raise ToolError(f"Error: cannot create the folders for {shown}: {exc.strerror}") from None
    try:
        atomic_write_bytes(target, data, FILE_MODE)
    except OSError as exc:
        raise ToolError(
            f"Error: cannot write {shown}: {exc.strerror or exc}; the file was left unchanged"
        ) from None
