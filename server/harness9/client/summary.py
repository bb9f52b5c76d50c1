"""What a tool call did, in English, from the notification's structured fields.

The tools' own text is written for the model (the seed's messages, some in Chinese); the user
reads these instead: "read pager.py · 120 lines", "edited pager.py +1 −1",
"ran `python3 -m unittest` · exit 1 · 291 ms".
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from harness9.client import format as fmt
from harness9.visible_text import visible

COMMAND_WIDTH = 50
_VERBS = {
    "read_file": ("reading", "read"),
    "write_file": ("writing", "wrote"),
    "edit_file": ("editing", "edited"),
    "bash": ("running", "ran"),
}
_READ_NOTICE = re.compile(r"\n\n\[(?:truncated|end of file): [^\n]*\]\s*$")


def target(tool: str, arguments: Any) -> str:
    """What the call acts on: `the command` in backticks for bash, else the path."""
    args = arguments if isinstance(arguments, dict) else {}
    if tool == "bash" and isinstance(args.get("command"), str):
        return f"`{fmt.shorten(args['command'], COMMAND_WIDTH)}`"
    if isinstance(args.get("path"), str):
        return str(args["path"])
    return fmt.tool_summary(tool, arguments)


def asked(tool: str, arguments: Any) -> str:
    """The row of a call waiting for the user's approval: "bash `rm -r build`"."""
    return f"{tool} {target(tool, arguments)}"


def running(tool: str, arguments: Any) -> str:
    """The row of a call in progress: "running `make`", "editing pager.py"."""
    verbs = _VERBS.get(tool)
    if verbs is None:
        return f"{tool}  {fmt.tool_summary(tool, arguments)}"
    return f"{verbs[0]} {target(tool, arguments)}"


def finished(tool: str, arguments: Any, note: dict[str, Any], *, ok: bool) -> str:
    """The row of a call that ended (`note` is its tool_completed or tool_failed)."""
    duration = fmt.human_duration(float(note.get("durationMs", 0)))
    if not ok and arguments is None:  # refused before it ran (a tool the mode does not offer)
        return f"{tool} · {failure(note)}"
    if not ok:
        name = _VERBS[tool][1] if tool in _VERBS else tool
        verb = {"read": "read", "wrote": "write", "edited": "edit", "ran": "run"}.get(name, name)
        return f"{verb} {target(tool, arguments)} · {failure(note)}"
    if tool == "read_file":
        return f"read {target(tool, arguments)} · {_read_size(note)}"
    if tool == "write_file":
        return f"wrote {target(tool, arguments)} {_write_size(arguments, note)}"
    if tool == "edit_file":
        return f"edited {target(tool, arguments)} {_edit_size(arguments, note)}"
    if tool == "bash":
        facts = [exit_text(note), duration]
        return f"ran {target(tool, arguments)} · {' · '.join(f for f in facts if f)}"
    return f"{tool}  {fmt.tool_summary(tool, arguments)} · {duration}"


def failure(note: dict[str, Any]) -> str:
    """Why a call failed: its `reason`, and the `message` that goes with it when there is one
    (`rejected: not now`, `denied: deny rule bash(rm *)`), on one line."""
    reason = str(note.get("reason") or "error")
    message = note.get("message")
    if isinstance(message, str) and message.strip():
        return f"{reason}: {visible(' '.join(message.split()))}"
    return reason


def refused_plainly(note: dict[str, Any]) -> bool:
    """Whether a failed call's row says all there is to it: rejected by the user, or denied
    with the daemon's `message` saying why (the model's text would only repeat it)."""
    reason = note.get("reason")
    return reason == "rejected" or (reason == "denied" and isinstance(note.get("message"), str))


def exit_text(note: dict[str, Any]) -> str:
    """`exit 0`, `exit 3`, or `killed (SIGKILL)`, from a command's `exitCode` or `signal`
    (empty when the daemon sent neither)."""
    if isinstance(note.get("exitCode"), int):
        return f"exit {note['exitCode']}"
    if isinstance(note.get("signal"), str):
        return f"killed ({note['signal']})"
    return ""


def command_failed(note: dict[str, Any]) -> bool:
    """Whether a command's `tool_completed` tells of a failure: a non-zero `exitCode`, or a
    `signal` that killed it. The row shows it failed; the model got it as a normal result."""
    code = note.get("exitCode")
    return (isinstance(code, int) and code != 0) or isinstance(note.get("signal"), str)


def command_output(note: dict[str, Any]) -> str:
    """What a command printed: its `output` without the status line the model is given after
    a non-zero exit or a signal (the row already says how it ended), and nothing when it
    printed nothing (the model's "(no output)")."""
    output = str(note.get("output", ""))
    if note.get("bytes") == 0:
        return ""
    if command_failed(note):
        return output.rstrip("\n").rpartition("\n")[0]
    return output


def _read_size(note: dict[str, Any]) -> str:
    output = str(note.get("output", ""))
    text = _READ_NOTICE.sub("", output)
    if text.startswith("(") and text.endswith("is empty: 0 bytes)"):
        return "empty"
    count = _lines(text)
    size = f"{count} line{'s' if count != 1 else ''}"
    if note.get("truncated"):
        size += f" of {fmt.human_bytes(int(note.get('bytes', 0)))}"
    return size


def _write_size(arguments: Any, note: dict[str, Any]) -> str:
    if isinstance(note.get("added"), int) and isinstance(note.get("removed"), int):
        return _plus_minus(note["added"], note["removed"])
    content = arguments.get("content") if isinstance(arguments, dict) else None
    count = _lines(content) if isinstance(content, str) else 0
    return f"· {count} line{'s' if count != 1 else ''}"


def _edit_size(arguments: Any, note: dict[str, Any]) -> str:
    if isinstance(note.get("added"), int) and isinstance(note.get("removed"), int):
        return _plus_minus(note["added"], note["removed"])
    args = arguments if isinstance(arguments, dict) else {}
    before, after = args.get("source_text"), args.get("target_text")
    if not isinstance(before, str) or not isinstance(after, str):
        return ""
    added = removed = 0
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        added += line.startswith("+ ")
        removed += line.startswith("- ")
    return _plus_minus(added, removed)


def _plus_minus(added: int, removed: int) -> str:
    return f"+{added} −{removed}"


def _lines(text: str) -> int:
    return len(text.splitlines())
