"""Instruction comments: `harness9: <what to do>` written in a comment of any language, the prompt
a plain LSP client's user types in the buffer. The file's language decides the comment syntax."""

from __future__ import annotations

import re
from dataclasses import dataclass

MARK = "harness9:"
# Line-comment leaders by LSP language id; a language not listed is read with every leader.
_HASH = ("#",)
_SLASHES = ("//", "/*")
_LEADERS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("python", "shellscript", "sh", "bash", "ruby", "perl", "yaml", "toml",
                     "r", "elixir", "nim", "dockerfile", "makefile", "cmake", "julia",
                     "powershell", "coffeescript", "gdscript"), _HASH),
    **dict.fromkeys(("javascript", "typescript", "javascriptreact", "typescriptreact", "go",
                     "rust", "c", "cpp", "csharp", "java", "kotlin", "swift", "scala", "dart",
                     "php", "zig", "objective-c", "css", "scss", "less", "jsonc", "groovy",
                     "proto", "solidity"), _SLASHES),
    **dict.fromkeys(("lua", "sql", "haskell", "elm", "ada", "vhdl"), ("--",)),
    **dict.fromkeys(("lisp", "clojure", "scheme", "emacs-lisp", "elisp", "racket", "ini",
                     "asm"), (";",)),
    **dict.fromkeys(("latex", "tex", "erlang", "matlab", "prolog"), ("%",)),
    **dict.fromkeys(("html", "xml", "markdown", "vue", "svelte"), ("<!--",)),
    "vim": ('"',),
    "fortran": ("!",),
}
_ALL = ("#", "//", "/*", "--", ";", "%", "<!--", '"', "!")
# What may close a comment on its line, left out of the instruction.
_CLOSERS = re.compile(r"\s*(\*/|-->)\s*$")


@dataclass(frozen=True, slots=True)
class Instruction:
    """An instruction comment: its line (0-based), the instruction, and the line's text."""

    line: int
    text: str
    source_line: str


def leaders(language_id: str | None) -> tuple[str, ...]:
    """The comment leaders of a language (every known one for an unknown language)."""
    return _LEADERS.get((language_id or "").lower(), _ALL)


def instruction_on(line_text: str, language_id: str | None) -> str | None:
    """The instruction of a line that is (or ends with) a `harness9:` comment, else None."""
    for leader in sorted(leaders(language_id), key=len, reverse=True):
        at = line_text.find(leader)
        while at != -1:
            rest = line_text[at + len(leader):].lstrip(" \t*!/-;%#")
            if rest.lower().startswith(MARK):
                text = _CLOSERS.sub("", rest[len(MARK):]).strip()
                return text or None
            at = line_text.find(leader, at + 1)
    return None


def instructions_in(text: str, first: int, last: int, language_id: str | None
                    ) -> list[Instruction]:
    """The instruction comments on lines `first`..`last` (0-based, inclusive) of `text`."""
    found = []
    for number, line in enumerate(text.splitlines()[first:last + 1], start=first):
        instruction = instruction_on(line, language_id)
        if instruction is not None:
            found.append(Instruction(number, instruction, line))
    return found


def without_instruction(text: str, instruction: Instruction) -> str | None:
    """`text` with the instruction comment removed (the whole line when it holds only the
    comment, else the comment from its leader on), or None when the line is no longer there."""
    lines = text.splitlines(keepends=True)
    for number in _nearest(instruction.line, len(lines)):
        line = lines[number]
        if line.rstrip("\r\n") != instruction.source_line:
            continue
        code = _code_before_comment(line.rstrip("\r\n"))
        if code.strip():
            lines[number] = code.rstrip() + line[len(line.rstrip("\r\n")):]
        else:
            del lines[number]
        return "".join(lines)
    return None


def _nearest(line: int, count: int) -> list[int]:
    """Line numbers from `line` outwards: an edit above the comment may have moved it."""
    order = sorted(range(count), key=lambda n: abs(n - line))
    return order


def _code_before_comment(line: str) -> str:
    at = line.lower().find(MARK)
    head = line[:at]
    for leader in sorted(_ALL, key=len, reverse=True):
        cut = head.rfind(leader)
        if cut != -1:
            return head[:cut]
    return head
