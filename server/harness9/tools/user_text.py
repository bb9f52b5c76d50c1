"""The user's own text for a file call: "edit before allowing".

When the user is asked about a `write_file` or `edit_file` call, they may change the proposed
text before they allow it. The approval step then sets `USER_TEXT` for the call, and the tool
writes that text through its usual, atomic write path instead of its own result, provided the
file still holds what the change was proposed on. The model is told what the user changed.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from harness9.schema import ToolError
from harness9.tools.edit.diff import unified_diff
from harness9.workspace.port import FileText

NOTE_DIFF_CHARS = 8000  # of the diff between the model's text and the user's, in the note


@dataclass(frozen=True, slots=True)
class UserText:
    """What the user wrote in place of a call's proposed change: `content`, the file's whole
    new text; `before`, the text the change was proposed on (None: a new file); `proposed`,
    what the call would have written."""

    content: str
    before: str | None
    proposed: str


# Set by the approval step for the call the user allowed with their own text; read by the
# file tools that write it (those with `writes_user_text`).
USER_TEXT: ContextVar[UserText | None] = ContextVar("harness9_user_text", default=None)


def takes_user_text(tool: object) -> bool:
    """Whether `tool` writes the user's text in place of its own change."""
    return getattr(tool, "writes_user_text", False) is True


def check_base(before: FileText | None, user: UserText, path: str) -> None:
    """Refuses the write when the file no longer holds the text the user's change was made on."""
    now = None if before is None else before.text
    if now != user.before:
        raise changed_meanwhile(path)


def changed_meanwhile(path: str) -> ToolError:
    """The error of a file that changed while the user edited the change proposed for it."""
    return ToolError(
        f"Error: {path} changed while the user was editing your change, so neither your text "
        "nor theirs was written. Read it again and retry"
    )


def note(path: str, user: UserText) -> str:
    """What the model is told: the user changed its text, and how."""
    diff = unified_diff(path, user.proposed, user.content)
    if len(diff) > NOTE_DIFF_CHARS:
        diff = diff[:NOTE_DIFF_CHARS] + "\n[cut: read the file to see the rest]\n"
    return (
        f"The user changed your edit before allowing it: {path} now holds their text, not "
        "yours. How it differs from what you proposed (your text on the - side, theirs on "
        f"the + side):\n{diff}"
    )
