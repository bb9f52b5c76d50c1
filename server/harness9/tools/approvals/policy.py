"""The approval policy: which tool calls run, which are denied, which the user is asked about.

`approvals = {"mode": M, "allow": [rule], "deny": [rule]}` (docs/PROTOCOL.md, "Approvals"):
a matching deny rule denies; else a write to a file that decides what runs later (`protected`)
is asked about (in every mode but yolo; read-only denies it); else a matching allow rule
allows; else an earlier "allow for this session" allows; else the mode decides, by the tool's
kind (`schema.ToolKind`). A rule is `tool` or `tool(pattern)`; the pattern is a glob over an
execute tool's (bash's) command, a read or edit tool's workspace-relative path, or any other
tool's name (MCP tools); `subjects` says which spellings of them each kind of rule sees. A
command of several commands matches an allow rule only if every one of them matches one, and
each file its redirections write matches a `write_file` allow rule; a command the splitter
does not understand is never allowed by a rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from harness9.schema import ToolKind
from harness9.tools.approvals.rules import PolicyError, Rule, first_match
from harness9.tools.approvals.subjects import (
    WRITE_TOOL,
    CommandCall,
    NamedCall,
    PathCall,
    PathSpellings,
)

__all__ = ["ESCALATION", "FILE_KINDS", "MODES", "SANDBOX_STOPPED", "SILENT_MODES", "Action",
           "ApprovalPolicy", "DecidedBy", "Decision", "PolicyError", "Rule", "SessionApprovals"]

MODES = ("ask", "auto", "auto-edit", "yolo", "read-only", "plan")
# Modes that never ask: what they do not allow is denied.
SILENT_MODES = frozenset({"read-only", "plan"})
# Why a call that asks to leave the OS sandbox is asked about (the model's reason follows).
ESCALATION = "asks to run outside the OS sandbox"
SANDBOX_STOPPED = "was stopped by the OS sandbox"

FILE_KINDS = frozenset({ToolKind.READ, ToolKind.EDIT})  # their calls name a file by `path`


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
    """The policy's verdict on one call, and what reached it (`rule`: the rule's text;
    `reason`: why a question must be asked, or a protected write was denied)."""

    action: Action
    by: DecidedBy
    rule: str | None = None
    reason: str | None = None


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
        sandboxed: bool = False,
        files: tuple[PathSpellings, ...] | None = None,
    ) -> Decision:
        """The verdict on a call of `tool` (of this kind) with these (validated) arguments;
        `root` is the workspace, against which paths are resolved for the rules; `sandboxed`:
        the call's command would run in the OS sandbox (its `escalate` argument asks to leave
        it, which only the user, an earlier allow-for-the-session of it, or yolo allows);
        `files`: the files a file call writes, as the approval step resolved them (its path,
        or each file of a change of several), in place of its `path` resolved here."""
        call = self._call(tool, kind, arguments, root, files)
        denied = self._denied(tool, call)
        if denied is not None:
            return Decision(Action.DENY, DecidedBy.RULE, denied.text)
        if self.mode != "yolo":
            reason = call.protection()
            if reason is not None:
                action = Action.DENY if self.mode in SILENT_MODES else Action.ASK
                return Decision(action, DecidedBy.MODE, reason=reason)
        if sandboxed and arguments.get("escalate") is True:
            return self._escalation(tool, kind, arguments, memory)
        allowed = self._allowed(tool, call)
        if allowed is not None:
            return Decision(Action.ALLOW, DecidedBy.RULE, allowed)
        if memory.allows(tool, kind, arguments):
            return Decision(Action.ALLOW, DecidedBy.SESSION)
        return Decision(self._by_mode(kind, sandboxed), DecidedBy.MODE)

    def _escalation(self, tool: str, kind: ToolKind, arguments: Mapping[str, Any],
                    memory: SessionApprovals) -> Decision:
        """A sandboxed command that asks to run outside: allowed by yolo or an earlier
        allow-for-the-session of it outside, denied in read-only and plan, else asked with the
        model's reason."""
        if self.mode == "yolo":
            return Decision(Action.ALLOW, DecidedBy.MODE)
        if self.mode in SILENT_MODES:
            return Decision(Action.DENY, DecidedBy.MODE)
        if memory.allows(tool, kind, arguments, outside=True):
            return Decision(Action.ALLOW, DecidedBy.SESSION)
        why = arguments.get("reason")
        reason = f"{ESCALATION}: {why}" if isinstance(why, str) and why.strip() else ESCALATION
        return Decision(Action.ASK, DecidedBy.MODE, reason=reason)

    def _call(self, tool: str, kind: ToolKind, arguments: Mapping[str, Any],
              root: str | None, files: tuple[PathSpellings, ...] | None) -> _Call:
        if kind is ToolKind.EXECUTE:
            return CommandCall(_command(arguments), root)
        path = arguments.get("path")
        if kind in FILE_KINDS and (isinstance(path, str) or files is not None):
            given = path if isinstance(path, str) else None
            return PathCall(given, root, edit=kind is ToolKind.EDIT, spelled=files)
        return NamedCall(tool)

    def _denied(self, tool: str, call: _Call) -> Rule | None:
        """The deny rule that matches a spelling of the call, or of a file it writes."""
        rules = [rule for rule in self.deny if rule.tool == tool]
        if rules:
            rule = first_match(rules, tool, call.deny, command=call.command,
                               fold_case=call.fold_case)
            if rule is not None:
                return rule
        writes = [rule for rule in self.deny if rule.tool == WRITE_TOOL]
        for spelled in call.writes if writes else ():
            if spelled is not None:
                rule = first_match(writes, WRITE_TOOL, spelled.all, command=False,
                                   fold_case=spelled.fold_case)
                if rule is not None:
                    return rule
        return None

    def _allowed(self, tool: str, call: _Call) -> str | None:
        """The text of the allow rule(s) that cover every part of the call and every file it
        writes, or None."""
        rules = [rule for rule in self.allow if rule.tool == tool]
        if not rules:
            return None
        parts, writes = call.allow, call.writes
        if parts is None or (not parts and not writes):
            return None
        used: list[str] = []
        command, fold_case = call.command, call.fold_case
        for part in parts:
            rule = next((rule for rule in rules
                         if rule.matches(tool, part, command=command, fold_case=fold_case)), None)
            if rule is None:
                return None
            used.append(rule.text)
        for spelled in writes:
            rule = _write_rule(self.allow, spelled)
            if rule is None:
                return None
            used.append(rule.text)
        return ", ".join(dict.fromkeys(used))

    def _by_mode(self, kind: ToolKind, sandboxed: bool) -> Action:
        """Reads and the model's notes run in every mode; edits run in auto-edit and auto;
        commands run in auto and plan when sandboxed; the rest (commands, MCP tools) asks,
        except in yolo (everything runs), read-only and plan (nothing else runs)."""
        if self.mode == "yolo" or kind in (ToolKind.READ, ToolKind.THINK):
            return Action.ALLOW
        if self.mode == "plan" and kind is ToolKind.EXECUTE and sandboxed:
            return Action.ALLOW
        if self.mode in SILENT_MODES:
            return Action.DENY
        if self.mode in ("auto-edit", "auto") and kind is ToolKind.EDIT:
            return Action.ALLOW
        if self.mode == "auto" and kind is ToolKind.EXECUTE and sandboxed:
            return Action.ALLOW
        return Action.ASK


