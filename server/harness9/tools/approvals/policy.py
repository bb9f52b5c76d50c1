"""The approval policy: which tool calls run, which are denied, which the user is asked about.

`approvals = {"mode": M, "allow": [rule], "deny": [rule]}` (docs/PROTOCOL.md, "Approvals"):
a matching deny rule denies; else a matching allow rule allows; else an earlier "allow for this
session" allows; else the mode decides, by the tool's kind (`schema.ToolKind`). A rule is `tool`
or `tool(pattern)`; the pattern is a glob over an execute tool's (bash's) command, a read or edit
tool's workspace-relative path, or any other tool's name (MCP tools). A command of several
commands matches an allow rule only if every one of them matches one; a command the splitter
cannot follow is never allowed by a rule.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from harness9.schema import ToolKind
from harness9.tools.approvals.shell_split import split_commands
from harness9.workspace.paths import relative_path

MODES = ("ask", "auto-edit", "yolo", "read-only")
FILE_KINDS = frozenset({ToolKind.READ, ToolKind.EDIT})  # their calls name a file by `path`
_RULE = re.compile(r"(?P<tool>[A-Za-z0-9_.\-]+)(?:\((?P<pattern>.*)\))?", re.DOTALL)


class Action(StrEnum):
    """What happens to a call."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"


class DecidedBy(StrEnum):
    """What decided: the wire's `approval_resolved.by` (`user` is the approver's)."""

    MODE = "mode"
    RULE = "rule"
    SESSION = "session"
    USER = "user"


@dataclass(frozen=True, slots=True)
class Decision:
    """The policy's verdict on one call, and what reached it (`rule`: the rule's text)."""

    action: Action
    by: DecidedBy
    rule: str | None = None


class PolicyError(ValueError):
    """An approvals setting that cannot be used; the message names the part."""


@dataclass(frozen=True, slots=True)
class Rule:
    """`tool` or `tool(pattern)`."""

    text: str
    tool: str
    pattern: str | None

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Read a rule; a malformed one is a `PolicyError`."""
        match = _RULE.fullmatch(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise PolicyError(f"{text!r} is not a rule: write tool or tool(pattern)")
        return cls(text.strip(), match["tool"], match["pattern"])

    def matches(self, tool: str, subject: str | None, *, command: bool) -> bool:
        """Whether this rule covers a call of `tool` about `subject` (a path or a name, or
        with `command` a command, where `*` spans slashes too)."""
        if tool != self.tool:
            return False
        if self.pattern is None:
            return True
        return subject is not None and bool(_glob(self.pattern, command).fullmatch(subject))


@functools.lru_cache(maxsize=256)
def _glob(pattern: str, command: bool) -> re.Pattern[str]:
    """`*` any text (within one path segment for paths), `**` any path, the rest literal."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i) and not command:
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append(".*" if command else "[^/]*")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


