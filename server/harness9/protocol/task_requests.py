"""Requests about background tasks in worktrees: each one's params and result."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class TaskWorktree(TypedDict):
    """Where a task works: the workspace's place in its worktree, and its branch."""

    path: str
    branch: str


class TaskListed(TypedDict):
    """A task: its session, its run's status (`running`, the run's end status, `applied`, or
    `interrupted` when its daemon ended while it ran), what it changed, and its `title` (the
    first line of its prompt, or a child agent's task description; "" for a task recorded
    before titles were kept)."""

    sessionId: str
    status: str
    worktree: TaskWorktree
    changedFiles: list[str]
    insertions: int
    deletions: int
    workspace: NotRequired[str]
    title: NotRequired[str]


class TasksResult(TypedDict):
    """Every task, oldest first."""

    tasks: list[TaskListed]


class ConflictHunks(TypedDict):
    """A conflicting file: the merge's text with its conflict markers, or why it cannot merge."""

    path: str
    text: str


class ApplyTaskResult(TypedDict):
    """Whether the task's changes were applied (all of them), else the conflicting files and
    nothing written; `files`: the files written."""

    applied: bool
    conflicts: list[str]
    hunks: NotRequired[list[ConflictHunks]]
    files: NotRequired[list[str]]


class DiscardTaskResult(TypedDict):
    """The task's worktree and branch are removed."""

    discarded: bool
