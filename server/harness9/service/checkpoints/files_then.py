"""The files a restore would put back, each as it was at the checkpoint: what "review the
changes since a checkpoint" compares the files of now with."""

from __future__ import annotations

from dataclasses import dataclass

from harness9.service.checkpoints.shadow_git import BlobReader, ShadowGit
from harness9.service.checkpoints.tree_restore import Plan

MAX_TEXT = 1024 * 1024  # bytes of one file's text given at most


@dataclass(frozen=True, slots=True)
class FileThen:
    """A file as it was at a checkpoint: whether it existed, and its text when it is text
    (`skipped` says why not: `link`, `binary`, `too large`)."""

    path: str
    existed: bool
    text: str | None = None
    skipped: str | None = None


async def files_then(git: ShadowGit, plan: Plan) -> list[FileThen]:
    """Each path `plan` changes, as the checkpoint it goes back to has it; by path."""
    reader = BlobReader(git)
    try:
        found = []
        for change in sorted(plan.removals + plan.writes, key=lambda c: c.path):
            blob = change.then
            if blob is None:
                found.append(FileThen(change.path, existed=False))
            elif blob.kind == "link":
                found.append(FileThen(change.path, existed=True, skipped="link"))
            else:
                found.append(_file(change.path, await reader.read(blob.oid)))
        return found
    finally:
        await reader.close()


def _file(path: str, data: bytes) -> FileThen:
    if len(data) > MAX_TEXT:
        return FileThen(path, existed=True, skipped="too large")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return FileThen(path, existed=True, skipped="binary")
    if "\0" in text:
        return FileThen(path, existed=True, skipped="binary")
    return FileThen(path, existed=True, text=text)
