"""The `edit_file` tool: replace one unique piece of an existing workspace file.

Matching is `apply_edit`'s five-level ladder (see `apply`), against the file's current
text as the workspace port gives it (the editor's text of an open document, else the disk's;
bytes that are not UTF-8 read and written back as Latin-1, NUL bytes refused as binary).
The text is read and written whole, so its line endings, BOM and everything outside the edit
stay as they were; on disk the write is atomic and keeps the file's mode and owner. Writes to
one file are serialized across the whole daemon, and a file changed by another program between
the read and the write is read again, so no edit loses a concurrent change. When the user changed
the proposed result before allowing the call, their text is written in its place.
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
from harness9.tools.edit.apply import EditOutcome, apply_edit
from harness9.tools.edit.diff import file_edit, unified_diff
from harness9.tools.edit.refusals import EditError
from harness9.tools.file_tool import FileTool
from harness9.tools.user_text import USER_TEXT, UserText, changed_meanwhile, check_base, note
from harness9.workspace.decided import settled
from harness9.workspace.file_lock import file_lock
from harness9.workspace.paths import relative_path
from harness9.workspace.port import LATIN_1, FileText, Moved, Written

__all__ = ["EditError", "EditFileTool", "EditOutcome", "apply_edit"]

_ATTEMPTS = 3  # reads of a file that another program keeps changing during the edit

_DESCRIPTION = """\
Replace one piece of text in an existing file of the workspace: the single place where \
`source_text` occurs becomes `target_text`.
Read the file first and copy `source_text` from it exactly, with its indentation, including \
enough neighbouring lines that it occurs exactly once; if it matches several places or none, \
nothing is changed and the error quotes each match with a line that tells it apart, or the \
lines that come closest; a near match is used only when no other place comes almost as close. \
Small slips are tolerated (line endings, CR, LF or CRLF, kept as the file has them; \
surrounding whitespace, indentation, tabs typed for spaces, blank lines inside the block, curly \
quotes and dashes, a copied BOM, no-break and zero-width spaces, Unicode normal forms, \
alignment spaces, a markdown fence around the text, a diff's +/-/space column, line-number \
prefixes of read tools (`12| `, `12→`, grep's `12:` or `f.py-12-`, cat -n) whose numbers are \
the file's, `^I` for tabs, text JSON-escaped once more (whole or line by line) or backslashes \
doubled when only one reading matches; a block's closing line left out of source_text that \
target_text restates). Lines you restate keep the file's exact text; new lines are indented \
to the file's. If it is unclear how your target_text's indentation fits the file (target_text \
indented like neither source_text nor the file, source_text nesting otherwise than the file, a \
repeated line such as `}` that target_text keeps fewer times and either could be meant), or \
source_text cuts a line that target_text rewrites, nothing is changed and the error says why.
target_text is written literally: never stand for unchanged code with a marker such as `// ... \
existing code ...` or a bare `...` line (refused: it would delete that code), send real line \
breaks, not `\\n` (a one-line target with `\\n` for a multi-line source is refused), and \
real characters in code, not HTML entities (`&lt;`) or typographic operators (`→`, `≠`, `—`) \
(refused). An edit whose target_text is already where source_text would be is refused as \
already applied.
To delete text, give an empty `target_text`. To add code, include a neighbouring line in \
`source_text` and repeat it in `target_text`. The file must exist (use write_file to create \
one); a file that is not UTF-8 is edited as Latin-1, each byte one character. `path` is \
relative to the workspace root; paths outside it are refused."""


class EditFileTool(FileTool):
    """Edits files inside the workspace by unique text replacement."""

    name = "edit_file"
    writes_user_text = True

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
            kind=ToolKind.EDIT,
        )

    async def execute(self, arguments: str) -> ToolOutput:
        """Apply the edit and report `Edited <path>` (plus the level when not exact),
        with the change as a diff."""
        args = parse_arguments(arguments)
        path, source, target = (_text(args, key) for key in ("path", "source_text", "target_text"))
        # Resolving first refuses a bad path early and names the file for its daemon-wide lock:
        # the file the call was decided on, which is the one written.
        key = settled(self._workdir, path).real
        user = USER_TEXT.get()
        async with file_lock(key):
            if user is None:
                before, outcome, written = await self._edit(path, source, target)
            else:
                before, outcome, written = await self._write_user_text(path, user)
        self._seen.saw(key, written.fingerprint)
        level = outcome.note()
        done = f"Edited {path}"
        text = done if level is None or user is not None else f"{done}\n{level}"
        if written.note is not None:
            text += f"\n[{written.note}]"
        if user is not None:
            text += "\n" + note(path, user)
        shown = relative_path(path, os.fspath(self._workdir))
        edit = await asyncio.to_thread(file_edit, shown, before.text, outcome.content, written.via)
        return ToolOutput(text, len(text.encode()), edit=edit)

    async def preview(self, arguments: dict[str, Any], shown: str) -> Preview:
        """The diff this call would make, labelled `shown`, without making it; raises the
        error the call itself would report."""
        path, source, target = (_text(arguments, k) for k in ("path", "source_text", "target_text"))
        before = await self._current(path)
        after = _apply(before.text, path, source, target).content
        diff = await asyncio.to_thread(unified_diff, shown, before.text, after)
        return preview_of(diff, before.text, after)

    async def _edit(
        self, path: str, source: str, target: str
    ) -> tuple[FileText, EditOutcome, Written]:
        """Match against the current text and write the result, reading again when the file
        changed in between."""
        for _ in range(_ATTEMPTS):
            before = await self._current(path)
            outcome = _apply(before.text, path, source, target)
            try:
                written = await self._workspace.write_text(
                    path, outcome.content, tool=self.name, base=before, encoding=before.encoding
                )
            except Moved:
                continue
            return before, outcome, written
        raise ToolError(
            f"Error: {path} kept changing while it was being edited (another program or the "
            "user is writing it); it was not changed. Read it again and retry"
        )

    async def _write_user_text(
        self, path: str, user: UserText
    ) -> tuple[FileText, EditOutcome, Written]:
        """Write the user's text in place of the edit, if the file still holds the text it
        was proposed on."""
        before = await self._current(path)
        check_base(before, user, path)
        try:
            written = await self._workspace.write_text(
                path, user.content, tool=self.name, base=before, encoding=before.encoding
            )
        except Moved:
            raise changed_meanwhile(path) from None
        return before, EditOutcome(user.content, 1), written

    async def _current(self, path: str) -> FileText:
        before = await self._workspace.read_text(path)
        if before is None:
            raise _missing(path)
        # Latin-1 text is edited in its own encoding; bytes with NUL in them are no text.
        if before.bad_byte is not None and (before.encoding != LATIN_1 or "\0" in before.text):
            byte, offset = before.bad_byte
            raise ToolError(
                f"Error: {path} is not UTF-8 text (byte 0x{byte:02x} at offset {offset} is "
                "invalid), so edit_file will not change it; the file is unchanged"
            )
        return before


def _text(args: dict[str, object], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise ToolError(f"Error: argument {key!r} of 'edit_file' must be a string")
    return value


def _missing(shown: str) -> ToolError:
    return ToolError(
        f"Error: {shown} does not exist. edit_file only changes existing files; check the "
        "path, or create the file with write_file"
    )


def _apply(content: str, shown: str, source: str, target: str) -> EditOutcome:
    try:
        return apply_edit(content, source, target)
    except EditError as exc:
        raise exc.in_file(shown) from None
