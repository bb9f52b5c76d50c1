"""Making a task's worktree: a git worktree under the state folder, of a commit of HEAD plus
the workspace's uncommitted state (tracked changes, and untracked files git does not ignore),
the task's starting point; then the files `.harness9/worktreeinclude` lists are copied in
(left out of the task's changes), for the setup script to find."""

from __future__ import annotations

import os
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from harness9.service.service_errors import NotARepository
from harness9.service.state import private_folder, workspace_key
from harness9.service.worktrees.git_calls import GitFailed, git, git_text
from harness9.service.worktrees.worktree_carry import (
    START_MESSAGE,
    carry_inner_checkouts,
    copy_file,
    snapshot,
)

INCLUDE_LIST = os.path.join(".harness9", "worktreeinclude")
SETUP_SCRIPT = os.path.join(".harness9", "setup")
_ADD_TRIES = 3
_LOCKS: dict[str, threading.RLock] = {}  # a repository's: its worktrees added one at a time
_LOCKS_GUARD = threading.Lock()


@dataclass(frozen=True, slots=True)
class TaskWorktree:
    """Where a task works: `path` (the checkout), `root` (the workspace's place in it),
    `branch`, `base` (the starting point's commit), `repo` (the workspace's repository
    top), `workspace` (the workspace root) and the `included` files copied in."""

    task_id: str
    workspace: str
    repo: str
    path: str
    root: str
    branch: str
    base: str
    included: tuple[str, ...] = ()


def make_worktree(workspace: str, state: Path, task_id: str) -> TaskWorktree:
    """A new worktree of `workspace`'s repository for task `task_id`; `NotARepository` when
    `workspace` has none, or it cannot have one (the reason named)."""
    repo, prefix = _repository(workspace)
    folder = private_folder(state / "worktrees" / workspace_key(repo), state)
    path = str(folder / task_id)
    branch = f"harness9/{task_id}"
    try:
        start = snapshot(repo)
        _add_worktree(repo, path, branch, start.commit)
        _check_checkout(path)
        if carry_inner_checkouts(repo, path, start.nested):
            git(path, "add", "-A")
            git(path, "commit", "--quiet", "--no-verify", "-m", START_MESSAGE)
        base = git_text(path, "rev-parse", "HEAD")
        included = _copy_included(repo, path)
    except GitFailed as exc:
        remove_worktree(repo, path, branch)
        raise NotARepository(_not_made(exc)) from None
    except BaseException:
        remove_worktree(repo, path, branch)
        raise
    root = os.path.join(path, prefix) if prefix else path
    os.makedirs(root, exist_ok=True)
    return TaskWorktree(task_id, workspace, repo, path, root, branch, base, included)


def _add_worktree(repo: str, path: str, branch: str, commit: str) -> None:
    """`git worktree add` of `commit` on a new `branch`, one at a time per repository: git
    reads the other worktrees' files while it adds one, and fails on one half made. Tried
    again when another process was adding one at the time."""
    for attempt in range(_ADD_TRIES):
        try:
            with _repository_lock(repo):
                git(repo, "worktree", "add", "--quiet", "-b", branch, path, commit)
            return
        except GitFailed as exc:
            if attempt == _ADD_TRIES - 1 or "commondir" not in str(exc):
                raise
            remove_worktree(repo, path, branch)
            time.sleep(0.1 * (attempt + 1))


def _repository_lock(repo: str) -> threading.RLock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(os.path.realpath(repo), threading.RLock())


def remove_worktree(repo: str, path: str, branch: str) -> None:
    """Remove the worktree at `path` and its `branch` (what is gone already is no error)."""
    if os.path.isdir(repo):
        with _repository_lock(repo):
            git(repo, "worktree", "remove", "--force", path, check=False)
            git(repo, "branch", "-D", branch, check=False)
            git(repo, "worktree", "prune", check=False)
    shutil.rmtree(path, ignore_errors=True)


def _repository(workspace: str) -> tuple[str, str]:
    """(the top of `workspace`'s repository, the workspace's path below it)."""
    try:
        top = git_text(workspace, "rev-parse", "--show-toplevel")
        git(workspace, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except (GitFailed, OSError) as exc:
        raise NotARepository(
            f"isolation \"worktree\" needs a git repository with a commit: {workspace} is "
            f"not in one ({exc})") from None
    prefix = os.path.relpath(os.path.realpath(workspace), os.path.realpath(top))
    if prefix == ".." or prefix.startswith(f"..{os.sep}"):
        # core.worktree names another folder: git's commands here act on that one.
        raise NotARepository(
            f"isolation \"worktree\" needs the workspace inside its repository's work tree: "
            f"{workspace} is outside {top} (the repository's core.worktree)")
    return top, "" if prefix == "." else prefix


def _check_checkout(path: str) -> None:
    """Refuse a worktree whose git commands would act elsewhere (a `core.worktree` shared
    by every worktree of the repository, as older git versions apply it)."""
    top = git_text(path, "rev-parse", "--show-toplevel")
    if os.path.realpath(top) != os.path.realpath(path):
        raise GitFailed(f"the repository's core.worktree ({top}) applies to every worktree of "
                        "it: git in the task's worktree would act on the workspace")


def _not_made(exc: GitFailed) -> str:
    """Why the task's worktree could not be made, naming the limit it met."""
    text = str(exc)
    if "lfs" in text.lower():
        text += (" (the repository stores files with Git LFS: its objects could not be "
                 "checked out into the task's worktree)")
    return f"isolation \"worktree\": the task's worktree could not be made: {text}"


def _copy_included(repo: str, path: str) -> tuple[str, ...]:
    """Copy what `.harness9/worktreeinclude` names (one path or glob a line, relative to the
    repository; `#` comments) into the worktree; the paths copied."""
    listing = os.path.join(repo, INCLUDE_LIST)
    if not os.path.isfile(listing):
        return ()
    copied: list[str] = []
    with open(listing, encoding="utf-8", errors="replace") as lines:
        patterns = [line.strip() for line in lines]
    for pattern in patterns:
        if not pattern or pattern.startswith("#"):
            continue
        for found in sorted(Path(repo).glob(pattern.lstrip("/"))):
            name = os.path.relpath(found, repo)
            if name.startswith("..") or name.split(os.sep)[0] == ".git":
                continue
            if found.is_file() and not os.path.exists(os.path.join(path, name)):
                copy_file(str(found), os.path.join(path, name))
                copied.append(name)
    return tuple(copied)
