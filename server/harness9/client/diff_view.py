"""A file change as a colored unified diff, collapsed to its first lines when it is long."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

DIFF_LINES = 12
_INDENT = "      "


def diff_lines(diff: str, *, truncated: bool = False, limit: int = DIFF_LINES) -> RenderableType:
    """The hunks of `diff` (the `---`/`+++` header left out: the row names the file), green for
    added and red for removed lines, at most `limit` lines, then how many more there are."""
    lines = [line for line in diff.splitlines() if not line.startswith(("--- ", "+++ "))]
    shown = lines[:limit]
    rows = [Text(_INDENT + line, style=_style(line), no_wrap=True, overflow="ellipsis")
            for line in shown]
    hidden = len(lines) - len(shown)
    if hidden > 0 or truncated:
        more = f"… {hidden} more diff lines" if hidden > 0 else "…"
        rows.append(Text(_INDENT + more + (" (diff cut by the daemon)" if truncated else ""),
                         style="dim"))
    return Group(*rows)


def _style(line: str) -> str:
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    if line.startswith("@@"):
        return "cyan"
    return "dim"
