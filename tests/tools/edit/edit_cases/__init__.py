"""The table of `edit_file` cases: a file's bytes, an edit, and the bytes or refusal expected.

Each category lives in its own module; `ALL` gathers them for the table-driven test.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Case:
    """One edit and its expected result.

    `expect` is the file's content after the edit (text is UTF-8 encoded, bytes are taken as
    they are); when it is None the edit must be refused with `kind` and the file left as it was.
    `level` is the level the edit must match at (or the level a refusal reached).
    """

    name: str
    file: str | bytes
    source: str
    target: str
    expect: str | bytes | None = None
    level: int = 1
    kind: str | None = None
    path: str = "file.txt"
    message: str | None = None  # the exact output (success) or error text, when checked

    @property
    def file_bytes(self) -> bytes:
        """The file's content before the edit."""
        return _bytes(self.file)

    @property
    def expect_bytes(self) -> bytes | None:
        """The file's content after the edit, or None for a refusal."""
        return None if self.expect is None else _bytes(self.expect)


def _bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8")


def refuse(name: str, file: str | bytes, source: str, target: str, kind: str, level: int,
           path: str = "file.txt", message: str | None = None) -> Case:
    """A case that must be refused."""
    return Case(name, file, source, target, None, level, kind, path, message)