@dataclass(frozen=True, slots=True)
class ApprovalPolicy:
    """A mode and its rules. `ApprovalPolicy()` is the default, `ask`."""

    mode: str = "ask"
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()

    @classmethod
    def from_setting(cls, raw: Mapping[str, Any], default_mode: str = "ask") -> ApprovalPolicy:
        """The policy of an `approvals` setting; raises `PolicyError` naming what is wrong."""
        if not isinstance(raw, Mapping):
            raise PolicyError(f"must be an object, got {type(raw).__name__}")
        mode = raw.get("mode") or default_mode
        if mode not in MODES:
            raise PolicyError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        return cls(mode, _rules(raw, "allow"), _rules(raw, "deny"))

    def decide(
        self,
        tool: str,
        kind: ToolKind,
        arguments: Mapping[str, Any],
        memory: SessionApprovals,
        root: str | None = None,
    ) -> Decision:
        """The verdict on a call of `tool` (of this kind) with these (validated) arguments;
        `root` is the workspace, against which absolute paths are made relative for the rules."""
        subjects = _subjects(tool, kind, arguments, root)
        command = subjects.command
        for rule in self.deny:
            if any(rule.matches(tool, subject, command=command) for subject in subjects.all):
                return Decision(Action.DENY, DecidedBy.RULE, rule.text)
        allowed = _allowed_by_rules(self.allow, tool, subjects)
        if allowed is not None:
            return Decision(Action.ALLOW, DecidedBy.RULE, allowed)
        if memory.allows(tool, kind, arguments):
            return Decision(Action.ALLOW, DecidedBy.SESSION)
        return Decision(self._by_mode(kind), DecidedBy.MODE)

    def _by_mode(self, kind: ToolKind) -> Action:
        """Reads run in every mode; edits run in auto-edit; the rest (commands, MCP tools)
        asks, except in yolo (everything runs) and read-only (nothing else runs)."""
        if self.mode == "yolo" or kind is ToolKind.READ:
            return Action.ALLOW
        if self.mode == "read-only":
            return Action.DENY
        if self.mode == "auto-edit" and kind is ToolKind.EDIT:
            return Action.ALLOW
        return Action.ASK


@dataclass
class SessionApprovals:
    """What the user allowed "for this session": an execute tool (bash) per command, any
    other tool on any path or arguments."""

    tools: set[str] = field(default_factory=set)
    commands: set[str] = field(default_factory=set)

    def remember(self, tool: str, kind: ToolKind, arguments: Mapping[str, Any]) -> None:
        """Record an `allow_session` answer for this call."""
        if kind is ToolKind.EXECUTE:
            self.commands.add(_command(arguments))
        else:
            self.tools.add(tool)

    def allows(self, tool: str, kind: ToolKind, arguments: Mapping[str, Any]) -> bool:
        """Whether an earlier `allow_session` covers this call."""
        if kind is ToolKind.EXECUTE:
            return _command(arguments) in self.commands
        return tool in self.tools


@dataclass(frozen=True, slots=True)
class _Subjects:
    """What rules are matched against: every simple command of a command (None when it
    cannot be split), and the whole text (which deny rules see as well); `command` says the
    subjects are commands."""

    parts: list[str] | None
    whole: str | None
    command: bool = False

    @property
    def all(self) -> list[str | None]:
        return [*(self.parts or []), self.whole]


def _subjects(
    tool: str, kind: ToolKind, arguments: Mapping[str, Any], root: str | None
) -> _Subjects:
    if kind is ToolKind.EXECUTE:
        command = _command(arguments)
        return _Subjects(split_commands(command), command, command=True)
    path = arguments.get("path")
    if kind in FILE_KINDS and isinstance(path, str):
        relative = relative_path(path, root)
        return _Subjects([relative], relative)
    return _Subjects([tool], tool)  # MCP tools: the pattern is over the tool's name


def _allowed_by_rules(rules: Iterable[Rule], tool: str, subjects: _Subjects) -> str | None:
    """The text of the allow rule(s) that cover every part, or None."""
    if subjects.parts is None or not subjects.parts:
        return None
    used: list[str] = []
    for part in subjects.parts:
        rule = next((r for r in rules if r.matches(tool, part, command=subjects.command)), None)
        if rule is None:
            return None
        if rule.text not in used:
            used.append(rule.text)
    return ", ".join(used)


def _rules(raw: Mapping[str, Any], key: str) -> tuple[Rule, ...]:
    value = raw.get(key) or []
    if not isinstance(value, list):
        raise PolicyError(f"{key} must be a list of rules, got {type(value).__name__}")
    try:
        return tuple(Rule.parse(text) for text in value)
    except PolicyError as exc:
        raise PolicyError(f"{key}: {exc}") from None


def _command(arguments: Mapping[str, Any]) -> str:
    command = arguments.get("command")
    return command.strip() if isinstance(command, str) else ""
