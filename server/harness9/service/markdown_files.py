"""Markdown files of a configuration folder (`.harness9/commands/`, `.harness9/agents/`):
found and read safely, and split into their front matter and body.

A workspace's files are read beneath the workspace (a link leading out of it is refused) and,
like the user's own, only when they are regular files: a repository cannot make
`/proc/self/environ` or a FIFO one of them.
"""

from __future__ import annotations

import os
from pathlib import Path

from harness9.schema import ToolError
from harness9.workspace.regular_files import read_regular, read_regular_beneath
from harness9.workspace.safe_path import open_beneath

MAX_FILE_BYTES = 64 * 1024


def markdown_files(folder: Path, root: str | None = None) -> list[tuple[str, str]]:
    """The `.md` files of one folder, by name, with their text (`root` given: the folder is
    workspace-relative and read beneath it); files that are not regular, unreadable, or
    leading out are left out."""
    found = []
    for name in _names(folder, root):
        if not name.endswith(".md"):
            continue
        try:
            if root is None:
                data = read_regular(folder / name, MAX_FILE_BYTES)
            else:
                data = read_regular_beneath(root, str(folder / name), MAX_FILE_BYTES)
        except (OSError, ToolError):
            continue
        found.append((name, data.decode("utf-8", "replace")))
    return found


def _names(folder: Path, root: str | None) -> list[str]:
    """The sorted names in `folder` (beneath `root` when given); none when it cannot be read."""
    try:
        if root is None:
            return sorted(os.listdir(folder))
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK
        with open_beneath(root, str(folder), flags) as (fd, _):
            return sorted(os.listdir(fd))
    except (OSError, ToolError):
        return []


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """A markdown file's front matter (between `---` lines at its start, when it has one)
    and its body."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        if end is not None:
            return _front_matter(lines[1:end]), "\n".join(lines[end + 1:])
    return {}, text


def _front_matter(lines: list[str]) -> dict[str, str]:
    """`key: value` lines (values unquoted); anything else is ignored."""
    meta = {}
    for line in lines:
        key, colon, value = line.partition(":")
        if colon and key.strip():
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            meta[key.strip().lower()] = value
    return meta