@dataclass
class SessionApprovals:
    """What the user allowed "for this session": an execute tool (bash) per command, any
    other tool on any path or arguments."""

    tools: set[str] = field(default_factory=set)
    commands: set[str] = field(default_factory=set)
    outside: set[str] = field(default_factory=set)  # commands allowed outside the sandbox

    def remember(self, tool: str, kind: ToolKind, arguments: Mapping[str, Any],
                 *, outside: bool = False) -> None:
        """Record an `allow_session` answer for this call (`outside`: to run it outside the
        OS sandbox)."""
        if outside:
            self.outside.add(_command(arguments))
        elif kind is ToolKind.EXECUTE:
            self.commands.add(_command(arguments))
        else:
            self.tools.add(tool)

    def allows(self, tool: str, kind: ToolKind, arguments: Mapping[str, Any],
               *, outside: bool = False) -> bool:
        """Whether an earlier `allow_session` covers this call (`outside`: outside the
        sandbox)."""
        if outside:
            return _command(arguments) in self.outside
        if kind is ToolKind.EXECUTE:
            return _command(arguments) in self.commands
        return tool in self.tools


class _Call(Protocol):
    """What `subjects` offers the policy about one call."""

    @property
    def command(self) -> bool: ...

    @property
    def fold_case(self) -> bool: ...

    @property
    def deny(self) -> tuple[str, ...]: ...

    @property
    def allow(self) -> tuple[str, ...] | None: ...

    @property
    def writes(self) -> tuple[PathSpellings | None, ...]: ...

    def protection(self) -> str | None: ...


def _write_rule(rules: tuple[Rule, ...], spelled: PathSpellings | None) -> Rule | None:
    """The `write_file` allow rule that covers a file a command writes: by its resolved path,
    inside the workspace."""
    if spelled is None or spelled.resolved is None:
        return None
    return first_match((rule for rule in rules if rule.tool == WRITE_TOOL), WRITE_TOOL,
                       (spelled.resolved,), command=False, fold_case=spelled.fold_case)


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
