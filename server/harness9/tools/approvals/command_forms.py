"""The spellings of a simple command that approval rules are matched against.

A rule is text, and bash runs `rm` however it is written: `\\rm`, `'rm'`, `r''m`, `/bin/rm`,
`command rm`, `env -i FOO=1 rm`, `nohup rm`, `sudo rm`. So each command is also read in a
normal form: words after quote removal, each word that needs quoting single-quoted, the
wrappers that run the next word as a command taken away.

- An allow rule is matched against `allow_form`: only the wrappers that change nothing about
  who runs what (`command`, `builtin`, `exec`, `nohup`, `nice`, `time`, a plain `env`) are
  taken away, and assignments stay (`LD_PRELOAD=x git status` is not `git status`).
- A deny rule is matched against every spelling (`deny_forms`): as written, the allow form, and
  the command that finally runs (`sudo`, `env` with options, `timeout`, `xargs`… taken away,
  assignments dropped, the command word's folder dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness9.tools.approvals.shell_words import SimpleCommand, Unparsable, Word

_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")
_SAFE_TEXT = re.compile(r"[A-Za-z0-9_@%+=:,./ \t-]+")  # safe words, and the blanks between
_BLANKS = re.compile(r"[ \t]+")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
# Builtins that run text as code, define what later words mean, or assign to names whose
# subscripts are arithmetic (which runs `$(…)`): a line that uses them is not understood.
_CODE_BUILTINS = frozenset({
    "alias", "bind", "compgen", "complete", "compopt", "declare", "enable", "eval", "fc",
    "getopts", "hash", "history", "let", "local", "mapfile", "read", "readarray", "readonly",
    "set", "shopt", "source", ".", "trap", "typeset", "unalias", "unset",
})
_KEYWORDS = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while",
                       "until", "time", "for", "in", "case", "esac", "select", "function",
                       "coproc", "[[", "]]"})
_PIECES = re.compile(r"\$\(|[;&|()\n`{}<>]")
_CHECKED_BUILTINS = frozenset({"test", "[", "printf"})


@dataclass(frozen=True, slots=True)
class _Wrapper:
    """A command that runs the command after its options: `valued` options take the next
    word, `positional` plain arguments come first, `assignments` may come first, `split`
    options hold a command line of their own (`env -S`)."""

    valued: frozenset[str] = field(default_factory=frozenset)
    positional: int = 0
    assignments: bool = False
    split: frozenset[str] = field(default_factory=frozenset)


_WRAPPERS: dict[str, _Wrapper] = {
    name: _Wrapper() for name in ("command", "builtin", "nohup", "time", "setsid")
} | {
    "exec": _Wrapper(frozenset({"-a"})),
    "nice": _Wrapper(frozenset({"-n", "--adjustment"})),
    "env": _Wrapper(frozenset({"-u", "--unset", "-C", "--chdir"}), assignments=True,
                    split=frozenset({"-S", "--split-string"})),
    "sudo": _Wrapper(frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T",
                                "--user", "--group", "--close-from", "--chdir", "--host",
                                "--prompt", "--role", "--type", "--other-user",
                                "--command-timeout"}), assignments=True),
    "doas": _Wrapper(frozenset({"-u", "-C"})),
    "timeout": _Wrapper(frozenset({"-s", "--signal", "-k", "--kill-after"}), positional=1),
    "stdbuf": _Wrapper(frozenset({"-i", "-o", "-e", "--input", "--output", "--error"})),
    "xargs": _Wrapper(frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file",
                                 "--delimiter", "--eof", "--replace", "--max-lines",
                                 "--max-args", "--max-procs", "--max-chars"})),
}
# The command words `check_runs_no_hidden_code` looks further at.
_CHECKED = _CODE_BUILTINS | _CHECKED_BUILTINS | frozenset(_WRAPPERS)
# Wrappers an allow rule looks through, with the options that keep them neutral.
_NEUTRAL: dict[str, frozenset[str]] = {
    "command": frozenset({"-p"}), "builtin": frozenset(), "exec": frozenset(),
    "nohup": frozenset(), "time": frozenset({"-p"}), "nice": frozenset({"-n"}),
}


def render(word: Word) -> str:
    """A word as the normal forms spell it: its value, single-quoted when it needs quotes;
    as written (continuations removed) when an expansion decides its value."""
    return word.bare if word.value is None else quoted(word.value)


def quoted(value: str) -> str:
    """`value` as one shell word: bare when it is made of safe characters only."""
    if _SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def allow_form(command: SimpleCommand) -> str | None:
    """What an allow rule must match, or None when the command word is an expansion (what it
    runs is not known until it runs). "" for a command without words or assignments."""
    words = list(command.words)
    if not command.assignments and words and words[0].value is not None \
            and words[0].value not in _NEUTRAL and words[0].value != "env":
        # The usual command: as it stands (blanks made one space, when nothing needs quotes).
        if _SAFE_TEXT.fullmatch(command.text):
            return _BLANKS.sub(" ", command.text)
        return " ".join([render(word) for word in words])
    assignments = [_assignment(word) for word in command.assignments]
    while words and words[0].value in _NEUTRAL:
        options = _NEUTRAL[str(words[0].value)]
        rest = words[1:]
        while rest and rest[0].value in options:
            rest = rest[2:] if rest[0].value == "-n" else rest[1:]
        if not rest or (rest[0].value is not None and rest[0].value.startswith("-")):
            break  # an option that changes what runs: the wrapper stays in the form
        words = rest
    if words and words[0].value == "env":  # `env A=1 cmd` is `A=1 cmd`
        rest = words[1:]
        moved = []
        while rest and rest[0].value is not None and _ASSIGNMENT.match(rest[0].value):
            moved.append(_assignment(rest.pop(0)))
        if rest and (rest[0].value is None or not rest[0].value.startswith("-")):
            assignments, words = assignments + moved, rest
    if words and words[0].value is None:
        return None
    return " ".join([*assignments, *(render(word) for word in words)])


def deny_forms(command: SimpleCommand) -> list[str]:
    """Every spelling a deny rule is matched against: as written, the allow form, the program
    that finally runs with its arguments (quoted, and not)."""
    forms = [command.text]
    exact = allow_form(command)
    if exact:
        forms.append(exact)
    words = runs(command.words)
    if words:
        head = words[0].value
        name = head.rsplit("/", 1)[-1] if head is not None else words[0].bare
        forms.append(" ".join([quoted(name), *(render(word) for word in words[1:])]))
        plain = [word.value if word.value is not None else word.bare for word in words[1:]]
        forms.append(" ".join([name, *plain]))
    return list(dict.fromkeys(forms))


def program(command: SimpleCommand) -> str | None:
    """The name of the program that finally runs (`rm` for `sudo /bin/rm x`), None when it
    is an expansion or there is none."""
    words = runs(command.words)
    if not words or words[0].value is None:
        return None
    return words[0].value.rsplit("/", 1)[-1]


def runs(words: tuple[Word, ...] | list[Word]) -> list[Word]:
    """The command and arguments that finally run, the wrappers before them taken away."""
    rest = list(words)
    for _ in range(16):  # `sudo env nice …` nests; a line of wrappers ends somewhere
        head = rest[0].value if rest else None
        wrapper = _WRAPPERS.get(head.rsplit("/", 1)[-1]) if head is not None else None
        if wrapper is None:
            break
        rest = _after_wrapper(wrapper, rest[1:])
    return rest


def _after_wrapper(wrapper: _Wrapper, words: list[Word]) -> list[Word]:
    """The words after a wrapper's options, assignments and plain arguments."""
    positional = wrapper.positional
    options = True
    index = 0
    while index < len(words):
        value = words[index].value
        if value is None:
            return words[index:]
        if options and value == "--":
            options = False
        elif options and value.startswith("-"):
            split = _split_option(wrapper, value, words, index)
            if split is not None:
                return split
            index += 1 if value not in wrapper.valued else 2
            continue
        elif not (wrapper.assignments and _ASSIGNMENT.match(value)):
            if not positional:
                return words[index:]
            positional -= 1
        index += 1
    return []


