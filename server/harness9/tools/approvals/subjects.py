"""What the approval rules of one call are matched against, and which files it writes.

- A file tool's path has two spellings: as the call gives it and resolved (links followed,
  beneath the workspace, with `safe_path`). A deny rule matches if either does; an allow rule
  only if the resolved one does. On a file system that ignores letter case (found per
  workspace) paths match whatever their case.
- A command (bash) is split into simple commands (`shell_split`): deny rules see every
  spelling of each (`command_forms`) and the whole text, allow rules each command's normal form.
  A redirection to a file is a write to that file, which `write_file(…)` rules decide.
- Any other tool (MCP) is matched by its name.

Each part is worked out only when the policy asks for it: a read that no rule is about never
resolves its path.
"""

from __future__ import annotations

import functools
import os
import stat
import sys
from dataclasses import dataclass

from harness9.schema import ToolError
from harness9.tools.approvals.command_forms import allow_form, deny_forms, fallback_forms, program
from harness9.tools.approvals.protected import protection
from harness9.tools.approvals.shell_split import split_command
from harness9.workspace.decided import Decided
from harness9.workspace.paths import relative_path
from harness9.workspace.safe_path import safe_path

# A redirection writes a file: the rules of this tool decide it.
WRITE_TOOL = "write_file"
_CHANGES_FOLDER = frozenset({"cd", "pushd", "popd"})


@dataclass(frozen=True, slots=True)
class PathSpellings:
    """A workspace path as the call gives it and as it resolves (None: outside the workspace,
    or it cannot be resolved); `fold_case` when its file system ignores letter case."""

    given: str
    resolved: str | None
    fold_case: bool = False

    @property
    def all(self) -> tuple[str, ...]:
        """Every spelling, the given one first."""
        if self.resolved is None or self.resolved == self.given:
            return (self.given,)
        return (self.given, self.resolved)

    def protection(self) -> str | None:
        """Why writing it must be asked about (`protected.protection`), by either spelling."""
        for spelling in reversed(self.all):  # the resolved one says what is really written
            why = protection(spelling, self.fold_case)
            if why is not None:
                return why if spelling == self.given else f"{why} (through {self.given})"
        return None


def spell_path(path: str, root: str | None) -> PathSpellings:
    """The spellings of `path` in the workspace `root` (None: no workspace, no links to follow)."""
    given = relative_path(path, root)
    if root is None:
        return PathSpellings(given, given)  # nothing on disk to follow
    if _no_link_on_the_way(root, given):
        # The usual case, at a fraction of the cost: it resolves to itself.
        return PathSpellings(given, given, folds_case(root))
    if not os.path.isdir(root):
        return PathSpellings(given, given)
    real_root = os.path.realpath(root)
    try:
        real = safe_path(root, path)
    except (ToolError, OSError):
        return PathSpellings(given, None, folds_case(root))
    resolved = os.path.relpath(real, real_root).replace(os.sep, "/")
    return PathSpellings(given, "" if resolved == "." else resolved, folds_case(root))


def _no_link_on_the_way(root: str, given: str) -> bool:
    """Whether no component of the workspace path `given` is a link (or stands in the way):
    then it resolves to itself, and `safe_path` need not walk it. (Links on the way to the
    root itself do not matter: a path is resolved beneath the root.)"""
    if not given or given == ".." or given.startswith("../") or "\0" in given:
        return False
    path = root
    for part in given.split("/"):
        path = os.path.join(path, part)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return True  # nothing exists from here on: no link can lead elsewhere
        except OSError:
            return False
        if stat.S_ISLNK(mode):
            return False
    return True


@functools.lru_cache(maxsize=64)
def folds_case(root: str) -> bool:
    """Whether the file system of the workspace `root` ignores letter case: the last name on
    the root's path that has letters, with their case swapped, names the same folder."""
    path = os.path.realpath(root)
    while True:
        parent, name = os.path.split(path)
        if not name:
            return sys.platform in ("darwin", "win32")  # no letters to try: the usual there
        swapped = name.swapcase()
        if swapped != name:
            try:
                return os.path.samestat(os.stat(path), os.stat(os.path.join(parent, swapped)))
            except OSError:
                return False
        path = parent


