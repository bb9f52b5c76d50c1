"""Where `harness9 run` keeps the daemon's log: a folder of the user's alone in the temp folder.

The temp folder is shared, and a log may hold file contents and commands: the folder is
`$TMPDIR/harness9-logs-<uid>`, made 0700. Another user may have made that name first, or left
a link there, so an existing one is used only when it is a real folder (not a link) of ours,
and tightened to 0700; otherwise a new folder of our own (`mkdtemp`, 0700) is used. The log is
created 0600 relative to the folder's descriptor, never through a link.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import IO

_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LOG_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC


def open_daemon_log() -> tuple[IO[str], Path]:
    """A new log file for the daemon's stderr, opened for appending (the daemon writes to it
    through its own descriptor), and its path."""
    temp = Path(tempfile.gettempdir())
    folder = temp / f"harness9-logs-{os.geteuid()}"
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o700)
    fd = _our_folder(folder)
    if fd is None:
        folder = Path(tempfile.mkdtemp(prefix="harness9-logs-", dir=temp))
        fd = os.open(folder, _FOLDER_FLAGS)
    try:
        name = f"run-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        log = os.open(name, _LOG_FLAGS, 0o600, dir_fd=fd)
    finally:
        os.close(fd)
    return os.fdopen(log, "a", encoding="utf-8"), folder / name


def _our_folder(folder: Path) -> int | None:
    """A descriptor of `folder` when it is a real folder of ours (then made 0700), else None."""
    try:
        fd = os.open(folder, _FOLDER_FLAGS)
    except OSError:
        return None  # a link, a file, or gone
    try:
        info = os.fstat(fd)
        if info.st_uid == os.geteuid():
            if stat.S_IMODE(info.st_mode) != 0o700:
                os.fchmod(fd, 0o700)
            return fd
    except OSError:
        pass
    os.close(fd)
    return None
