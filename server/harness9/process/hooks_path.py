"""The folder git takes hooks from for work in a folder: what `core.hooksPath` names.

Git answers, so every level counts (the repository's config with its includes, a worktree's,
the global and the system one): `git rev-parse --git-path hooks` reads the configuration and
runs nothing (no hook, no fsmonitor: it does not touch the index). Outside a repository the
global and system `core.hooksPath` still count (a repository made there later would use them).
"""

from __future__ import annotations

import os
import shutil
import subprocess

from harness9.redaction import looks_secret

_TIMEOUT = 5.0  # seconds: git reads a few small files
# Variables that would point git at another repository than the folder's own.
_REDIRECTS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE")


def hooks_path(folder: str) -> str | None:
    """The absolute, normalized hooks folder git uses for work in `folder` (a relative
    `core.hooksPath` is relative to it): the repository's own hooks folder when the setting is
    unset, None outside a repository without a global or system setting, or without git."""
    git = shutil.which("git")
    if git is None or not os.path.isdir(folder):
        return None
    named = _git(git, folder, "rev-parse", "--git-path", "hooks")
    if named is None:
        named = _git(git, folder, "config", "--type=path", "--get", "core.hooksPath")
    if not named:
        return None
    return os.path.normpath(os.path.join(folder, named))


def _git(git: str, folder: str, *arguments: str) -> str | None:
    """The first line `git arguments…` prints when run in `folder`, or None if it fails."""
    env = {name: value for name, value in os.environ.items()
           if name not in _REDIRECTS and not looks_secret(name)}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    try:
        done = subprocess.run(
            [git, "-c", "core.fsmonitor=false", *arguments], cwd=folder, env=env,
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=_TIMEOUT,
            check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.splitlines()
    return lines[0] if done.returncode == 0 and lines else None
