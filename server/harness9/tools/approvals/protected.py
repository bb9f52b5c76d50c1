"""Files that decide what runs later: a write to them is always asked about.

Writes to the names of `harness9.process.protected_names` (which says why each is there), at
any depth of the workspace and matched on the resolved path too, are asked about in every mode
but yolo. The sandbox protects the same names from the commands it runs.
"""

from __future__ import annotations

from harness9.process.protected_names import FOLDERS, name_reason


def protection(path: str, fold_case: bool = False) -> str | None:
    """Why a write to the workspace-relative, `/`-separated `path` must be asked about
    ("writes .git/config, which controls what git runs"), or None."""
    parts = [part.casefold() if fold_case else part for part in path.split("/") if part]
    if not parts:
        return None
    why = next((FOLDERS[part] for part in parts[:-1] if part in FOLDERS), None)
    if why is None:
        why = name_reason(parts[-1])
    return None if why is None else f"writes {path}, {why}"
