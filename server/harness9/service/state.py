"""Where the daemon keeps what outlives a run: sessions and checkpoints, never in the workspace.

What is kept there holds the user's conversations and copies of their files (secrets
included), so it is the user's alone: every folder from the state directory down to a file is
0700 (made so, or tightened when it was made by an older version), files are 0600 (git's
objects 0400), and a folder that belongs to another user is refused, never used.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path

PRIVATE = 0o077  # the permission bits of the group and others: none of them, ever


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """`HARNESS9_STATE_DIR`, else `$XDG_STATE_HOME/harness9`, else `~/.local/state/harness9`."""
    env = os.environ if env is None else env
    if env.get("HARNESS9_STATE_DIR"):
        return Path(env["HARNESS9_STATE_DIR"])
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "harness9"
    return Path.home() / ".local" / "state" / "harness9"


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's harness9 configuration: `$XDG_CONFIG_HOME/harness9`, else
    `~/.config/harness9`."""
    env = os.environ if env is None else env
    config = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "harness9"


def workspace_key(root: str) -> str:
    """A stable folder name for a workspace: its base name and a hash of its real path."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(real))
    return f"{name[:40] or 'root'}-{digest}"


def private_folder(path: Path, top: Path) -> Path:
    """`path`, at or below `top` (the state directory), as a folder only the user can use.

    From `top` down to `path`, each folder is checked to be the user's, or made (0700, with any
    missing parent) when it is missing; one open to others (as an older version made it) is
    tightened to 0700 with everything in it, once. A `PermissionError` when one belongs to
    another user (another user's state is never used, nothing is made in it),
    `NotADirectoryError` when one is not a folder.
    """
    for folder in _down_from(top, path):
        if not os.path.lexists(folder):
            _make(folder)
        _tighten(folder)
    return path


def _make(folder: Path) -> None:
    """Make `folder` and its missing parents, each 0700."""
    missing = []
    probe = folder
    while not os.path.lexists(probe):
        missing.append(probe)
        probe = probe.parent
    for made in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile: checked after
            made.mkdir(mode=0o700)


def private_tree(path: Path) -> None:
    """Take the group's and others' bits off everything under the folder `path` (what an
    older version made there); links are neither followed nor changed."""
    for folder, names, files in os.walk(path):
        for name in names + files:
            entry = os.path.join(folder, name)
            info = os.lstat(entry)
            if not stat.S_ISLNK(info.st_mode) and info.st_mode & PRIVATE:
                os.chmod(entry, stat.S_IMODE(info.st_mode) & ~PRIVATE)


def _down_from(top: Path, path: Path) -> list[Path]:
    """`top` and each folder from it down to `path` (only `path` when it is not below `top`)."""
    try:
        parts = path.relative_to(top).parts
    except ValueError:
        return [path]
    return [top.joinpath(*parts[:depth]) for depth in range(len(parts) + 1)]


def _tighten(folder: Path) -> None:
    """Check that `folder` is the user's folder and make it 0700. A link to a folder is
    followed: the user may keep the state on another disk."""
    info = folder.stat()
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(f"{folder} is not a folder")
    if info.st_uid != os.geteuid():
        raise PermissionError(f"{folder} belongs to another user (uid {info.st_uid}); it is not "
                              "used to keep sessions and checkpoints")
    if info.st_mode & PRIVATE:
        private_tree(folder)  # what an older version made there, once
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(folder, 0o700)
