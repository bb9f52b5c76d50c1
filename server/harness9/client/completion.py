"""What Tab completes at the interactive prompt: a `/command` at the start of the line, an
`@path` of the workspace anywhere in it.

Paths complete one folder at a time, as a shell does: only the folder being typed in is
listed, so a large workspace costs nothing more. `.git` and the folders of dependencies and
build output are left out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

SKIPPED = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".tox", "dist", "build", "target", ".next", ".cache"}
)
MAX_LISTED = 200  # entries of one folder offered at most
_MENTION = re.compile(r"(?:^|\s)@(\S*)$")  # `@path` being typed, before the cursor


def command_matches(names: Iterable[str], typed: str) -> list[str]:
    """The `/names` that start with `typed`, sorted."""
    return sorted({name for name in names if name.startswith(typed)})


def path_matches(workspace: Path, typed: str) -> list[str]:
    """Workspace paths (relative, `/` after a folder) that start with `typed`, folders first."""
    folder_part, _, start = typed.rpartition("/")
    folder = (workspace / folder_part).resolve() if folder_part else workspace
    if not folder.is_relative_to(workspace.resolve()):
        return []  # `@../..`: outside the workspace, nothing to offer
    prefix = f"{folder_part}/" if folder_part else ""
    found: list[tuple[bool, str]] = []
    for name, is_dir in _entries(folder):
        if name.startswith(start) and not (name in SKIPPED and is_dir):
            found.append((not is_dir, prefix + name + ("/" if is_dir else "")))
        if len(found) >= MAX_LISTED:
            break
    return [path for _, path in sorted(found)]


def _entries(folder: Path) -> Iterator[tuple[str, bool]]:
    """The names in `folder` and whether each is a folder (links followed); none if unreadable."""
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                try:
                    yield entry.name, entry.is_dir()
                except OSError:
                    continue
    except OSError:
        return


class PromptCompleter(Completer):
    """Completes `/commands` (from `names()`, asked at each Tab: the list may grow) and
    `@paths` of `workspace`."""

    def __init__(self, names: Callable[[], Iterable[str]], workspace: Path) -> None:
        self._names = names
        self._workspace = workspace

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        """The completions of the text before the cursor."""
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for name in command_matches(self._names(), before):
                yield Completion(name, start_position=-len(before))
            return
        mention = _MENTION.search(before)
        if mention is None:
            return
        typed = mention[1]
        for path in path_matches(self._workspace, typed):
            yield Completion(path, start_position=-len(typed), display=path)
