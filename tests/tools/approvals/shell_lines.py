"""Hypothesis strategies for bash command lines whose commands are the markers of bash_trace.

A line is decoded from bytes Hypothesis draws (one draw per line: drawing each choice on its
own costs a hundred times more), each byte choosing among options listed simplest first, so
that shrinking the bytes towards fewer and smaller ones shrinks the line.

`lines()` builds lines from the syntax that decides what runs: separators, newlines, line
continuations, comments, every kind of quote and escape, `$(…)`, backticks, `$[…]`, `${…}`,
arithmetic, subshells, groups, `if`/`while`, here-documents (bodies that look like commands, or
substitutions), process substitution, redirections, wrappers (`env`, `command`, `nohup`…).
`soup()` glues the same characters at random, for what the structure above never writes.
"""

from __future__ import annotations

from hypothesis import strategies as st

from tests.tools.approvals.bash_trace import BIN, MARKERS

_SEPARATORS = ["; ", ";", " && ", " || ", " & ", "&", " | ", "|", " |& ", "\n", " \\\n", ";\n",
               " &&\n", "\n\n"]
_WRAPPERS = ["", "", "", "", "command ", "env ", "env -u HOME ", "env X=1 ", "env -- ",
             "nohup ", "nice -n 1 ", "exec ", "time ", "time -p ", "timeout 5 ", "X=1 ", "! ",
             "builtin ", "X='a b' ", "env -i ", "\\command ", "'env' ", "x='a[$(m4 ar)]'; ",
             "x=-v; y='a[$(m4 ar)]'; "]
_ARGS = [
    "a", "-x", "--y=z", "'a b'", '"a b"', "'a;b'", "\\;", "a\\;b", "\\ ", "\\ #", "\\#", "#c",
    "a#b", "'#'", '"#"', "\\\n", " \\\n#c", "''", '""', "$'a\\tb'", "$'\\''", "$'\\x41'",
    '"\\""', '"\\$x"', "\"a'b\"", "'$(m4 q)'", "\\$(m4 q)", "$x", "$1", "\"$x\"", "$", "a$",
    "${x}", "${x:-d}", "${x:-$(m4 t)}", "${x<<X}", "${#x}", "${x/a/b}", "$((1+2))",
    "$((1<<2))", "$((x))", "$[1+2]", "$[1<<X]", "*", "{a,b}", "{}", "~", "x=y", "{", "}", "!",
    "\\\\", "\\'", '\\"', "a\\\nb", "\r", "\v", "\f", "\u2028", "é", "$'\\u00e9'", "\\\r",
    "#", "'\n'", '"\n"', "\"a\\\nb\"", "'a\\\nb'", "$'a\\\nb'", "[", "-v", "$y", "]",
]
_REDIRECTIONS = [
    "> f1", ">f2", ">> f3", "2> f4", "2>&1", ">&2", "1>&2", ">/dev/null", "2>/dev/null",
    "&> f5", "&>> f6", "< /dev/null", ">| f7", "<> f8", ">& f9", "1>f10", "4>f11", "> ../g1",
    "> 'q r'", '> "$x"', "> $x", "<<< x", "2>&-", ">&-", "> f1\\\n2", "2\\\n> f12",
    "> /dev/stderr", ">&'f13'", "2>>f14", "> \\#f15", "> #f16", ">\\\nf17", "<&0",
]
_BODIES = ["m3 body", "$(m4 hb)", "`m4 hb2`", "${x}", "\tEOF", "EOF ", " EOF", "EOF\\",
           "EOF\r", "m3 'x'", "#x", ")", "'", '"', "$x", "\\$(m4 hb3)", "EO\\\nF"]
_DELIMITERS = ["EOF", "'EOF'", '"EOF"', "\\EOF", "E'O'F", "-EOF"]
_SPELLINGS = ["{n}", "'{n}'", '"{n}"', "\\{n}", "{a}''{b}", "{a}\\{b}", "$'{n}'",
              "$'\\x6d'{b}", BIN + "/{n}", "{a}\\\n{b}", '{a}""{b}', "$x{n}", "{n}$x"]
