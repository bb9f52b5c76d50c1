"""Stored sessions: one append-only JSON-lines file per session, and its metadata beside it.

Under the state directory, `sessions/<workspace key>/<session id>.jsonl` holds the history
exactly as it goes to the model, one record a line: a message, or a cut (a restore shortened
the history); beside it, what each tool call came to (`call`) and each finished run (`run`).
Every line is JSON escaped to ASCII, so no character in a message (a raw U+2028, a NUL) can
break a line or a reader. Lines are written when the caller says a turn is complete (a daemon
that dies loses at most the turn in flight), and fsynced with the metadata at a run's end
(the machine losing power costs at most the run in flight; an fsync a turn would cost every
turn a disk flush). Loading skips what it cannot read
(a torn last line, a damaged line in the middle) and says how many lines it skipped; it never
drops what follows. `<session id>.meta.json` (replaced atomically) keeps the title, times,
counts and usage for listings. While a daemon uses a session (a run, a restore, a compaction),
the session's file is locked: a second daemon gets `SessionLocked`. An idle session is let go,
so another daemon can take it over (`stamp` tells the first that it changed meanwhile). Both
files are 0600 in 0700 folders: a conversation is the user's alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from harness9.schema import Image, Message, Role, ToolCall
from harness9.workspace.atomic_write import atomic_write_bytes

TITLE_CHARS = 80
# A resource an ACP client attached to its prompt, as `acp/prompt_blocks` gives it to the model.
_ATTACHED = re.compile(r'<context uri="[^"]*">\n.*?\n</context>', re.DOTALL)


class SessionLocked(Exception):
    """Another daemon holds this session."""


Stamp = tuple[int, ...]


def stamp(folder: Path, session_id: str) -> Stamp:
    """What identifies the stored state of a session: its files' identities, sizes and times
    (the metadata is replaced as a whole, so its inode changes with every write)."""
    parts: list[int] = []
    for name in (f"{session_id}.jsonl", f"{session_id}.meta.json"):
        try:
            info = os.stat(folder / name)
        except FileNotFoundError:
            parts += [0, 0, 0]
            continue
        parts += [info.st_ino, info.st_size, info.st_mtime_ns]
    return tuple(parts)


@dataclass
class SessionMeta:
    """What a listing shows of a session."""

    session_id: str
    workspace_root: str
    title: str = ""
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    runs: int = 0
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    context_tokens: int = 0  # the input tokens of the session's latest model call
    # What else a resumed session needs back: its checkpoints (the shadow repository keeps the
    # snapshots) and what the user allowed for the whole session.
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    touched: list[list[str]] = field(default_factory=list)  # [root, path] its calls changed
    approvals: dict[str, list[str]] = field(default_factory=dict)
    # What the stale guard knows (file key → fingerprint) and the nested AGENTS.md files
    # already in the history, so a resumed session neither re-reads nor repeats them.
    seen_files: dict[str, str] = field(default_factory=dict)
    instructions_seen: list[str] = field(default_factory=list)
    approval_mode: str | None = None  # a mode chosen for this session alone
    plan: dict[str, Any] | None = None  # the model's latest plan (`Plan.as_dict`)
    model: dict[str, Any] | None = None  # the session's own model (`ModelChoice.as_wire`)


@dataclass(frozen=True, slots=True)
class LoadedSession:
    """A session read back: its history, its runs, its metadata, and how many lines were
    unreadable."""

    messages: list[Message]
    meta: SessionMeta | None
    skipped: int
    runs: list[dict[str, Any]] = field(default_factory=list)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # outcomes by wire id


def message_record(message: Message) -> dict[str, Any]:
    """A message as stored (and as `agent/session` shows it)."""
    record: dict[str, Any] = {"role": message.role.value, "content": message.content}
    if message.tool_calls:
        record["toolCalls"] = [_call_record(c) for c in message.tool_calls]
    if message.tool_call_id is not None:
        record["toolCallId"] = message.tool_call_id
    if message.is_error:
        record["isError"] = True
    if message.reasoning:
        record["reasoning"] = [dict(block) for block in message.reasoning]
    if message.images:
        record["images"] = [{"mediaType": i.media_type, "data": i.data} for i in message.images]
    return record


def _call_record(call: ToolCall) -> dict[str, Any]:
    """A tool call as stored: the model's id, and the session-unique one when it differs."""
    record = {"id": call.id, "name": call.name, "arguments": call.arguments}
    if call.wire_id is not None:
        record["wireId"] = call.wire_id
    return record