def _split_option(wrapper: _Wrapper, value: str, words: list[Word], index: int
                  ) -> list[Word] | None:
    """`env -S 'rm -rf x'`: the option's value is split into the words that run."""
    name, _, attached = value.partition("=")
    if name in wrapper.split:
        line = attached if attached else (words[index + 1].value if index + 1 < len(words)
                                          else "")
        rest = words[index + (1 if attached else 2):]
    elif any(value.startswith(short) and len(value) > 2 for short in wrapper.split
             if len(short) == 2):
        line, rest = value[2:], words[index + 1:]
    else:
        return None
    parts = [Word(part, part) for part in (line or "").split()]
    return runs(parts + rest) if parts else None


def fallback_forms(text: str) -> list[str]:
    """For a line that is not understood: the pieces between its operators, keywords and
    quotes dropped, so that deny rules still see `rm -rf x` in `for f in *; do rm -rf x; done`."""
    forms: list[str] = []
    for piece in _PIECES.split(text):
        tokens = [re.sub(r"[\\'\"]", "", token) for token in piece.split()]
        while tokens and (tokens[0] in _KEYWORDS or _ASSIGNMENT.match(tokens[0])):
            tokens.pop(0)
        words = runs([Word(token, token) for token in tokens])
        if words:
            name = str(words[0].value).rsplit("/", 1)[-1]
            forms.append(" ".join([name, *(str(word.value) for word in words[1:])]))
    return forms


def check_runs_no_hidden_code(command: SimpleCommand) -> None:
    """Refuse (`Unparsable`) a command that may run code its text does not show."""
    first = command.words[0].value if command.words else None
    if first is not None and first not in _CHECKED and "/" not in first:
        return  # the usual command: a program that is neither a wrapper nor such a builtin
    words = runs(command.words)
    if not words:
        return
    if words[0].value is None:
        raise Unparsable("the command word is an expansion: what runs is not known")
    name = words[0].value.rsplit("/", 1)[-1]
    args = words[1:]
    if name in _CODE_BUILTINS:
        raise Unparsable(f"{name} runs or defines code the line does not show")
    if name in ("test", "[") and any(word.value is None or word.value in ("-v", "-R")
                                     for word in args):
        raise Unparsable("test -v evaluates an array subscript")
    if name == "printf" and args and (args[0].value is None or args[0].value.startswith("-v")):
        raise Unparsable("printf -v assigns to a name")


def _assignment(word: Word) -> str:
    """`NAME=value` in the normal form: the value part quoted as a word would be."""
    if word.value is None:
        return word.bare
    name, _, value = word.value.partition("=")
    return f"{name}={quoted(value)}" if value else f"{name}="