_COMPOUNDS = [
    "( {i} )", "({i})", "{{ {i}; }}", "{{ {i}\n}}", "if {i}; then {o}; fi",
    "if {i}\nthen {o}\nelse m2 e\nfi", "while {i}; do {o}; break; done",
    "until {i}; do {o}; break; done", "! {i}", "time {i}", "( {i} ) > f20",
    "{{ {i}; }} 2>&1 >f21", "x=-v; y='a[$(m4 ar)]'; [ $x $y ]; {i}",
    "x='a[$(m4 ar)]'; m1 $((x)); {i}", "x='a[$(m4 ar)]'; test -v \"$x\" && {i}",
]
_NESTINGS = ["$({i})", '"$({i})"', "`{c}`", "<({i})", ">({i})", "${{x:-$({i})}}"]
_SOUP = ["m1", "m2", " m3 ", " ", " ", "\t", ";", "&", "|", "(", ")", "{", "}", "'", '"', "\\",
         "$", "`", "#", "\n", "<", ">", "<<", "EOF", "[", "]", "=", "x", "\r", "!", "~", "*",
         ",", "-", "$(", "${", "$((", "))", "2", "&&", "||", "\\\n", ":", "/", "if ", "then ",
         "fi", "do ", "done", "a"]


class _Choices:
    """Choices read from bytes; once they run out every choice is the first (simplest)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def number(self, below: int) -> int:
        """A number in range(below)."""
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1] % below

    def pick(self, options: list[str]) -> str:
        return options[self.number(len(options))]


def _marker_call(choose: _Choices, depth: int) -> str:
    """One simple command: a marker, spelled one of many ways, its arguments, redirections."""
    name = choose.pick(list(MARKERS))
    spelling = choose.pick(_SPELLINGS).format(n=name, a=name[0], b=name[1:])
    parts = [choose.pick(_WRAPPERS) + spelling]
    parts += [_argument(choose, depth) for _ in range(choose.number(4))]
    parts += [choose.pick(_REDIRECTIONS) for _ in range(choose.number(3))]
    return choose.pick([" ", " ", " ", "\t", " \\\n "]).join(parts)


def _argument(choose: _Choices, depth: int) -> str:
    if depth >= 2 or choose.number(4) < 3:
        return choose.pick(_ARGS)
    template = choose.pick(_NESTINGS)
    return template.format(i=_list(choose, depth + 1), c=_marker_call(choose, depth + 1))


def _command(choose: _Choices, depth: int) -> str:
    """A simple command, or (not too deep) a compound one around lists."""
    if depth >= 2 or choose.number(4) < 3:
        return _marker_call(choose, depth)
    template = choose.pick(_COMPOUNDS)
    return template.format(i=_list(choose, depth + 1), o=_list(choose, depth + 1))


def _list(choose: _Choices, depth: int) -> str:
    """Commands joined by separators (within a substitution or a compound command)."""
    text = _command(choose, depth)
    for _ in range(choose.number(3)):
        text += choose.pick(_SEPARATORS[:10]) + _command(choose, depth)
    return text


def _heredoc_line(choose: _Choices) -> str:
    """A line with one or two here-documents, their bodies after it."""
    ends = []
    line = _marker_call(choose, 1)
    for _ in range(1 + choose.number(2)):
        delimiter = choose.pick(_DELIMITERS)
        dash = choose.number(2)
        line += f" <<{'-' if dash else ''}{delimiter}"
        word = delimiter.replace("'", "").replace('"', "").replace("\\", "")
        ends.append(("\t" if dash and choose.number(2) else "") + word)
        if choose.number(2):
            line += choose.pick(["; ", " && ", " | "]) + _marker_call(choose, 1)
    bodies = []
    for end in ends:
        bodies += [choose.pick(_BODIES) for _ in range(choose.number(4))]
        bodies.append(end)
    return line + "\n" + "\n".join(bodies)


def _line(choose: _Choices) -> str:
    text = _heredoc_line(choose) if choose.number(3) == 2 else _list(choose, 0)
    for _ in range(choose.number(3)):
        following = _heredoc_line(choose) if choose.number(3) == 2 else _list(choose, 0)
        text += choose.pick(_SEPARATORS) + following
    if choose.number(5) == 4:
        text += choose.pick([" # m2 c", "#m2", " \\", "\n", " &", ";"])
    return text


def lines() -> st.SearchStrategy[str]:
    """Whole command lines built from the syntax that decides what runs."""
    # Short byte strings make simple lines (most of them understood), long ones busy lines.
    data = st.one_of(st.binary(min_size=8, max_size=64), st.binary(min_size=64, max_size=200))
    return data.map(lambda choices: _line(_Choices(choices)))


def soup() -> st.SearchStrategy[str]:
    """Shell characters and markers glued at random."""
    return st.binary(min_size=1, max_size=24).map(
        lambda data: "".join(_SOUP[byte % len(_SOUP)] for byte in data))