def spelled_as_decided(decided: Decided, root: str) -> PathSpellings:
    """The spellings of a path resolved once when its call was decided (`decide_path`)."""
    return PathSpellings(relative_path(decided.given, root), decided.relative, folds_case(root))


class PathCall:
    """A read or edit tool's call about `path`, or (`spelled`, settled by the approval step)
    about the files it writes: a deny rule matches if it matches any of them, an allow rule
    only if it matches every one, and a write to any protected one is asked about."""

    command = False

    def __init__(self, path: str | None, root: str | None, edit: bool,
                 spelled: tuple[PathSpellings, ...] | None = None) -> None:
        self._path = path
        self._root = root
        self._edit = edit
        self._spelled = spelled

    @functools.cached_property
    def files(self) -> tuple[PathSpellings, ...]:
        if self._spelled is not None:
            return self._spelled
        return () if self._path is None else (spell_path(self._path, self._root),)

    @property
    def fold_case(self) -> bool:
        return any(spelled.fold_case for spelled in self.files)

    @property
    def deny(self) -> tuple[str, ...]:
        return tuple(spelling for spelled in self.files for spelling in spelled.all)

    @property
    def allow(self) -> tuple[str, ...] | None:
        resolved = tuple(spelled.resolved for spelled in self.files)
        return None if None in resolved else tuple(r for r in resolved if r is not None)

    writes: tuple[PathSpellings | None, ...] = ()

    def protection(self) -> str | None:
        if not self._edit:
            return None
        return next((why for spelled in self.files for why in [spelled.protection()]
                     if why is not None), None)


@functools.lru_cache(maxsize=512)
def _deny_spellings(text: str) -> tuple[str, ...]:
    """Every spelling of a command text deny rules see (the same text often runs again)."""
    line = split_command(text)
    forms = [text]
    for simple in line.commands:
        forms += deny_forms(simple)
    if not line.understood:
        forms += fallback_forms(text)
    return tuple(dict.fromkeys(form for form in forms if form))


@functools.lru_cache(maxsize=512)
def _allow_parts(text: str) -> tuple[str, ...] | None:
    """The normal form of each simple command of a text, or None when no rule may allow it."""
    line = split_command(text)
    if not line.understood:
        return None
    parts = []
    for simple in line.commands:
        form = allow_form(simple)
        if form is None:
            return None
        if form:
            parts.append(form)
    return tuple(parts)


@functools.lru_cache(maxsize=512)
def _write_targets(text: str) -> tuple[str | None, ...]:
    """The files the redirections of a text write (None: not known until it runs)."""
    if ">" not in text:
        return ()  # every redirection that writes has one
    commands = split_command(text).commands
    # After `cd`, a relative target is relative to a folder the text does not say.
    moves = any(program(simple) in _CHANGES_FOLDER for simple in commands)
    return tuple(
        None if value is None or (moves and not value.startswith("/")) else value
        for simple in commands for redirect in simple.redirects if redirect.writes
        for value in [redirect.target.value]
    )


class CommandCall:
    """An execute tool's (bash's) call of `command`, run in the workspace `root`."""

    command = True
    fold_case = False

    def __init__(self, command: str, root: str | None) -> None:
        self._text = command
        self._root = root

    @property
    def deny(self) -> tuple[str, ...]:
        return _deny_spellings(self._text)

    @property
    def allow(self) -> tuple[str, ...] | None:
        return _allow_parts(self._text)

    @functools.cached_property
    def writes(self) -> tuple[PathSpellings | None, ...]:
        """The files its redirections write, as they resolve now; None for one that cannot
        be known (an expanded target, or a relative one after the line changes folder)."""
        return tuple(None if target is None else spell_path(target, self._root)
                     for target in _write_targets(self._text))

    def protection(self) -> str | None:
        return next((why for spelled in self.writes if spelled is not None
                     for why in [spelled.protection()] if why is not None), None)


class NamedCall:
    """Any other tool's call: rules match its name."""

    command = False
    fold_case = False
    writes: tuple[PathSpellings | None, ...] = ()

    def __init__(self, tool: str) -> None:
        self.deny = (tool,)
        self.allow: tuple[str, ...] | None = (tool,)

    def protection(self) -> str | None:
        return None
