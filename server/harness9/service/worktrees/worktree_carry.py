"""Carrying the workspace's state into a task's worktree. Its uncommitted changes (tracked
changes, and untracked files git does not ignore) become one commit on top of HEAD, made with
an index of its own (the workspace's index and files untouched), which the worktree checks out.
The checkouts inside the workspace (initialised submodules, repositories nested in it) are
copied in as plain files of the worktree, so the task reads and edits them and applying writes
them back where they are."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass

from harness9.service.worktrees.git_calls import git, git_text, null_split

NESTED_DEPTH = 4  # checkouts inside checkouts carried, at most
START_MESSAGE = "harness9: the workspace when the task started"
_GITLINK = b"160000"  # the index mode of a submodule


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The workspace as a commit (`commit`), and the repositories nested in it (`nested`,
    left out of the commit: their files are copied)."""

    commit: str
    nested: tuple[str, ...]


def snapshot(repo: str) -> Snapshot:
    """A commit of the repository at `repo` as its files are now: HEAD plus the uncommitted
    state. Only the files changed since the index last looked are read (its copy keeps their
    times)."""
    untracked = null_split(git(repo, "ls-files", "-z", "--others", "--exclude-standard"))
    # git lists a repository nested in the workspace as a folder.
    nested = tuple(name for name in untracked if name.endswith("/"))
    index = git_text(repo, "rev-parse", "--path-format=absolute", "--git-path", "index")
    with tempfile.TemporaryDirectory(prefix="harness9-index-") as folder:
        env = {"GIT_INDEX_FILE": os.path.join(folder, "index")}
        if os.path.isfile(index):
            shutil.copyfile(index, env["GIT_INDEX_FILE"])
        left_out = [f":(exclude,literal){name}" for name in nested]
        git(repo, "add", "-A", "--", ".", *left_out, env=env)
        tree = git_text(repo, "write-tree", env=env)
    head = git_text(repo, "rev-parse", "HEAD")
    return Snapshot(git_text(repo, "commit-tree", tree, "-p", head, "-m", START_MESSAGE),
                    nested)


def carry_inner_checkouts(repo: str, path: str, nested: tuple[str, ...]) -> bool:
    """Copy the files of `repo`'s initialised submodules and `nested` repositories into the
    worktree at `path` as its own (its index forgets the submodules); whether there were any."""
    submodules = initialised_submodules(repo)
    for name in submodules:
        git(path, "update-index", "--force-remove", "--", name)
    for name in (*submodules, *nested):
        copy_checkout(os.path.join(repo, name), os.path.join(path, name), 1)
    return bool(submodules or nested)


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
