"""Pure formatting for the terminal view: tool summaries, sizes, durations, output previews."""

from __future__ import annotations

import json
import re
from typing import Any

from harness9.visible_text import CUT, visible

PREVIEW_LINES = 4
PROBLEM_LINES = 5  # of an edit's new problems shown under its row
SUMMARY_WIDTH = 60


def human_bytes(size: int) -> str:
    """`412 B`, `1.2 kB`, `3.4 MB`."""
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.1f} kB"
    return f"{size / 1_000_000:.1f} MB"


def human_duration(ms: float) -> str:
    """`12 ms` below a second, `1.3 s` above."""
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.1f} s"


def shorten(text: str, width: int = SUMMARY_WIDTH) -> str:
    """The first line of `text`, cut to `width` characters; `…` marks what is left out. It
    is shown through `visible`: a carriage return or an escape sequence in a command shows
    as `\\r` or `\\x1b`, it does not move the cursor over the rest."""
    first, newline, _ = text.strip(" \t\n").partition("\n")
    line = visible(first, width)
    return line + " …" if newline and not line.endswith(CUT) else line


_MARKUP = (
    (re.compile(r"^\s{0,3}#{1,6}\s+"), ""),  # a heading's marks
    (re.compile(r"^(\s*)[-*+]\s+"), r"\1• "),  # a list item
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # a link: its text
    (re.compile(r"(\*\*|__)(.+?)\1"), r"\2"),  # strong
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"\1"),  # emphasis
    (re.compile(r"`([^`]+)`"), r"\1"),  # code
)
_NOT_TEXT = re.compile(r"^\s*(```|~~~|\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$)")


def markdown_lines(text: str) -> list[str]:
    """The lines of a Markdown text as plain text, for a line or two of it: marks taken off
    (headings, emphasis, code, links), list items as `•`, a table row's cells joined with
    `·`; fences, table rules and blank lines left out."""
    lines = []
    for line in text.splitlines():
        if not line.strip() or _NOT_TEXT.match(line):
            continue
        if line.strip().startswith("|"):
            line = " · ".join(cell.strip() for cell in line.strip().strip("|").split("|"))
        for pattern, replacement in _MARKUP:
            line = pattern.sub(replacement, line)
        lines.append(line.rstrip())
    return lines


def tool_summary(tool: str, arguments: Any) -> str:
    """What a tool call is about, in one line: the path, or the bash command."""
    if not isinstance(arguments, dict):
        return shorten(str(arguments))
    if tool == "bash" and isinstance(arguments.get("command"), str):
        return shorten(arguments["command"])
    if tool == "task" and isinstance(arguments.get("description"), str):
        return shorten(f"{arguments.get('agent') or 'explore'}: {arguments['description']}")
    if isinstance(arguments.get("path"), str):
        summary = arguments["path"]
        if tool == "write_file" and isinstance(arguments.get("content"), str):
            summary += f" ({human_bytes(len(arguments['content'].encode()))})"
        return shorten(summary)
    return shorten(json.dumps(arguments, ensure_ascii=False))


def preview(kind: str, output: str, limit: int = PREVIEW_LINES) -> list[str]:
    """A few lines of the output of a tool of this kind: the tail of a command's (where
    verdicts are), else the head."""
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    if len(lines) <= limit:
        return lines
    hidden = len(lines) - (limit - 1)
    if kind == "execute":
        return [f"… {hidden} lines above", *lines[-(limit - 1) :]]
    return [*lines[: limit - 1], f"… {hidden} more lines"]


def tokens(usage: dict[str, Any] | None) -> str:
    """`1,234 in · 210 out tokens`, or an empty string when nothing was reported."""
    if not usage:
        return ""
    sent, received = usage.get("inputTokens", 0), usage.get("outputTokens", 0)
    if not sent and not received:
        return ""
    return f"{sent:,} in · {received:,} out tokens"


def context_fill(usage: dict[str, Any] | None) -> str:
    """`context 61% of 200k` from a usage notification, or "" when it has no window."""
    if not usage:
        return ""
    used, window = usage.get("contextTokens"), usage.get("contextWindow")
    if not isinstance(used, int) or not isinstance(window, int) or window <= 0:
        return ""
    return f"context {round(100 * used / window)}% of {_short_count(window)}"


def cost(usage: dict[str, Any] | None) -> str:
    """`$0.0123` from a usage notification's `costUsd` (the run's cost so far), or "" when the
    model's price is not known."""
    amount = (usage or {}).get("costUsd")
    if isinstance(amount, bool) or not isinstance(amount, int | float):
        return ""
    return f"${amount:.4f}" if amount < 1 else f"${amount:,.2f}"


def _short_count(count: int) -> str:
    if count >= 1_000_000 and count % 100_000 == 0:
        return f"{count / 1_000_000:g}M"
    if count >= 1000:
        return f"{round(count / 1000)}k"
    return str(count)


CHANGED_LINES = 8
_CHANGE_MARKS = {"added": "+", "modified": "~", "deleted": "-"}


def changed_files(files: Any, shared_with: Any = None, limit: int = CHANGED_LINES) -> list[str]:
    """What a bash call changed, one line a file (`+ new.txt`, `~ a.txt`, `- gone.txt`), at
    most `limit` lines; a last note when calls ran at the same time and may be mixed in."""
    if not isinstance(files, list):
        return []
    lines = [
        f"{_CHANGE_MARKS.get(str(f.get('status')), '?')} {f.get('path')}"
        for f in files
        if isinstance(f, dict)
    ]
    if len(lines) > limit:
        lines = [*lines[: limit - 1], f"… {len(lines) - (limit - 1)} more files"]
    if lines and shared_with:
        lines.append("(may include changes of the calls that ran at the same time)")
    return lines


def new_problems(problems: Any, limit: int = PROBLEM_LINES) -> list[str]:
    """An edit's new problems (`tool_completed.diagnostics`), one a line
    (`path:line:column: severity: message (source code)`), at most `limit`."""
    if not isinstance(problems, list):
        return []
    lines = []
    for problem in problems[:limit]:
        if not isinstance(problem, dict):
            continue
        where = ":".join(str(problem.get(key, "?")) for key in ("path", "line", "column"))
        origin = " ".join(str(problem[key]) for key in ("source", "code") if problem.get(key))
        text = f"{where}: {problem.get('severity')}: {problem.get('message')}"
        lines.append(visible(text + (f" ({origin})" if origin else ""), 300))
    if len(problems) > limit:
        lines.append(f"… and {len(problems) - limit} more")
    return lines
