"""Slash commands: which prompts invoke one, custom command files, `$ARGUMENTS`."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness9.service.commands import Invocation, available, expand, invocation

pytestmark = pytest.mark.timeout(10)


@pytest.mark.parametrize(("prompt", "expected"), [
    ("/help", Invocation("help", "")),
    ("/review  src/a.py  b.py \n", Invocation("review", "src/a.py  b.py")),
    ("/git:commit fix the\nbug", Invocation("git:commit", "fix the\nbug")),
    ("/usr/bin/env is missing", None),  # a path, not a command
    (" /help", None),  # a leading space sends it to the model
    ("please /help", None),
    ("/", None),
    ("/-x", None),
])
def test_which_prompts_invoke_a_command(prompt: str, expected: Invocation | None) -> None:
    assert invocation(prompt) == expected


def test_custom_commands_front_matter_and_precedence(tmp_path: Path) -> None:
    root, config = tmp_path / "ws", tmp_path / "config"
    (root / ".harness9" / "commands").mkdir(parents=True)
    (config / "harness9" / "commands").mkdir(parents=True)
    (root / ".harness9" / "commands" / "fix.md").write_text(
        '---\ndescription: "Fix it"\nargument-hint: <issue>\nmodel: gpt-small\n---\n\nFix $1.\n')
    (root / ".harness9" / "commands" / "bad name.md").write_text("ignored")
    (root / ".harness9" / "commands" / "notes.txt").write_text("ignored")
    (config / "harness9" / "commands" / "fix.md").write_text("hidden by the workspace's")
    (config / "harness9" / "commands" / "daily.md").write_text("\n\nSummarize today.\nMore.")
    found = {c.name: c for c in available(str(root), {"XDG_CONFIG_HOME": str(config)})}
    assert found["fix"].description == "Fix it" and found["fix"].argument_hint == "<issue>"
    assert (found["fix"].source, found["fix"].model, found["fix"].body) == (
        "workspace", "gpt-small", "Fix $1.")
    assert found["daily"].description == "Summarize today." and found["daily"].source == "user"
    assert "bad name" not in found and "notes" not in found
    assert found["help"].source == "builtin"


def test_expand_substitutes_or_appends_the_arguments(tmp_path: Path) -> None:
    folder = tmp_path / ".harness9" / "commands"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("Look at $ARGUMENTS, first $1 then $2; $3 is empty.")
    (folder / "b.md").write_text("Explain the code.")
    found = {c.name: c for c in available(str(tmp_path), {"XDG_CONFIG_HOME": str(tmp_path)})}
    assert expand(found["a"], "x.py y.py") == "Look at x.py y.py, first x.py then y.py;  is empty."
    assert expand(found["b"], "in util.py") == "Explain the code.\n\nin util.py"
    assert expand(found["b"], "") == "Explain the code."
