"""Files that decide what runs later: a write to them is always asked about.

A model allowed to edit files could otherwise set `core.fsmonitor` in `.git/config` and have
the next allowed `git status` run it, point the VS Code extension's `harness9.serverCommand` at
a program of its own, or add a git hook. So writes to these paths (at any depth of the
workspace, matched on the resolved path too) are asked about in every mode but yolo:

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

_GIT = "which controls what git runs"
_HOOKS = "which sets git hooks, commands git runs on commit"
_EDITOR = "which configures the editor, and can make it start programs"
_FOLDERS = {
    ".git": _GIT, ".husky": _HOOKS, ".githooks": _HOOKS, ".vscode": _EDITOR, ".idea": _EDITOR,
    ".zed": _EDITOR, ".helix": _EDITOR, ".harness9": "which configures harness9 itself",
}
_FILES = {
    ".git": _GIT, ".pre-commit-config.yaml": _HOOKS, "lefthook.yml": _HOOKS,
    ".lefthook.yml": _HOOKS, "lefthook-local.yml": _HOOKS, ".nvim.lua": _EDITOR,
    ".nvimrc": _EDITOR, ".exrc": _EDITOR, ".lazy.lua": _EDITOR, ".dir-locals.el": _EDITOR,
    ".dir-locals-2.el": _EDITOR, ".envrc": "which direnv runs when a shell enters its folder",
}
_SUFFIXES = {".code-workspace": _EDITOR}


def protection(path: str, fold_case: bool = False) -> str | None:
    """Why a write to the workspace-relative, `/`-separated `path` must be asked about
    ("writes .git/config, which controls what git runs"), or None."""
    parts = [part.casefold() if fold_case else part for part in path.split("/") if part]
    if not parts:
        return None
    why = next((_FOLDERS[part] for part in parts[:-1] if part in _FOLDERS), None)
    if why is None:
        name = parts[-1]
        why = _FILES.get(name) or _FOLDERS.get(name) or next(
            (reason for suffix, reason in _SUFFIXES.items() if name.endswith(suffix)), None)
    return None if why is None else f"writes {path}, {why}"
