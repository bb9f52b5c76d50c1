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
    The workspace root itself is accepted (the tools then report that it is a folder).
    """
    if not path or not path.strip():
        raise ToolError("Error: path is empty; give a file path relative to the workspace root")
    if "\0" in path:
        raise ToolError(f"Error: path {path!r} contains a NUL byte")
    root = os.path.realpath(workdir)
    lexical = os.path.abspath(os.path.join(root, path))
    # An absolute path may spell the workspace as the client gave it (e.g. through a linked /tmp).
    given = os.path.abspath(workdir)
    if not (_is_within(root, lexical) or _is_within(given, lexical)):
        raise _outside(path, root, lexical, "")
    resolved = os.path.realpath(lexical)
    if not _is_within(root, resolved):
        raise _outside(path, root, resolved, " through a symbolic link")
    return Path(resolved)


def _outside(path: str, root: str, where: str, how: str) -> ToolError:
    return ToolError(
        f"Error: path {path!r} is outside the workspace {root} (resolves to {where}{how}); "
        "only files inside the workspace can be used"
    )


def _is_within(root: str, candidate: str) -> bool:
    """Whether `candidate` is `root` or below it; `root + separator` keeps `/proj-evil` out."""
    if candidate == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return candidate.startswith(prefix)
