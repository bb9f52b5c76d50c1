"""What the shell splitter reads a command line into: words, redirections, simple commands.

A `Word` keeps its text as written and, when bash would pass it on unchanged by any expansion,
its value after quote removal (`'r'\\m` is `rm`). A word with a parameter, a substitution, a
glob, a brace or a tilde has no value: what it becomes is known only when it runs.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_CONTINUATION = "\\\n"
# Files a redirection may name without writing anything the user cares about.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_WRITING_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_DUP_TARGET = re.compile(r"[0-9]+-?|-")
_BLANKS = re.compile(r"[ \t]*")


class Unparsable(ValueError):
    """The command uses syntax the splitter does not follow (or follows differently from
    bash): it is not understood, so no rule may allow it."""


class Word(NamedTuple):
    """One shell word: `raw` as written, `value` after quote removal (None when an expansion
    decides what it becomes). A tuple: the splitter makes many, and they are made faster."""

    raw: str
    value: str | None

    @property
    def bare(self) -> str:
        """The text bash's reader sees: line continuations (backslash-newline) removed."""
        return self.raw.replace(_CONTINUATION, "") if _CONTINUATION in self.raw else self.raw


class Redirect(NamedTuple):
    """`[fd]op target`: `op` is one of bash's redirection operators, `fd` the number written
    before it, if any."""

    op: str
    target: Word
    fd: str | None = None

    @property
    def writes(self) -> bool:
        """Whether it may create or change a file: an output redirection to anything but
        /dev/null and the like, `>&file` included; duplicating or closing a descriptor
        (`2>&1`, `>&-`) writes nothing."""
        value = self.target.value
        if self.op == ">&":
            return value is None or not _DUP_TARGET.fullmatch(value)
        return self.op in _WRITING_OPS and value not in HARMLESS_TARGETS


class SimpleCommand(NamedTuple):
    """One simple command: its text as written (trimmed, compound-command words left out),
    the leading `NAME=value` assignments, the words (the command word first) and the
    redirections. A command with no words runs nothing itself (a group's or subshell's
    redirections, `> file` alone)."""

    text: str
    assignments: tuple[Word, ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]


class Cursor:
    """A position in the command line. Outside single quotes bash drops every
    backslash-newline before it reads a character, so `at`, `take` and `after` skip them."""

    __slots__ = ("continued", "end", "pos", "text")

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos
        self.end = len(text)
        self.continued = _CONTINUATION in text  # else nothing is ever skipped: a fast path

    def _skip(self, index: int) -> int:
        while self.text.startswith(_CONTINUATION, index):
            index += 2
        return index

    def at(self) -> str:
        """The character at the position ("" at the end), after any line continuations."""
        if self.continued:
            self.pos = self._skip(self.pos)
        return self.text[self.pos] if self.pos < self.end else ""

    def after(self, count: int = 1) -> str:
        """The `count` characters after the current one (continuations skipped)."""
        if not self.continued:
            return self.text[self.pos + 1:self.pos + 1 + count]
        index = self._skip(self.pos)
        chars: list[str] = []
        for _ in range(count):
            index = self._skip(index + 1)
            chars.append(self.text[index] if index < self.end else "")
        return "".join(chars)

    def take(self, count: int = 1) -> str:
        """Consume `count` characters (continuations skipped) and return them."""
        if not self.continued:
            self.pos += count
            return self.text[self.pos - count:self.pos]
        chars = []
        for _ in range(count):
            chars.append(self.at())
            self.pos += 1
        return "".join(chars)

    def blanks(self) -> None:
        """Skip spaces and tabs: the only blanks between words (CR, VT and FF are not)."""
        if not self.continued:
            self.pos = _BLANKS.match(self.text, self.pos).end()  # type: ignore[union-attr]
            return
        while self.at() in (" ", "\t"):
            self.pos += 1
