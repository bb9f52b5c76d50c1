"""The workspace sandbox shared by every file tool (the seed's `safePath`), symlink-aware."""

from __future__ import annotations

import os
from pathlib import Path

from harness9.tools.base import ToolError


def safe_path(workdir: str | os.PathLike[str], path: str) -> Path:
    """Resolve `path` (workspace-relative, or absolute inside the workspace) to a real path.

    Refuses empty paths, NUL bytes, anything whose lexical form or whose symlink-resolved form
    (also for files that do not exist yet, through a linked parent folder or a dangling link) lies
    outside `workdir`. The prefix test uses `root + separator`, so `/proj-evil` is not in `/proj`.
    """
    if not path or not path.strip():
        raise ToolError("Error: path is empty; give a file path relative to the workspace root")
    if "\0" in path:
        raise ToolError(f"Error: path {path!r} contains a NUL byte")
    root = os.path.realpath(workdir)
    lexical = os.path.abspath(os.path.join(root, path))
    resolved = os.path.realpath(lexical)
    for candidate in (lexical, resolved):
        if not candidate.startswith(root + os.sep):
            raise ToolError(
                f"Error: path {path!r} is outside the workspace {root} "
                f"(resolves to {candidate}); only files inside the workspace can be used"
            )
    return Path(resolved)
