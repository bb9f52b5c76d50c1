"""Git as the worktree tasks call it: one command, its output, and a clear error."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence

# Commits of ours never sign, never run hooks, and need no identity of the user's; checkouts
# write their files with a worker a core (creating thousands of files is the kernel's work).
_QUIET = ("-c", "user.name=harness9", "-c", "user.email=harness9@localhost",
          "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null",
          "-c", "checkout.workers=0")
# Without git-lfs, a repository configured for it (`filter.lfs.required`) fails every checkout
# and `add`: its pointer files are then carried as they are, as plain files.
_NO_LFS = ("-c", "filter.lfs.required=false", "-c", "filter.lfs.process=",
           "-c", "filter.lfs.smudge=", "-c", "filter.lfs.clean=")


class GitFailed(Exception):
    """A git command failed; the message carries its error output."""


def git(
    cwd: str, *args: str, check: bool = True, stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """The standard output of `git args` run in `cwd` (`env`: added to the daemon's
    environment); `GitFailed` when it fails (`check`)."""
    environment = {**os.environ, **env} if env else None
    done = subprocess.run(("git", *_QUIET, *_lfs_flags(), *args), cwd=cwd, input=stdin,
                          capture_output=True, timeout=120, check=False, env=environment)
    if check and done.returncode != 0:
        error = done.stderr.decode(errors="replace").strip()
        raise GitFailed(f"git {args[0]}: {error or f'exit {done.returncode}'}")
    return done.stdout


@functools.cache
def _lfs_flags() -> tuple[str, ...]:
    """What turns git-lfs's filter off when it is not installed (looked up once)."""
    return () if shutil.which("git-lfs") else _NO_LFS


def git_text(cwd: str, *args: str, env: Mapping[str, str] | None = None) -> str:
    """`git`'s output as text, without its final newline."""
    return git(cwd, *args, env=env).decode(errors="surrogateescape").rstrip("\n")


def null_split(output: bytes) -> list[str]:
    """The paths of a `-z` listing."""
    return [part.decode(errors="surrogateescape") for part in output.split(b"\0") if part]


def merge_file(ours: str, base: str, theirs: str, cwd: str) -> tuple[bytes, bool]:
    """`git merge-file -p` of three files: (the merged bytes, whether it has conflicts)."""
    args: Sequence[str] = ("git", "merge-file", "-p", "-L", "workspace", "-L", "start",
                           "-L", "task", ours, base, theirs)
    done = subprocess.run(args, cwd=cwd, capture_output=True, timeout=60, check=False)
    if done.returncode < 0 or done.returncode > 127:
        raise GitFailed(done.stderr.decode(errors="replace").strip() or "git merge-file failed")
    return done.stdout, done.returncode != 0
