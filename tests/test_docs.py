"""What the READMEs and docs say about approval modes and installing matches the code.

- A list of approval modes (`ask | auto | …`, or `` `ask`, `auto`, … `` with three or more
  modes) names every mode the code has (`MODES`), and `--approvals`' list the choices
  `harness9 run` takes.
- The default mode is `auto` where the OS sandbox works: a sentence that says what happens by
  default and that it asks (or that the default is `ask`) says where (the sandbox, elsewhere)
  or names `auto` too. The texts the terminal client prints are held to the same rule.
- Every install line installs from a clone or a built wheel: harness9 is not on PyPI, so
  `pip install harness9` (or pipx's, uv's) fails.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from harness9.cli import build_parser
from harness9.client.runner import DEMO_APPROVALS
from harness9.tools.approvals.policy import MODES

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted(
    path for pattern in ("README.md", "docs/*.md", "editors/*/README.md", "benchmarks/*.md")
    for path in ROOT.glob(pattern)
)
_WORD = r"(?:`[a-z][a-z-]*`|\"[a-z][a-z-]*\"|'[a-z][a-z-]*'|[a-z][a-z-]*)"
_NOTE = r"(?: \([a-z ]+\))?"  # `ask` (default)
# Three or more words joined by `|` (in a table cell `\|`), or backticked ones by commas.
PIPE_LIST = re.compile(rf"(?:--approvals\s+)?{_WORD}(?:\s*\\?\|\s*{_WORD}){{2,}}")
COMMA_LIST = re.compile(rf"`[a-z-]+`{_NOTE}(?:,? (?:or |and )?`[a-z-]+`{_NOTE}){{2,}}")
# Where a sentence (or a table cell) ends: not at the dot of `1.2` or `a.py`.
SENTENCE_END = re.compile(r"[.;](?=\s)|(?<!\\)\||\n\s*\n")
# What says what happens by default (not `default-directory`, not "the daemon's default").
DEFAULT = re.compile(r"by default|\(default\)|default (?:approval )?mode|default is|default:",
                     re.I)
ASKS = re.compile(r"\bask(s|ed)?\b|waits? for (you|the user)|`ask`|\"ask\"", re.I)
SAYS_WHERE = re.compile(r"\bauto\b|sandbox|elsewhere|where none", re.I)
INSTALL = re.compile(r"\b(?:pip3?|pipx|uv tool|uv pip)\s+install\s+((?:-\S+\s+)*)(\S+)")


def _documents() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in DOCUMENTS}


def _approvals_option() -> argparse.Action:
    """`harness9 run --approvals` as the command line parses it."""
    run = next(action for action in build_parser()._actions
               if isinstance(action, argparse._SubParsersAction)).choices["run"]
    return next(a for a in run._actions if "--approvals" in a.option_strings)


def _cli_modes() -> set[str]:
    """The choices of `harness9 run --approvals`."""
    return set(_approvals_option().choices or ())


def mode_lists(text: str) -> list[tuple[str, set[str], bool]]:
    """Each list of approval modes in `text`: its text, its modes, and whether it is the
    `--approvals` option's."""
    found = []
    for match in [*PIPE_LIST.finditer(text), *COMMA_LIST.finditer(text)]:
        listed = re.sub(r"\([a-z ]+\)|--approvals", "", match[0])
        words = set(re.findall(r"[a-z][a-z-]*", listed)) - {"or", "and"}
        if len(words & set(MODES)) >= 3:
            found.append((match[0], words, match[0].startswith("--approvals")))
    return found


def wrong_defaults(text: str) -> list[str]:
    """The sentences that say the default asks without saying where (or naming `auto`)."""
    return [" ".join(s.split()) for s in SENTENCE_END.split(text)
            if DEFAULT.search(s) and ASKS.search(s) and not SAYS_WHERE.search(s)]


def test_the_documents_are_found() -> None:
    assert {"README.md", "docs/cli.md", "editors/emacs/README.md",
            "editors/nvim/README.md"} <= set(_documents())


@pytest.mark.parametrize("where", sorted(_documents()))
def test_every_list_of_approval_modes_names_the_codes(where: str) -> None:
    cli = _cli_modes()
    for listed, words, option in mode_lists(_documents()[where]):
        expected = cli if option else set(MODES)
        assert words == expected, f"{where}: {listed!r} should list {sorted(expected)}"


@pytest.mark.parametrize("where", sorted(_documents()))
def test_no_document_says_the_default_asks(where: str) -> None:
    assert wrong_defaults(_documents()[where]) == [], where


def test_the_clients_texts_say_the_default_mode() -> None:
    texts = [DEMO_APPROVALS, _approvals_option().help or ""]
    assert [wrong_defaults(text) for text in texts] == [[], []]


@pytest.mark.parametrize("where", sorted(_documents()))
def test_every_install_line_installs_from_a_clone_or_a_wheel(where: str) -> None:
    for found in INSTALL.finditer(_documents()[where]):
        target = found[2].strip("`'\",;)")
        if target.lower().startswith("harness9"):
            assert target.endswith(".whl"), (
                f"{where}: {found[0]!r} installs harness9 from PyPI, where it is not published")


def test_the_checks_catch_what_they_are_for() -> None:
    assert wrong_defaults("By default the daemon asks before every `bash` call.")
    assert wrong_defaults("| `HARNESS9_APPROVALS` | the mode: `ask` (default), `yolo` |")
    assert not wrong_defaults("The default is `auto` where the sandbox works, `ask` elsewhere.")
    [(_, words, option)] = mode_lists('mode = "ask" | "auto-edit" | "yolo" | "read-only"')
    assert words == {"ask", "auto-edit", "yolo", "read-only"} and not option
    [(_, _, option)] = mode_lists("`--approvals ask\\|auto\\|yolo`")
    assert option
