"""The `write_file` tool: create a workspace file, or replace the whole of one the session knows.

The write goes through the workspace port: on disk it is atomic (a temporary file in the
target's folder, flushed and renamed over it), so a crash or a kill mid-write leaves the old
content or the new, never half of it. An existing file is overwritten only when this session
has read or written it and it has not changed since (the stale guard, see `seen_files`).
When the user changed the proposed content before allowing the call, theirs is written.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from harness9.schema import ToolDefinition, ToolError, ToolKind
from harness9.tools.contract import (
    PATH_PROPERTY,
    Preview,
    ToolOutput,
    parse_arguments,
    preview_of,
    string_property,
    tool_definition,
)
from harness9.tools.edit.diff import file_edit, unified_diff
from harness9.tools.file_tool import FileTool
from harness9.tools.user_text import USER_TEXT, check_base, note
from harness9.workspace.decided import settled
from harness9.workspace.file_lock import file_lock
from harness9.workspace.paths import relative_path
from harness9.workspace.port import FileText, encode_text
from harness9.workspace.safe_path import safe_path

_PREVIEW_LIMIT = 1 << 20  # an existing file larger than this is not diffed line by line

_DESCRIPTION = """\
Create a file in the workspace, or replace an existing file's whole content, with `content`.
`path` is relative to the workspace root (paths outside it, also through symbolic links, are \
refused). Missing parent folders are created. A new file gets mode 0644; an existing file keeps \
its mode. The write is atomic: the file holds either its old content or the new one, never a \
mix. An existing file is only replaced after you have read it with read_file (and only if it \
has not changed since); to change part of a file, prefer the edit_file tool."""


class WriteFileTool(FileTool):
    """Writes whole files inside the workspace."""

    name = "write_file"
    writes_user_text = True

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
            kind=ToolKind.EDIT,
        )

    async def execute(self, arguments: str) -> ToolOutput:
        """Write `content` to `path` and report the number of UTF-8 bytes written, with the
        change as a diff."""
        args = parse_arguments(arguments)
        path: str = args["path"]
        user = USER_TEXT.get()
        content: str = args["content"] if user is None else user.content
        _check_path(path)
        data = encode_text(content, path)
        # Resolving first refuses a bad path early and names the file for its daemon-wide lock:
        # the file the call was decided on, which is the one written.
        key = settled(self._workdir, path).real
        async with file_lock(key):
            before = await self._current(path, key)
            if user is not None:
                check_base(before, user, path)
            written = await self._workspace.write_text(
                path, content, tool=self.name, base=before
            )
        self._seen.saw(key, written.fingerprint)
        text = f"Wrote {len(data)} byte{'' if len(data) == 1 else 's'} to {path}"
        if written.note is not None:
            text += f"\n[{written.note}]"
        if user is not None:
            text += "\n" + note(path, user)
        shown = relative_path(path, os.fspath(self._workdir))
        edit = await asyncio.to_thread(
            file_edit, shown, None if before is None else before.text, content, written.via
        )
        return ToolOutput(text, len(text.encode()), edit=edit)

    async def preview(self, arguments: dict[str, Any], shown: str) -> Preview:
        """The diff this call would make, labelled `shown`, without making it; raises the
        error the call itself would report (the stale guard's too)."""
        path, content = arguments["path"], arguments["content"]
        _check_path(path)
        encode_text(content, path)
        before = await self._current(path, str(safe_path(self._workdir, path)))
        if before is None:
            diff = await asyncio.to_thread(unified_diff, shown, None, content)
            return preview_of(diff, None, content)
        if len(before.text) > _PREVIEW_LIMIT:
            placeholder = "(the current content: too large to show)\n"
        elif not before.utf8:
            placeholder = "(the current content: not UTF-8 text)\n"
        else:
            diff = await asyncio.to_thread(unified_diff, shown, before.text, content)
            return preview_of(diff, before.text, content)
        return Preview(await asyncio.to_thread(unified_diff, shown, placeholder, content))

    async def _current(self, path: str, key: str) -> FileText | None:
        """The file's content now (None: a new file), once the stale guard let it be replaced."""
        before = await self._workspace.read_text(path)
        if before is not None:
            stale = self._seen.stale(key, before.fingerprint, path)
            if stale is not None:
                raise ToolError(stale)
        return before


def _check_path(path: str) -> None:
    if path.endswith(("/", os.sep)):
        raise ToolError(f"Error: {path} ends with '/', so it names a folder; give a file path")
