"""Reading one shell word as bash does: quotes, escapes, `$…` expansions, backticks.

Command and process substitutions contain commands of their own: the reader hands them to
its `Nesting` (the splitter), which lists them. Whatever bash could read in more than one way,
or could turn into commands the text does not show, is `Unparsable`: `$[…]`, arithmetic other
than numbers and operators (a variable in it may hold `a[$(cmd)]`, which arithmetic runs),
`${!…}`, `${…[…]}`, `${…@…}`, substrings, quotes or backslashes inside `${…}` or backticks.
"""

from __future__ import annotations

import re
from typing import Protocol

from harness9.tools.approvals.shell_words import Cursor, Unparsable, Word

# Characters that stand for themselves in an unquoted word.
_PLAIN = re.compile(r"[^\\'\"$`*?\[{}~ \t\n;&|()<>]+")
ENDS_WORD = frozenset(" \t\n;&|()<>")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMETERS = frozenset("0123456789@*#?$!-")
_ARITHMETIC = re.compile(r"[0-9 \t+\-*/%<>=!&|^~?:,]")
_PARAMETER_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?", "##", "#", "%%", "%", "//", "/#",
                  "/%", "/", "^^", "^", ",,", ",")
_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_DIGITS = {"x": (16, 2), "u": (16, 4), "U": (16, 8)}


class Nesting(Protocol):
    """Where the commands inside a word go."""

    def command_list(self, closing: str) -> None:
        """Read commands from the cursor up to and including `closing`."""
        ...

    def backquoted(self, text: str) -> None:
        """Read the commands of a backquoted substitution's text."""
        ...


