"""Editor context attached to a prompt: files, selections, diagnostics and notes.

Each item reaches the model with the prompt as one delimited block that names its kind, its
workspace-relative path and its 1-based line range, e.g.

    <attachment kind="selection" path="src/app.py" lines="3-7">
    …the text…
    </attachment>

An item's `text` wins; otherwise the file (or the selected lines of it) is read through one
`DocumentReader`, the disk by default, so a front-end that knows the editor's unsaved buffers
can supply those instead. Every block is capped, with a note saying what was cut.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness9.schema import ToolError
from harness9.workspace.port import Workspace
from harness9.workspace.regular_files import read_regular_beneath

KINDS = ("file", "selection", "diagnostics", "note")
MAX_ITEM_BYTES = 32 * 1024  # one attachment, as shown to the model
MAX_TOTAL_BYTES = 96 * 1024  # all attachments of one prompt together
_MAX_FILE_BYTES = 8 * 1024 * 1024  # read at most this much of a file to cut lines from

# (workspace root, workspace-relative path) → the document's text; raises OSError or ToolError.
DocumentReader = Callable[[str, str], str]


@dataclass(frozen=True, slots=True)
class LineRange:
    """An LSP range (0-based lines and characters, end exclusive)."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int

    def lines(self) -> tuple[int, int]:
        """The 1-based first and last line the range covers (a range ending at the start of a
        line does not cover that line)."""
        last = self.end_line
        if self.end_character == 0 and self.end_line > self.start_line:
            last -= 1
        return self.start_line + 1, last + 1


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One attached item: `path` is workspace-relative (`/` separators); `text` None means
    "read it from the document"."""

    path: str
    kind: str = "file"
    range: LineRange | None = None
    text: str | None = None


def read_document(root: str, path: str) -> str:
    """The text of a workspace file as the disk has it (invalid UTF-8 replaced), at most
    8 MiB of it; the sandbox refuses paths that leave the workspace."""
    return read_regular_beneath(root, path, _MAX_FILE_BYTES).decode("utf-8", "replace")


def render_attachments(
    root: str, items: Sequence[ContextItem], read: DocumentReader = read_document
) -> str:
    """The blocks for `items`, in order, under one heading ("" when there are none). Blocking:
    it may read files."""
    if not items:
        return ""
    blocks: list[str] = []
    budget = MAX_TOTAL_BYTES
    for index, item in enumerate(items):
        if budget <= 0:
            left = len(items) - index
            blocks.append(f"[{left} more attachment(s) left out: the attachments reached "
                          f"{MAX_TOTAL_BYTES} bytes in all]")
            break
        block = _block(root, item, read, min(MAX_ITEM_BYTES, budget))
        budget -= len(block.encode("utf-8"))
        blocks.append(block)
    count = len(items)
    heading = f"Attached from the editor ({count} item{'s' if count != 1 else ''}):"
    return heading + "\n\n" + "\n\n".join(blocks)


def with_attachments(prompt: str, rendered: str) -> str:
    """The user message: the prompt, then the attachments."""
    return f"{prompt}\n\n{rendered}" if rendered else prompt


async def prompt_with_context(
    prompt: str, root: str, context: Sequence[ContextItem], workspace: Workspace | None
) -> str:
    """The prompt with its attachments (files read off the event loop). An item without text
    is read from the editor's document when the file is open there (unsaved changes included),
    else from the disk."""
    if not context:
        return prompt
    open_texts: dict[str, str] = {}
    for item in context:
        if workspace is None or item.text is not None or item.path in open_texts:
            continue
        with contextlib.suppress(ToolError):
            found = await workspace.read_text(item.path)
            if found is not None and found.via == "editor":
                open_texts[item.path] = found.text

    def read(root: str, path: str) -> str:
        return open_texts[path] if path in open_texts else read_document(root, path)

    rendered = await asyncio.to_thread(render_attachments, root, context, read)
    return with_attachments(prompt, rendered)


def _block(root: str, item: ContextItem, read: DocumentReader, cap: int) -> str:
    try:
        text, first = _content(root, item, read)
    except (OSError, ToolError) as exc:
        why = "file not found" if isinstance(exc, FileNotFoundError) else _reason(exc)
        return f'{_open_tag(item, None)}\n(could not be read: {why})\n</attachment>'
    text, note = _cut(text, cap)
    lines = None
    if first is not None:
        count = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
        lines = (first, first + count - 1)
    if item.text is not None and item.range is not None:
        lines = item.range.lines()  # the editor's own range for text it sent
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{_open_tag(item, lines)}\n{body}{note}</attachment>"


def _content(root: str, item: ContextItem, read: DocumentReader) -> tuple[str, int | None]:
    """The item's text and the 1-based line it starts at (None: no line numbers apply)."""
    if item.text is not None:
        if item.range is not None:
            return item.text, item.range.start_line + 1
        return item.text, (1 if item.kind == "file" else None)
    document = read(root, item.path)
    if item.range is None:
        return document, 1
    first, last = item.range.lines()
    selected = document.splitlines(keepends=True)[first - 1 : last]
    return "".join(selected), first


def _cut(text: str, cap: int) -> tuple[str, str]:
    """`text` within `cap` bytes (cut at a line end when one is near) and the note saying so."""
    data = text.encode("utf-8")
    if len(data) <= cap:
        return text, ""
    kept = data[:cap].decode("utf-8", "ignore")
    line_end = kept.rfind("\n")
    if line_end > len(kept) // 2:
        kept = kept[: line_end + 1]
    shown = len(kept.encode("utf-8"))
    note = (f"[attachment cut: showed the first {shown} of {len(data)} bytes; "
            "read the rest with read_file]\n")
    return kept, note


def _open_tag(item: ContextItem, lines: tuple[int, int] | None) -> str:
    attributes = f'kind="{item.kind}" path="{_quoted(item.path)}"'
    if lines is not None:
        attributes += f' lines="{lines[0]}-{lines[1]}"'
    return f"<attachment {attributes}>"


def _quoted(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc).removeprefix("Error: ")
