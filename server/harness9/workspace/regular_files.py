"""Reading files that must be regular: opened without blocking and refused unless regular, so a
FIFO or a device named by a prompt, an editor or a repository never stalls the daemon."""

from __future__ import annotations

import os
import stat

from harness9.schema import ToolError
from harness9.workspace.safe_path import open_beneath


def read_regular_beneath(workdir: str | os.PathLike[str], path: str, limit: int) -> bytes:
    """At most `limit` bytes of the regular file `path` inside `workdir` (a link leading out of
    it is refused). `FileNotFoundError`/`OSError` as `open_beneath`; a `ToolError` for what
    is not a regular file."""
    with open_beneath(workdir, path, os.O_RDONLY | os.O_NONBLOCK) as (fd, _):
        return _regular_bytes(fd, path, limit)


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """At most `limit` bytes of the regular file at the plain `path` (the user's own files, not
    confined to a workspace). `OSError` when it cannot be opened; a `ToolError` for what is
    not a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        return _regular_bytes(fd, os.fspath(path), limit)
    finally:
        os.close(fd)


def _regular_bytes(fd: int, shown: str, limit: int) -> bytes:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise ToolError(f"Error: {shown} is not a regular file")
    return os.pread(fd, limit, 0)
