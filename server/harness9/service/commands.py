"""Slash commands: the built-in ones and the user's own, found and expanded.

A prompt that starts with `/name` (letters, digits, `-`, `_`, `:`; then a space or the end)
invokes a command. Custom commands are Markdown files in `.harness9/commands/` of the
workspace, then of the user's config folder, in the format Claude Code users already write:
optional front matter between `---` lines (`description:`, `argument-hint:`, `model:` for a
model of the provider in use that this command runs on), then the prompt,
where `$ARGUMENTS` stands for what follows the name and `$1`…`$9` for its words.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harness9.service.state import config_dir
from harness9.tools.approvals.policy import MODES

COMMANDS_FOLDER = Path(".harness9") / "commands"
MAX_COMMAND_BYTES = 64 * 1024
_INVOCATION = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_:-]*)(?:\s+(.*))?\Z", re.DOTALL)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_:-]*\Z")
_POSITIONAL = re.compile(r"\$([1-9])")


@dataclass(frozen=True, slots=True)
class Command:
    """A command as `agent/commands` lists it; `body` is a custom command's prompt."""

    name: str
    description: str
    source: str  # builtin | workspace | user
    argument_hint: str | None = None
    body: str | None = None
    model: str | None = None  # a custom command's own model (front matter `model:`)

    def as_wire(self) -> dict[str, str]:
        """`{name, description, argumentHint?, source}`."""
        wire = {"name": self.name, "description": self.description, "source": self.source}
        if self.argument_hint:
            wire["argumentHint"] = self.argument_hint
        return wire


BUILTINS = (
    Command("help", "List the commands", "builtin"),
    Command("compact", "Summarize the conversation so far to free the context window",
            "builtin"),
    Command("clear", "Start a new, empty session", "builtin"),
    Command("resume", "List this workspace's sessions, or continue one", "builtin",
            "[session id]"),
    Command("undo", "Put the files back as they were before the agent's last changes",
            "builtin"),
    Command("model", "Show the models, or choose the session's model and reasoning effort",
            "builtin", "[provider:]model [low|medium|high]"),
    Command("approvals", "Show or set the session's approval mode", "builtin",
            f"[{'|'.join(MODES)}]"),
    Command("plan", "Plan first: investigate and write a plan without changing anything",
            "builtin", "<what to plan>"),
    Command("init", "Have the agent write an AGENTS.md describing this project", "builtin"),
)
BUILTIN_NAMES = frozenset(c.name for c in BUILTINS)


@dataclass(frozen=True, slots=True)
class Invocation:
    """A prompt that invokes a command: its name and the text after it."""

    name: str
    arguments: str


def invocation(prompt: str) -> Invocation | None:
    """The command a prompt invokes, or None (a prompt starting with a space never does)."""
    found = _INVOCATION.match(prompt.rstrip())
    if found is None:
        return None
    return Invocation(found.group(1), (found.group(2) or "").strip())


def available(root: str, env: Mapping[str, str] | None = None) -> list[Command]:
    """The built-in commands, then the workspace's and the user's own, sorted by name. A
    workspace command hides a user command of the same name; neither replaces a built-in."""
    found = {c.name: c for c in BUILTINS}
    for folder, source in ((Path(root) / COMMANDS_FOLDER, "workspace"),
                           (config_dir(env) / "commands", "user")):
        for command in _custom(folder, source):
            found.setdefault(command.name, command)
    return sorted(found.values(), key=lambda c: c.name)


def expand(command: Command, arguments: str) -> str:
    """A custom command's prompt for these arguments."""
    body = command.body or ""
    words = arguments.split()
    has_placeholder = "$ARGUMENTS" in body or _POSITIONAL.search(body) is not None
    text = body.replace("$ARGUMENTS", arguments)
    text = _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words)
                           else "", text)
    if arguments and not has_placeholder:
        text = f"{text.rstrip()}\n\n{arguments}"
    return text.strip()


def _custom(folder: Path, source: str) -> list[Command]:
    """The commands of one folder; unreadable files and unusable names are left out."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    commands = []
    for entry in entries:
        name = entry.name[:-3] if entry.name.endswith(".md") else ""
        if not _NAME.match(name) or not entry.is_file():
            continue
        try:
            with open(entry.path, "rb") as handle:
                text = handle.read(MAX_COMMAND_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        commands.append(_parsed(name, source, text))
    return commands


def _parsed(name: str, source: str, text: str) -> Command:
    """A command file: its front matter (when it has one) and its body."""
    meta: dict[str, str] = {}
    body = text
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        if end is not None:
            meta = _front_matter(lines[1:end])
            body = "\n".join(lines[end + 1:])
    first_line = next((line.strip() for line in body.splitlines() if line.strip()), "")
    description = meta.get("description") or first_line[:80] or f"/{name}"
    return Command(name, description, source, meta.get("argument-hint") or None, body.strip(),
                   meta.get("model") or None)


def _front_matter(lines: list[str]) -> dict[str, str]:
    """`key: value` lines (values unquoted); anything else is ignored."""
    meta = {}
    for line in lines:
        key, colon, value = line.partition(":")
        if colon and key.strip():
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            meta[key.strip().lower()] = value
    return meta
