"""The stale guard: what one session last read or wrote of each file.

write_file replaces a whole file with what the model believes it holds. When the model never
read the file, or the user (in the editor), bash or another session changed it since, that
belief is stale and the write would silently undo someone's work, so it is refused with a
message that says what to do. The service keeps one `SeenFiles` per session and hands it to the
tools; files are keyed by their real path, so `a.txt` and `./a.txt` are one file.
A stored session keeps what it saw (`known`), so a resumed session need not read a file again
before writing it, unless the file changed meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping

# A stored session keeps the files it touched last; one that forgets an old file only costs the
# model a read_file before it overwrites that file.
KEPT = 4096


class SeenFiles:
    """The fingerprint of each file's content when this session last read or wrote it."""

    def __init__(self, known: Mapping[str, str] | None = None) -> None:
        self._seen: dict[str, str] = dict(known or {})

    def saw(self, key: str, fingerprint: str) -> None:
        """The session read (a page of) or wrote the file `key`, whose content had `fingerprint`."""
        self._seen.pop(key, None)  # the latest touched last, so `known` keeps the recent ones
        self._seen[key] = fingerprint

    def known(self) -> dict[str, str]:
        """What the session saw of the (at most `KEPT`) files it touched last, to store."""
        return dict(list(self._seen.items())[-KEPT:])

    def forget(self, key: str) -> None:
        """The session's knowledge of the file is gone (it failed to write it, say)."""
        self._seen.pop(key, None)

    def stale(self, key: str, fingerprint: str, shown: str) -> str | None:
        """Why overwriting the file (its content now has `fingerprint`) would lose work the
        session has not seen, as a message for the model; None when the write may go ahead."""
        known = self._seen.get(key)
        if known is None:
            return (
                f"Error: {shown} already exists and you have not read it in this session, so "
                "write_file did not overwrite it. Read it first with read_file (then write the "
                "complete new content), or change part of it with edit_file"
            )
        if known != fingerprint:
            return (
                f"Error: {shown} has changed since you last read or wrote it (in the editor, "
                "by a command or by someone else), so write_file did not overwrite it. Read "
                "it again with read_file and base the new content on what it holds now, or "
                "change part of it with edit_file"
            )
        return None