class WordReader:
    """Reads words at a cursor; `nesting` takes the substitutions' commands."""

    def __init__(self, cursor: Cursor, nesting: Nesting) -> None:
        self.cur = cursor
        self.nesting = nesting

    def word(self) -> Word:
        """The word at the cursor (which is not at a blank or an operator)."""
        cur = self.cur
        start = cur.pos
        out: list[str] = []
        literal = True
        brace = False
        bracket = -1  # where an unquoted `[` is: with a `]` after it, a glob
        while True:
            char = cur.at()
            if char in ("<", ">") and cur.after() == "(":  # process substitution
                cur.take(2)
                self.nesting.command_list(")")
                literal = False
                continue
            if not char or char in ENDS_WORD:
                break
            plain = _PLAIN.match(cur.text, cur.pos)
            if plain is not None:
                out.append(plain.group())
                cur.pos = plain.end()
                continue
            if char == "{":
                brace = True
            elif char == "}" and brace and out[-1:] != ["{"]:
                literal = False  # `a{b,c}` and `{1..3}` are brace expansions; `{}` is not
            if char == "[" and bracket < 0:
                bracket = cur.pos
            elif char in "*?~":
                literal = False  # a glob, or a tilde expansion
            if char in "*?[~{}":
                out.append(cur.take())
                continue
            value = self._quoted_or_expanded(char)
            if value is None:
                literal = False
            else:
                out.append(value)
        raw = cur.text[start:cur.pos]
        if bracket >= 0 and "]" in cur.text[bracket:cur.pos]:
            literal = False  # `[ab]`: a glob; `[` alone is the test command
        return Word(raw, "".join(out) if literal else None)

    def _quoted_or_expanded(self, char: str) -> str | None:
        """Consume a backslash escape, a quoted string, an expansion or a substitution; its
        value (None when it expands)."""
        cur = self.cur
        if char == "\\":
            if cur.pos + 1 >= cur.end:
                raise Unparsable("a trailing backslash")
            cur.pos += 2
            return cur.text[cur.pos - 1]
        if char == "'":
            end = cur.text.find("'", cur.pos + 1)
            if end < 0:
                raise Unparsable("unterminated '")
            value = cur.text[cur.pos + 1:end]
            cur.pos = end + 1
            return value
        if char == '"':
            cur.take()
            return self.double_quoted()
        if char == "`":
            self.backquoted()
            return None
        return self.dollar(quoted=False)

    def double_quoted(self) -> str | None:
        """The rest of a double-quoted string, after its opening quote."""
        cur = self.cur
        out: list[str] = []
        literal = True
        while True:
            char = cur.at()
            if not char:
                raise Unparsable('unterminated "')
            if char == '"':
                cur.pos += 1
                return "".join(out) if literal else None
            if char == "\\":
                following = cur.text[cur.pos + 1:cur.pos + 2]
                cur.pos += 2 if following in ('$', '`', '"', "\\") else 1
                out.append(following if following in ('$', '`', '"', "\\") else "\\")
            elif char == "`":
                self.backquoted()
                literal = False
            elif char == "$":
                value = self.dollar(quoted=True)
                literal = literal and value is not None
                out.append(value or "")
            else:
                out.append(char)
                cur.pos += 1

    def backquoted(self) -> None:
        """`` `…` ``: bash finds the closing backquote first and reads the text between as a
        command line of its own; backslashes in it are escapes of a second reading, refused."""
        cur = self.cur
        end = cur.text.find("`", cur.pos + 1)
        if end < 0:
            raise Unparsable("unterminated `")
        inner = cur.text[cur.pos + 1:end]
        if "\\" in inner:
            raise Unparsable("a backslash inside backquotes")
        cur.pos = end + 1
        self.nesting.backquoted(inner)

    def dollar(self, quoted: bool) -> str | None:
        """An expansion starting with `$`; its value when it is none (a lone `$`)."""
        cur = self.cur
        following = cur.after()
        if following == "'" and not quoted:
            cur.take(2)
            return self._ansi_c()
        if following == '"' and not quoted:
            cur.take(2)
            self.double_quoted()
            return None  # $"…" is translated through the locale's catalogue
        if following == "(":
            if cur.after(2) == "((":
                self._arithmetic()
            else:
                cur.take(2)
                self.nesting.command_list(")")
            return None
        if following == "[":
            raise Unparsable("$[…] arithmetic")
        if following == "{":
            cur.take(2)
            self._parameter()
            return None
        name = _NAME.match(cur.text, cur._skip(cur.pos + 1)) if following else None
        if name is not None:
            cur.pos = name.end()
            return None
        if following and following in _SPECIAL_PARAMETERS:
            cur.take(2)
            return None
        cur.take()
        return "$"

    def _arithmetic(self) -> None:
        """`$((…))` holding only numbers and operators."""
        cur = self.cur
        cur.take(3)
        depth = 0
        while cur.pos < cur.end:
            char = cur.text[cur.pos]
            cur.pos += 1
            if char == "(":
                depth += 1
            elif char == ")":
                if depth:
                    depth -= 1
                    continue
                if cur.text[cur.pos:cur.pos + 1] != ")":
                    raise Unparsable("$(( closed by a single )")
                cur.pos += 1
                return
            elif not _ARITHMETIC.match(char):
                raise Unparsable("arithmetic with names or expansions")
        raise Unparsable("unterminated $((")

    def _parameter(self) -> None:
        """`${name}`, `${#name}` or `${name OP word}` with a plain word (expansions allowed)."""
        cur = self.cur
        text = cur.text
        if text.startswith("#", cur.pos) and text[cur.pos + 1:cur.pos + 2] not in ("}", ""):
            cur.pos += 1  # ${#name}: the length
        name = _NAME.match(text, cur.pos)
        if name is not None:
            cur.pos = name.end()
        elif text[cur.pos:cur.pos + 1] in _SPECIAL_PARAMETERS - {"!"}:
            cur.pos += 1
        else:
            raise Unparsable("${ without a plain name")
        if text.startswith("}", cur.pos):
            cur.pos += 1
            return
        op = next((op for op in _PARAMETER_OPS if text.startswith(op, cur.pos)), None)
        if op is None:
            raise Unparsable("an unsupported ${…} form")
        cur.pos += len(op)
        while cur.pos < cur.end:
            char = text[cur.pos]
            if char == "}":
                cur.pos += 1
                return
            if char in "'\"`\\{\n":
                raise Unparsable("quotes, backslashes or braces inside ${…}")
            if char == "$":
                if text[cur.pos + 1:cur.pos + 2] in ("'", '"'):
                    raise Unparsable("quotes inside ${…}")
                self.dollar(quoted=True)
            else:
                cur.pos += 1
        raise Unparsable("unterminated ${")

    def _ansi_c(self) -> str | None:
        """The rest of `$'…'`, decoded (None when it holds what a Python string cannot say
        as bash passes it: a NUL, a raw byte, an unknown escape)."""
        cur = self.cur
        text = cur.text
        out: list[str] = []
        exact = True
        while cur.pos < cur.end:
            char = text[cur.pos]
            if char == "'":
                cur.pos += 1
                return "".join(out) if exact else None
            if char != "\\":
                out.append(char)
                cur.pos += 1
                continue
            if cur.pos + 1 >= cur.end:
                break
            decoded = self._ansi_escape()
            if decoded is None or decoded == "\0":
                exact = False
            else:
                out.append(decoded)
        raise Unparsable("unterminated $'")

    def _ansi_escape(self) -> str | None:
        """One backslash escape of `$'…'` at the cursor, consumed; None when not exact."""
        cur = self.cur
        text = cur.text
        kind = text[cur.pos + 1]
        cur.pos += 2
        if kind in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[kind]
        if kind in _DIGITS or kind in "01234567":
            base, most = _DIGITS.get(kind, (8, 3))
            if base == 8:
                cur.pos -= 1
            digits = re.compile(r"[0-9a-fA-F]" if base == 16 else r"[0-7]")
            start = cur.pos
            while cur.pos - start < most and cur.pos < cur.end and digits.match(text[cur.pos]):
                cur.pos += 1
            if cur.pos == start:
                return None
            code = int(text[start:cur.pos], base)
            # Above ASCII, what bash passes depends on the locale (a byte, UTF-8, an escape).
            return chr(code) if code < 0x80 else None
        if kind == "c" and cur.pos < cur.end and text[cur.pos].isascii() \
                and text[cur.pos].isalpha():
            cur.pos += 1
            return chr(ord(text[cur.pos - 1].upper()) & 0x1F)
        return None
