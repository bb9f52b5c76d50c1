"""The `read_file` tool: one bounded page of a workspace file, never the whole file.

A call reads at most `limit + 1` bytes (4096 + 1 by default) at `offset` through the workspace
port (the editor's text of an open document, else the disk), so a 1 GB file costs little more
than a small one; the extra byte tells whether the file goes on. A cut page ends on a UTF-8
character boundary and carries a notice with the total size and the offset to read on from.
"""

from __future__ import annotations

import codecs
from typing import Any

from harness9.schema import ToolDefinition, ToolError, ToolKind
from harness9.tools.contract import PATH_PROPERTY, ToolOutput, parse_arguments, tool_definition
from harness9.tools.file_tool import FileTool
from harness9.workspace.port import Page
from harness9.workspace.safe_path import safe_path

MAX_READ_BYTES = 4096

_DESCRIPTION = f"""\
Read a text file from the workspace.
`path` is relative to the workspace root (an absolute path inside the workspace also works; paths \
outside it, also through symbolic links, are refused).
At most {MAX_READ_BYTES} bytes are returned per call, starting at byte `offset` (default 0). When \
the file goes on, the text is cut at a character boundary and ends with a notice giving the \
file's total size and the `offset` to pass to read the next part; `limit` (1-{MAX_READ_BYTES}, \
default {MAX_READ_BYTES}) asks for a smaller page. Invalid UTF-8 bytes are shown as U+FFFD. \
Folders cannot be read (list them with the bash tool)."""


class ReadFileTool(FileTool):
    """Reads one page of a file inside the workspace."""

    name = "read_file"

    def definition(self) -> ToolDefinition:
        """The description and JSON Schema offered to the model."""
        return tool_definition(
            self.name,
            _DESCRIPTION,
            {
                "path": PATH_PROPERTY,
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Byte offset to start reading at (default 0)",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_READ_BYTES,
                    "description": f"Bytes to read, at most {MAX_READ_BYTES} (the default)",
                },
            },
            ["path"],
            kind=ToolKind.READ,
        )

    async def execute(self, arguments: str) -> str | ToolOutput:
        """Return the page of the file at `offset`, with a notice when the file goes on."""
        args = parse_arguments(arguments)
        path: str = args["path"]
        offset, limit = _page_bounds(args)
        key = str(safe_path(self._workdir, path))
        page = await self._workspace.read_page(path, offset, limit)
        if not page.data and (offset > 0 or page.size > 0):
            raise ToolError(
                f"Error: offset {offset} is at or past the end of {path} ({page.size} bytes); "
                f"pass an offset below {page.size}"
            )
        self._seen.saw(key, page.fingerprint)
        return _render(page, path, offset)


def _page_bounds(args: dict[str, Any]) -> tuple[int, int]:
    offset = args.get("offset", 0)
    limit = args.get("limit", MAX_READ_BYTES)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise ToolError(f"Error: offset must be a byte position of at least 0, got {offset!r}")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ToolError(
            f"Error: limit must be a byte count from 1 to {MAX_READ_BYTES}, got {limit!r}"
        )
    return offset, min(limit, MAX_READ_BYTES)


def _render(page: Page, shown: str, offset: int) -> str | ToolOutput:
    note = "" if page.note is None else f"\n\n[{page.note}]"
    if page.size == 0:
        return f"({shown} is empty: 0 bytes){note}"
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    # Not final when the file goes on: an incomplete character at the cut stays in the decoder
    # instead of becoming U+FFFD, and the next page starts with it.
    text = decoder.decode(page.data, final=not page.more)
    used = len(page.data) - len(decoder.getstate()[0])
    if used == 0:  # a page smaller than one character: show it replaced, so paging moves on
        text, used = page.data.decode("utf-8", "replace"), len(page.data)
    end = offset + used
    if page.more:
        text += (
            f"\n\n[truncated: showed bytes {offset}-{end - 1} ({used} bytes) of {page.size} bytes "
            f"in total; to read on, call read_file with offset={end}]"
        )
    elif offset > 0:
        text += f"\n\n[end of file: showed bytes {offset}-{end - 1} of {page.size} bytes]"
    return ToolOutput(text=text + note, bytes=page.size - offset, truncated=page.more)
