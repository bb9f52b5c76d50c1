"""Paths as rules and the user see them: relative to the workspace, `/`-separated."""

from __future__ import annotations

import os


def relative_path(path: str, root: str | None = None) -> str:
    """A path as rules and the user see it: workspace-relative, `/`-separated, `..` applied
    to the text (as the sandbox does), so `src/../.env` is `.env`."""
    if root is not None and os.path.isabs(path):
        path = os.path.relpath(os.path.normpath(path), os.path.normpath(root))
    return os.path.normpath(path).replace(os.sep, "/").lstrip("/") if path else ""
