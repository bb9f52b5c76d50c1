"""Carrying the workspace's state into a task's worktree: its uncommitted changes (tracked
changes, and untracked files git does not ignore), and the files of the checkouts inside it
(initialised submodules, repositories nested in the workspace) as plain files of the
worktree, so the task reads and edits them and applying writes them back where they are."""

from __future__ import annotations

import os
import shutil

from harness9.service.worktrees.git_calls import git, null_split

NESTED_DEPTH = 4  # checkouts inside checkouts carried, at most
_GITLINK = b"160000"  # the index mode of a submodule


def carry_uncommitted(repo: str, path: str) -> None:
    """The workspace's tracked changes, untracked (not ignored) files and inner checkouts,
    from the repository at `repo` into the worktree at `path`."""
    # Submodules are left out of the patch: their files are carried whole, below.
    diff = git(repo, "diff", "HEAD", "--binary", "--no-renames", "--no-ext-diff",
               "--ignore-submodules=all")
    if diff.strip():
        git(path, "apply", "--binary", "--whitespace=nowarn", "-", stdin=diff)
    for name in null_split(git(repo, "ls-files", "-z", "--others", "--exclude-standard")):
        if name.endswith("/"):  # git lists a repository nested in the workspace as a folder
            copy_checkout(os.path.join(repo, name), os.path.join(path, name), 1)
        else:
            copy_file(os.path.join(repo, name), os.path.join(path, name))
    for name in initialised_submodules(repo):
        # The worktree's index forgets the submodule, so its files are the worktree's own.
        git(path, "update-index", "--force-remove", "--", name)
        copy_checkout(os.path.join(repo, name), os.path.join(path, name), 1)


def initialised_submodules(repo: str) -> list[str]:
    """The submodules of `repo` that are checked out (an uninitialised one has no files)."""
    if not os.path.exists(os.path.join(repo, ".gitmodules")):
        return []
    found = []
    for entry in git(repo, "ls-files", "-z", "--stage").split(b"\0"):
        if entry.startswith(_GITLINK + b" "):
            name = entry.split(b"\t", 1)[1].decode(errors="surrogateescape")
            if os.path.exists(os.path.join(repo, name, ".git")):
                found.append(name)
    return found


def copy_checkout(source: str, target: str, depth: int) -> None:
    """The files of the checkout at `source` as they are (tracked, and untracked not ignored,
    its own inner checkouts too), without its `.git`, copied to `target`."""
    if depth > NESTED_DEPTH:
        return
    listing = git(source, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in null_split(listing):
        found = os.path.join(source, name.rstrip("/"))
        if os.path.isdir(found) and not os.path.islink(found):
            if os.path.exists(os.path.join(found, ".git")):
                copy_checkout(found, os.path.join(target, name), depth + 1)
        else:
            copy_file(found, os.path.join(target, name))


def copy_file(source: str, target: str) -> None:
    """Copy one file (a link as a link), making its folders; a file that is gone is skipped."""
    if os.path.islink(source):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.symlink(os.readlink(source), target)
    elif os.path.isfile(source):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
