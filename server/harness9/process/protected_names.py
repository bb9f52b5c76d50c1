"""The names of what decides what runs later, with the reason each is protected.

A model allowed to edit files could otherwise set `core.fsmonitor` in `.git/config` and have
the next allowed `git status` run it, point the VS Code extension's `harness9.serverCommand` at
a program of its own, or add a git hook. One list serves both guards: the approval step asks
about every write to these names (`harness9.tools.approvals.protected`), and the sandbox keeps
them read-only and lets no command create one (`harness9.process.protected_tree`):

- git: `.git/` (config, hooks, info) and a `.git` file (a worktree's or submodule's pointer);
- git hooks: `.husky/`, `.githooks/`, `.pre-commit-config.yaml`, `lefthook.yml`,
  `.lefthook.yml`, `lefthook-local.yml`;
- editors: `.vscode/`, `*.code-workspace`, `.idea/`, `.zed/`, `.helix/`, `.nvim.lua`,
  `.nvimrc`, `.exrc`, `.lazy.lua`, `.dir-locals.el`, `.dir-locals-2.el` (each can name a
  program the editor starts, or is code it runs);
- harness9: `.harness9/`;
- direnv: `.envrc` (run by the shell when it enters the folder).

`.editorconfig`, `.gitattributes` and `AGENTS.md` are not on the list: none of them names a
program to run (a `.gitattributes` filter runs only what `.git/config` defines).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

_GIT = "which controls what git runs"
_HOOKS = "which sets git hooks, commands git runs on commit"
_EDITOR = "which configures the editor, and can make it start programs"

# Folders whose whole content is protected (a file of that name is too).
FOLDERS: Mapping[str, str] = MappingProxyType({
    ".git": _GIT, ".husky": _HOOKS, ".githooks": _HOOKS, ".vscode": _EDITOR, ".idea": _EDITOR,
    ".zed": _EDITOR, ".helix": _EDITOR, ".harness9": "which configures harness9 itself",
})
FILES: Mapping[str, str] = MappingProxyType({
    ".git": _GIT, ".pre-commit-config.yaml": _HOOKS, "lefthook.yml": _HOOKS,
    ".lefthook.yml": _HOOKS, "lefthook-local.yml": _HOOKS, ".nvim.lua": _EDITOR,
    ".nvimrc": _EDITOR, ".exrc": _EDITOR, ".lazy.lua": _EDITOR, ".dir-locals.el": _EDITOR,
    ".dir-locals-2.el": _EDITOR, ".envrc": "which direnv runs when a shell enters its folder",
})
# Names ending so (all lower case, like every name above).
SUFFIXES: Mapping[str, str] = MappingProxyType({".code-workspace": _EDITOR})


def name_reason(name: str, fold_case: bool = False) -> str | None:
    """Why a file or folder called `name` (one path component) is protected, or None."""
    if fold_case:
        name = name.casefold()
    return FILES.get(name) or FOLDERS.get(name) or next(
        (reason for suffix, reason in SUFFIXES.items() if name.endswith(suffix)), None)
