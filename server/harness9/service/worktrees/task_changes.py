"""What a task changed: the files of its worktree that differ from its starting point, with
their line counts, and the three texts a merge of one of them needs."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass

from harness9.service.worktrees.git_calls import GitFailed, git, git_text
from harness9.service.worktrees.task_worktree import TaskWorktree


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """One changed file, relative to the workspace root: lines added and removed (None for
    binary content)."""

    path: str
    insertions: int | None
    deletions: int | None


def changed_files(worktree: TaskWorktree) -> list[ChangedFile]:
    """The files the task changed below the workspace's place in its worktree (the included
    files left out)."""
    excluded = [f":(exclude,top){name}" for name in worktree.included]
    # A copy of the worktree's index (its file times spare hashing unchanged files): the
    # task's own git commands never find it locked or changed by a listing.
    index = git_text(worktree.path, "rev-parse", "--path-format=absolute", "--git-path",
                     "index")
    with tempfile.TemporaryDirectory(prefix="harness9-index-") as folder:
        env = {"GIT_INDEX_FILE": os.path.join(folder, "index")}
        if os.path.isfile(index):
            shutil.copyfile(index, env["GIT_INDEX_FILE"])
        git(worktree.path, "add", "-A", env=env)
        output = git(worktree.root, "diff", "--cached", "--numstat", "-z", "--no-renames",
                     "--relative", worktree.base, "--", ".", *excluded, env=env)
    changed: list[ChangedFile] = []
    for entry in output.split(b"\0"):
        if not entry:
            continue
        added, removed, name = entry.decode(errors="surrogateescape").split("\t", 2)
        changed.append(ChangedFile(name, _count(added), _count(removed)))
    return changed


def base_content(worktree: TaskWorktree, path: str) -> bytes | None:
    """`path`'s content at the task's start (None: it did not exist)."""
    name = os.path.relpath(os.path.join(worktree.root, path), worktree.path)
    try:
        return git(worktree.path, "show", f"{worktree.base}:{name}")
    except GitFailed:
        return None


def base_contents(worktree: TaskWorktree, paths: list[str]) -> dict[str, bytes | None]:
    """Each of `paths`' content at the task's start (None: it did not exist), read by one
    `git cat-file --batch`."""
    names = [os.path.relpath(os.path.join(worktree.root, path), worktree.path) for path in paths]
    if not names or any("\n" in name for name in names):
        return {path: base_content(worktree, path) for path in paths}
    asked = "".join(f"{worktree.base}:{name}\n" for name in names).encode(errors="surrogateescape")
    output = git(worktree.path, "cat-file", "--batch", stdin=asked)
    found: dict[str, bytes | None] = {}
    at = 0
    for path in paths:
        end = output.index(b"\n", at)
        header = output[at:end].split(b" ")
        if len(header) != 3 or not header[2].isdigit():  # "<name> missing", "… ambiguous"
            found[path], at = None, end + 1
            continue
        size = int(header[2])
        blob = output[end + 1:end + 1 + size]
        found[path], at = (blob if header[1] == b"blob" else None), end + 2 + size
    return found


def task_content(worktree: TaskWorktree, path: str) -> bytes | None:
    """`path`'s content in the worktree now (None: it is gone)."""
    try:
        with open(os.path.join(worktree.root, path), "rb") as file:
            return file.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _count(value: str) -> int | None:
    return None if value == "-" else int(value)


