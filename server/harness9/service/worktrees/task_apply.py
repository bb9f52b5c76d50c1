"""Applying a task to the workspace: each changed file merged three ways (its content at the
task's start, the task's, and the workspace's now), every merge decided before anything is
written, so a conflict anywhere leaves the workspace as it was."""

from __future__ import annotations

import asyncio
import os
import tempfile
from dataclasses import dataclass, field

from harness9.service.worktrees.git_calls import merge_file
from harness9.service.worktrees.task_changes import base_contents, changed_files, task_content
from harness9.service.worktrees.task_worktree import TaskWorktree
from harness9.workspace.port import FileText, Workspace

APPLY_TOOL = "applyTask"  # the editor's undo label for an applied task's edits


@dataclass(frozen=True, slots=True)
class Merged:
    """One file's outcome: its new content (None: remove it), or a conflict with the merged
    text and its conflict markers (`hunks`)."""

    path: str
    content: bytes | None
    now: FileText | None  # the workspace's file the merge was made against
    conflict: bool = False
    hunks: str = ""


@dataclass(slots=True)
class ApplyOutcome:
    """Whether the task's changes were applied; the conflicting files when they were not."""

    applied: bool
    conflicts: list[Merged] = field(default_factory=list)
    written: list[str] = field(default_factory=list)


async def apply_task(worktree: TaskWorktree, workspace: Workspace) -> ApplyOutcome:
    """Merge the task's changes into `workspace` (the workspace root's files, open buffers
    as the editor holds them); write them all, or none when one conflicts."""
    changed = await asyncio.to_thread(changed_files, worktree)
    paths = [change.path for change in changed]
    bases = await asyncio.to_thread(base_contents, worktree, paths)
    merges = [await _merged(worktree, workspace, path, bases[path]) for path in paths]
    conflicts = [merge for merge in merges if merge.conflict]
    if conflicts:
        return ApplyOutcome(False, conflicts)
    outcome = ApplyOutcome(True)
    done: list[Merged] = []
    try:
        for merge in merges:
            if await _write(workspace, worktree.workspace, merge):
                outcome.written.append(merge.path)
                done.append(merge)
    except BaseException:
        # A file changed between its merge and its write (the user typing): the files
        # written before it get their content back, so the change is all or nothing.
        await _undo(workspace, worktree.workspace, done)
        raise
    return outcome


async def _undo(workspace: Workspace, root: str, done: list[Merged]) -> None:
    """Put back what the written files held before (best effort: a failure here is left
    to the error being raised)."""
    for merge in reversed(done):
        before = merge.now
        try:
            if before is None:
                await asyncio.to_thread(os.unlink, os.path.join(root, merge.path))
            else:
                await workspace.write_text(merge.path, before.text, tool=APPLY_TOOL,
                                           base=None, encoding=before.encoding)
        except Exception:  # the original error is the one to report
            continue


async def _merged(
    worktree: TaskWorktree, workspace: Workspace, path: str, base: bytes | None
) -> Merged:
    """`path` merged (`base`: its content at the task's start): the task's content where the
    workspace kept the start's, the workspace's where the task's is the same, else
    `git merge-file`'s."""
    theirs = await asyncio.to_thread(task_content, worktree, path)
    now = await workspace.read_text(path)
    ours = None if now is None else now.text.encode(now.encoding, errors="surrogateescape")
    if ours in (base, theirs):
        return Merged(path, theirs, now)
    if theirs == base:
        return Merged(path, ours, now)
    if ours is None or base is None or theirs is None:
        return Merged(path, None, now, conflict=True,
                      hunks=_whole_file_conflict(base, theirs))
    content, conflicted = await asyncio.to_thread(_merge_three, ours, base, theirs)
    if conflicted:
        return Merged(path, None, now, True, content.decode("utf-8", errors="replace"))
    return Merged(path, content, now)


def _whole_file_conflict(base: bytes | None, theirs: bytes | None) -> str:
    """Why a file added, or removed, on one side cannot be merged."""
    if base is None:
        return "added by the task, and added differently in the workspace"
    if theirs is None:
        return "removed by the task, and changed in the workspace"
    return "changed by the task, and removed in the workspace"


def _merge_three(ours: bytes, base: bytes, theirs: bytes) -> tuple[bytes, bool]:
    with tempfile.TemporaryDirectory(prefix="harness9-merge-") as folder:
        names = []
        for label, content in (("ours", ours), ("base", base), ("theirs", theirs)):
            name = os.path.join(folder, label)
            with open(name, "wb") as file:
                file.write(content)
            names.append(name)
        return merge_file(names[0], names[1], names[2], folder)


async def _write(workspace: Workspace, root: str, merge: Merged) -> bool:
    """Write one merged file (through `workspace`: atomic, an open buffer in the editor);
    whether it changed."""
    now = merge.now
    current = None if now is None else now.text.encode(now.encoding, errors="surrogateescape")
    if merge.content == current:
        return False
    if merge.content is None:
        await asyncio.to_thread(os.unlink, os.path.join(root, merge.path))
        return True
    try:
        text, encoding = merge.content.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        text, encoding = merge.content.decode("latin-1"), "latin-1"
    await workspace.write_text(merge.path, text, tool=APPLY_TOOL, base=now, encoding=encoding)
    return True