def message_from(record: dict[str, Any]) -> Message:
    """The message of a stored record; `ValueError` (or a `KeyError`/`TypeError`) if damaged."""
    calls = tuple(
        ToolCall(id=str(c["id"]), name=str(c["name"]), arguments=str(c["arguments"]),
                 wire_id=None if c.get("wireId") is None else str(c["wireId"]))
        for c in record["toolCalls"]
    ) if "toolCalls" in record else ()
    tool_call_id = record.get("toolCallId")
    return Message(
        role=_ROLES[record["role"]],
        content=str(record["content"]),
        tool_calls=calls,
        tool_call_id=None if tool_call_id is None else str(tool_call_id),
        is_error=bool(record.get("isError", False)),
        reasoning=tuple(dict(b) for b in record["reasoning"] if isinstance(b, dict))
        if "reasoning" in record else (),
        images=tuple(Image(str(i["mediaType"]), str(i["data"])) for i in record["images"])
        if "images" in record else (),
    )


_ROLES = {role.value: role for role in Role}


_LOCK_TRIES = 5
_LOCK_PAUSE = 0.04  # seconds between tries: a daemon letting the session go is done by then


def _lock(fd: int) -> bool:
    """Take the session's lock; False when another process keeps it for a few tries (one that
    is just letting it go, or exiting, is not "in use")."""
    for attempt in range(_LOCK_TRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if attempt < _LOCK_TRIES - 1:
                time.sleep(_LOCK_PAUSE)
            continue
        return True
    return False


def _held_by(path: Path) -> str:
    """` (process N, …)`: the other processes that have `path` open, where /proc tells."""
    try:
        wanted = os.stat(path)
    except OSError:
        return ""
    pids = []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        if fd_dir.parent.name == str(os.getpid()):
            continue
        try:
            if any((found.st_dev, found.st_ino) == (wanted.st_dev, wanted.st_ino)
                   for found in map(os.stat, fd_dir.iterdir())):
                pids.append(fd_dir.parent.name)
        except OSError:
            continue
    return f" (process {', '.join(pids)})" if pids else ""


class SessionLog:
    """One session's file, held open (and locked) for appending while the daemon uses it."""

    def __init__(self, folder: Path, session_id: str) -> None:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = folder / f"{session_id}.jsonl"
        self.meta_path = folder / f"{session_id}.meta.json"
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        if not _lock(self._fd):
            os.close(self._fd)
            holders = _held_by(self.path)
            message = (f"session {session_id} is in use by another harness9 daemon{holders} (a "
                       "run, a restore or a compaction there); try again when it has finished")
            raise SessionLocked(message)
        self._pending: list[bytes] = []
        self._unsynced = False
        self._end_torn_line()

    def _end_torn_line(self) -> None:
        """A daemon that died mid-write can leave a line without its newline; end it, or the
        next record would be glued to it and lost with it on the next load."""
        size = os.fstat(self._fd).st_size
        if size == 0:
            return
        with self.path.open("rb") as handle:
            handle.seek(size - 1)
            if handle.read(1) != b"\n":
                os.write(self._fd, b"\n")

    def add(self, messages: Iterable[Message]) -> None:
        """Queue messages for the next `commit`."""
        self._pending += [_line({"type": "message", "message": message_record(m)})
                          for m in messages]

    def cut(self, length: int) -> None:
        """Queue a cut: the history is `length` messages long from here on."""
        self._pending.append(_line({"type": "cut", "length": length}))

    def note(self, kind: str, fields: dict[str, Any]) -> None:
        """Queue a record that is not part of the history: a finished `run`, a `compaction`."""
        self._pending.append(_line({**fields, "type": kind}))

    def commit(self, meta: SessionMeta | None = None) -> None:
        """Write what is queued (the end of a turn); with `meta`, make it durable and replace
        the metadata (the end of a run)."""
        if self._pending:
            data, self._pending = b"".join(self._pending), []
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
            self._unsynced = True
        if meta is not None and self._unsynced:
            os.fsync(self._fd)
            self._unsynced = False
        if meta is not None:
            meta.updated_at = time.time()
            atomic_write_bytes(self.meta_path, json.dumps(asdict(meta)).encode(), 0o600)

    def close(self) -> None:
        """Write what is queued, durably, and release the session (its lock goes with the
        descriptor)."""
        with contextlib.suppress(OSError):
            self.commit()
            if self._unsynced:
                os.fsync(self._fd)
        os.close(self._fd)


def _line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


def load(folder: Path, session_id: str) -> LoadedSession:
    """Read a stored session back; unreadable lines are skipped and counted."""
    path = folder / f"{session_id}.jsonl"
    loaded = LoadedSession([], read_meta(folder / f"{session_id}.meta.json"), 0)
    *lines, rest = path.read_bytes().split(b"\n")
    skipped = 1 if rest else 0  # torn: the write of the turn in flight never finished
    for record in _records(lines):
        try:
            _apply(record, loaded)
        except (ValueError, KeyError, TypeError, RecursionError):
            skipped += 1
    return replace(loaded, skipped=skipped)


def _records(lines: list[bytes]) -> list[Any]:
    """Each line's JSON value (`None`, no record, for a line that is not JSON). The lines are
    parsed as one array in one call, faster than a call per line for a long session; only a
    file with a damaged line is parsed line by line."""
    try:
        records: list[Any] = json.loads(b"[" + b",".join(lines) + b"]")
        if len(records) == len(lines):
            return records
    except (ValueError, RecursionError):
        pass
    return [_record(line) for line in lines]


def _record(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None


def _apply(record: Any, loaded: LoadedSession) -> None:
    if not isinstance(record, dict):
        raise ValueError("not a record")
    kind = record.get("type")
    if kind == "message":
        loaded.messages.append(message_from(record["message"]))
    elif kind == "cut":
        del loaded.messages[int(record["length"]):]
    elif kind == "run":
        loaded.runs.append({k: v for k, v in record.items() if k != "type"})
    elif kind == "call":
        loaded.calls[str(record["id"])] = {k: v for k, v in record.items()
                                           if k not in ("type", "id")}
    elif kind != "compaction":  # noted for the record: the cut and messages after it carry it
        raise ValueError(f"unknown record type {kind!r}")


def read_meta(path: Path) -> SessionMeta | None:
    """A session's metadata, or None when missing or damaged."""
    try:
        return SessionMeta(**json.loads(path.read_bytes()))
    except (OSError, ValueError, TypeError, RecursionError):  # deep nesting: damaged too
        return None


def list_sessions(folder: Path) -> list[SessionMeta]:
    """The sessions stored in `folder` (one workspace's), newest first."""
    if not folder.is_dir():
        return []
    metas = [read_meta(path) for path in folder.glob("*.meta.json")]
    return sorted((m for m in metas if m is not None), key=lambda m: m.updated_at, reverse=True)


def delete(folder: Path, session_id: str) -> bool:
    """Remove a stored session; False when there was none. A session in use is refused."""
    path = folder / f"{session_id}.jsonl"
    if not path.exists():
        return False
    log = SessionLog(folder, session_id)  # takes the lock: raises SessionLocked when in use
    try:
        for stored in (path, folder / f"{session_id}.meta.json"):
            with contextlib.suppress(FileNotFoundError):
                stored.unlink()
    finally:
        log.close()
    return True


def title_of(prompt: str) -> str:
    """A session's title: its first prompt's first line, shortened; resources attached to the
    prompt are not part of it (a prompt that starts with one is titled by the text typed)."""
    typed = _ATTACHED.sub("", prompt).strip()
    line = typed.splitlines()[0] if typed else ""
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
