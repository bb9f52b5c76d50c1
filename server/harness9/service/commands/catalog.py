"""Slash commands: the built-in ones and the user's own, found and expanded.

A prompt that starts with `/name` (letters, digits, `-`, `_`, `:`; then a space or the end)
invokes a command. Custom commands are Markdown files in `.harness9/commands/` of the
workspace, then of the user's config folder, in the format Claude Code users already write:
optional front matter between `---` lines (`description:`, `argument-hint:`, `model:` for a
model of the provider in use that this command runs on), then the prompt,
where `$ARGUMENTS` stands for what follows the name and `$1`…`$9` for its words.

A workspace's command files are read beneath the workspace (a link leading out of it is
refused) and, like the user's own, only when they are regular files: a repository cannot make
`/proc/self/environ` or a FIFO a command.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harness9.service.markdown_files import markdown_files, split_front_matter
from harness9.service.state import config_dir
from harness9.tools.approvals.policy import MODES

COMMANDS_FOLDER = Path(".harness9") / "commands"
_INVOCATION = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_:-]*)(?:\s+(.*))?\Z", re.DOTALL)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_:-]*\Z")
_PLACEHOLDER = re.compile(r"\$ARGUMENTS|\$([1-9])")


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
    workspace = _custom(COMMANDS_FOLDER, "workspace", root)
    for command in workspace + _custom(config_dir(env) / "commands", "user"):
        found.setdefault(command.name, command)
    return sorted(found.values(), key=lambda c: c.name)


def expand(command: Command, arguments: str) -> str:
    """A custom command's prompt for these arguments. One pass over the template: text that
    came from the arguments is never substituted again (`$ARGUMENTS` holding `$1` stays so)."""
    body = command.body or ""
    words = arguments.split()

    def value(found: re.Match[str]) -> str:
        if found.group(1) is None:
            return arguments
        index = int(found.group(1))
        return words[index - 1] if index <= len(words) else ""

    text, count = _PLACEHOLDER.subn(value, body)
    if arguments and not count:
        text = f"{text.rstrip()}\n\n{arguments}"
    return text.strip()


def _custom(folder: Path, source: str, root: str | None = None) -> list[Command]:
    """The commands of one folder (`root` given: the folder is workspace-relative and read
    beneath it)."""
    return [_parsed(name[:-3], source, text) for name, text in markdown_files(folder, root)
            if _NAME.match(name[:-3])]


def _parsed(name: str, source: str, text: str) -> Command:
    """A command file: its front matter (when it has one) and its body."""
    meta, body = split_front_matter(text)
    first_line = next((line.strip() for line in body.splitlines() if line.strip()), "")
    description = meta.get("description") or first_line[:80] or f"/{name}"
    return Command(name, description, source, meta.get("argument-hint") or None, body.strip(),
                   meta.get("model") or None)
