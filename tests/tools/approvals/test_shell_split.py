"""Splitting bash commands into the simple commands an allow rule must each match."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness9.tools.approvals.shell_split import split_commands


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("ls -la", ["ls -la"]),
        ("  npm test  ", ["npm test"]),
        ("ls && rm -rf x", ["ls", "rm -rf x"]),
        ("a || b; c | d & e\nf |& g", ["a", "b", "c", "d", "e", "f", "g"]),
        ("echo 'a && b; c'", ["echo 'a && b; c'"]),
        ('echo "a | b"', ['echo "a | b"']),
        ("echo a\\;b \\&\\& c", ["echo a\\;b \\&\\& c"]),
        ('echo "$(curl x | sh)"', ["curl x", "sh", 'echo "$(curl x | sh)"']),
        ("echo `id`", ["id", "echo `id`"]),
        ('echo "`whoami`"', ["whoami", 'echo "`whoami`"']),
        ("echo $(echo $(rm -rf x))", ["rm -rf x", "echo $(rm -rf x)", "echo $(echo $(rm -rf x))"]),
        ("diff <(ls a) >(cat)", ["ls a", "cat", "diff <(ls a) >(cat)"]),
        ("echo $((1 + (2 * 3))) && ls", ["echo $((1 + (2 * 3)))", "ls"]),
        ("(cd sub && make) ; ls", ["cd sub", "make", "ls"]),
        ("{ a; b; }", ["a", "b"]),
        ("if grep -q x f; then echo y; else echo z; fi", ["grep -q x f", "echo y", "echo z"]),
        ("while true; do sleep 1; done", ["true", "sleep 1"]),
        ("! grep x f", ["grep x f"]),
        ("ls 2>&1 | tee out.txt", ["ls 2>&1", "tee out.txt"]),
        ("make &> log && make >&2", ["make &> log", "make >&2"]),
        ("ls # ; rm -rf /", ["ls"]),
        ("echo a#b; c", ["echo a#b", "c"]),
        ("cat <<EOF\nrm -rf /\nEOF\nls", ["cat <<EOF", "ls"]),
        ("cat <<-'END' > f && ls\n\t$(rm)\n\tEND\npwd", ["cat <<-'END' > f", "ls", "pwd"]),
        ("echo $'it\\'s' ; rm x", ["echo $'it\\'s'", "rm x"]),
        ("ls \\\n  -la", ["ls \\\n  -la"]),
        ("FOO=1 npm test", ["FOO=1 npm test"]),
        ("git status \\ #; touch x", ["git status \\ #", "touch x"]),
        ("git status\\\n#; touch x", ["git status\\\n#", "touch x"]),
        ("ls \\\n# a comment\npwd", ["ls", "pwd"]),
        ("echo \"$(cat <<'EOF'\nrm x\nEOF\n)\"",
         ["cat <<'EOF'", "echo \"$(cat <<'EOF'\nrm x\nEOF\n)\""]),
        ("ls\r; pwd", ["ls\r", "pwd"]),
        ("(make) > log 2>&1", ["make", "> log 2>&1"]),
        ("", []),
    ],
)
def test_commands_are_split_as_bash_runs_them(command: str, parts: list[str]) -> None:
    assert split_commands(command) == parts


@pytest.mark.parametrize(
    "command",
    [
        "echo 'unterminated",
        'echo "unterminated',
        "echo $(unterminated",
        "echo `unterminated",
        "echo trailing\\",
        "ls )",
        "for f in *; do rm $f; done",
        "case $x in a) rm -rf /;; esac",
        "f() { rm -rf x; }; f",
        "function f { rm x; }",
        "cat <<EOF\n$(rm -rf x)\nEOF",  # an unquoted delimiter: the body's substitution runs
        "cat <<EOF\nno end",
        "cat <<EOF",
        "echo $((1 + 2",
        "coproc rm x",
        "echo $[1<<X]\nrm x\nX]",  # `<<` inside $[…] or ${…} opens no here-document
        "echo ${x<<X}\nrm x\nX}",
        "echo $((x))",  # x may hold `a[$(rm x)]`, which arithmetic runs
        "((x++))",
        "eval 'rm x'",
        "command eval 'rm x'",
        "trap 'rm x' EXIT",
        ". ./script",
        "source ./script",
        "alias ls='rm -rf'",
        "a[$i]=1",
        "$EDITOR notes",
        "exec {fd}>log",
        "[ -v \"$x\" ]",
        "echo `echo \\`rm x\\``",
        "cat <<EOF\nEO\\\nF\nrm x\nEOF",  # a continued body line: bash joins it
        "echo ${!name}",
        "echo ${x:0:$(rm x)}",
    ],
)
def test_what_cannot_be_followed_is_not_split(command: str) -> None:
    assert split_commands(command) is None


# A generator with an oracle: simple commands joined by separators must come back as written.
_WORDS = st.sampled_from([
    "ls", "npm", "make", "-la", "rm", "-rf", "x.txt", "'a b'", '"c; d"', "'&&'", '"|"',
    "a\\;b", "2>&1", "> out", ">> log", "< in", "$HOME", "'$(not run)'", "src/**", "--flag=1",
])
# A command word that is an expansion ($HOME, a glob) runs what is known only then: such a
# line is not understood, so it is no command word here.
_REDIRECTIONS = {"2>&1", "> out", ">> log", "< in"}
_SIMPLE = st.lists(_WORDS, min_size=1, max_size=5).filter(
    lambda words: words[0] not in _REDIRECTIONS
    and next(word for word in words if word not in _REDIRECTIONS) not in {"$HOME", "src/**"}
).map(" ".join)
_SEPARATOR = st.sampled_from([" && ", " || ", "; ", " | ", " & ", "\n", " |& ", ";\n"])


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(_SIMPLE, min_size=1, max_size=6), st.data())
def test_generated_chains_split_back_into_their_commands(
    commands: list[str], data: st.DataObject
) -> None:
    text = commands[0]
    for command in commands[1:]:
        text += data.draw(_SEPARATOR) + command
    assert split_commands(text) == commands


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(_SIMPLE, min_size=1, max_size=4), st.sampled_from(["$(%s)", "`%s`", '"$(%s)"']))
def test_a_substitution_is_listed_on_its_own(inner: list[str], form: str) -> None:
    joined = " && ".join(inner)
    outer = "echo " + form % joined
    parts = split_commands(outer)
    if form == "`%s`" and "\\" in joined:
        # Inside backquotes a backslash is read twice: such a line is not understood.
        assert parts is None
        return
    assert parts is not None
    assert parts[-1] == outer
    assert parts[:-1] == inner
