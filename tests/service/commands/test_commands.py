"""Slash commands: which prompts invoke one, custom command files, `$ARGUMENTS`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness9.service.commands.catalog import Invocation, available, expand, invocation

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


def test_arguments_are_inserted_in_one_pass(tmp_path: Path) -> None:
    folder = tmp_path / ".harness9" / "commands"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("Do $ARGUMENTS; then $1.")
    found = {c.name: c for c in available(str(tmp_path), {"XDG_CONFIG_HOME": str(tmp_path)})}
    # `$2` came from the arguments: it is text, not a placeholder.
    assert expand(found["a"], "$2 now") == "Do $2 now; then $2."
    assert expand(found["a"], "$ARGUMENTS") == "Do $ARGUMENTS; then $ARGUMENTS."


def test_command_files_that_lead_out_or_are_not_regular_are_left_out(tmp_path: Path) -> None:
    root, config, outside = tmp_path / "ws", tmp_path / "config", tmp_path / "outside"
    folder = root / ".harness9" / "commands"
    folder.mkdir(parents=True)
    (config / "harness9" / "commands").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text("SECRET first line\n")
    (root / "docs").mkdir()
    (root / "docs" / "review.md").write_text("Review the change.\n")
    (folder / "env.md").symlink_to("/proc/self/environ")
    (folder / "secret.md").symlink_to(outside / "secret.md")
    (folder / "review.md").symlink_to("../../docs/review.md")  # inside the workspace: kept
    os.mkfifo(folder / "pipe.md")
    os.mkfifo(config / "harness9" / "commands" / "userpipe.md")
    (config / "harness9" / "commands" / "mine.md").symlink_to(outside / "secret.md")
    found = {c.name: c for c in available(str(root), {"XDG_CONFIG_HOME": str(config)})}
    assert found["review"].body == "Review the change."
    assert not {"env", "secret", "pipe", "userpipe"} & set(found)
    assert found["mine"].source == "user"  # the user's own folder may link where it likes


def test_a_commands_folder_linked_out_of_the_workspace_is_not_read(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / ".harness9").mkdir(parents=True)
    outside.mkdir()
    (outside / "leak.md").write_text("SECRET\n")
    (root / ".harness9" / "commands").symlink_to(outside, target_is_directory=True)
    found = {c.name for c in available(str(root), {"XDG_CONFIG_HOME": str(tmp_path / "c")})}
    assert "leak" not in found
