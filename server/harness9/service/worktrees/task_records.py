"""The stored record of each task (under the state folder's `tasks`, one JSON file per
session), so tasks outlive the daemon."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import quote, unquote

from harness9.service.state import private_folder
from harness9.service.worktrees.task_worktree import TaskWorktree


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """A task's worktree, its status, and its title (what it was asked to do, one line; "" in
    a record kept before titles were)."""

    worktree: TaskWorktree
    status: str
    title: str


class TaskRecords:
    """The tasks' records: their worktree, status and title, keyed by session id."""

    def __init__(self, state: Path) -> None:
        self._state = state
        self._folder = state / "tasks"

    def save(self, session_id: str, worktree: TaskWorktree, status: str,
             title: str | None = None) -> None:
        """Store (or replace) the record of `session_id`'s task, atomically; `title` None keeps
        the one stored."""
        private_folder(self._folder, self._state)
        if title is None:
            stored = self.load(session_id)
            title = stored.title if stored is not None else ""
        record = {"sessionId": session_id, "status": status, "title": title,
                  "worktree": asdict(worktree)}
        path = self._path(session_id)
        partial = path.with_suffix(".partial")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump(record, out)
        os.replace(partial, path)

    def load(self, session_id: str) -> TaskRecord | None:
        """The record of `session_id`'s task; None when it has none."""
        try:
            record = json.loads(self._path(session_id).read_text(encoding="utf-8"))
            fields = dict(record["worktree"])
            fields["included"] = tuple(fields.get("included", ()))
            title = record.get("title")  # none in a record kept before titles were
            return TaskRecord(TaskWorktree(**fields), str(record["status"]),
                              title if isinstance(title, str) else "")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def session_ids(self) -> list[str]:
        """The sessions that have a task, oldest record first."""
        if not self._folder.is_dir():
            return []
        files = sorted(self._folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
        return [unquote(path.stem) for path in files]

    def drop(self, session_id: str) -> None:
        """Forget `session_id`'s task."""
        with contextlib.suppress(FileNotFoundError):
            self._path(session_id).unlink()

    def _path(self, session_id: str) -> Path:
        # Quoted: a child agent's session id has a `/` (`<session>/<task call>`).
        return self._folder / f"{quote(session_id, safe='-_')}.json"

