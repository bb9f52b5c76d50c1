"""Atomic file replacement shared by the file-writing tools."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace `path` with `data` so that readers see the old content or the new, never half.

    The bytes go to a temporary file in the same folder (same file system, so the rename is
    atomic), are flushed to disk, get `mode`, and are renamed over the target. On any failure the
    temporary file is removed and the target is untouched.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".h9tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
