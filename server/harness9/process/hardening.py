"""What the daemon does to itself before it serves: nothing of its memory or environment is
within reach of another process of the user's.

- Not dumpable: processes of the same user cannot attach to it, read its memory or its
  `/proc/<pid>/environ` (commands are also kept away by the sandbox; this holds for the rest).
- Secrets out of its environment: the API keys and other secret-looking variables are read into
  the daemon's own memory at start (Python's `os.environ` keeps them for the providers), then
  removed from the process environment and wiped from the block the kernel shows as
  `/proc/<pid>/environ`. A process the daemon starts never inherits them.
"""

from __future__ import annotations

import ctypes
import logging
import os
from collections.abc import Callable

_log = logging.getLogger(__name__)
_PR_SET_DUMPABLE = 4
_ENV_START_FIELD, _ENV_END_FIELD = 50, 51  # in /proc/<pid>/stat, counted from 1


def harden(is_secret: Callable[[str], bool]) -> list[str]:
    """Make this process not dumpable and wipe the variables `is_secret` names from its
    environment (they stay in `os.environ`); returns the names wiped."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        _log.warning("cannot make the daemon non-dumpable: %s", os.strerror(ctypes.get_errno()))
    names = sorted(name for name in os.environ if is_secret(name))
    for name in names:
        os.unsetenv(name)  # the C environment: what children started with env=None get
    try:
        _wipe(names)
    except (OSError, ValueError) as exc:
        _log.warning("cannot wipe secrets from the process environment: %s", exc)
    return names


def _wipe(names: list[str]) -> None:
    """Overwrite the values of `names` in the environment block the process started with."""
    if not names:
        return
    start, end = _environment_block()
    block = ctypes.string_at(start, end - start)
    wanted = {name.encode() + b"=" for name in names}
    offset = 0
    for entry in block.split(b"\0"):
        equals = entry.find(b"=")
        if equals > 0 and entry[: equals + 1] in wanted:
            value_at = start + offset + equals + 1
            ctypes.memset(value_at, 0, len(entry) - equals - 1)
        offset += len(entry) + 1


def _environment_block() -> tuple[int, int]:
    with open("/proc/self/stat", encoding="ascii", errors="replace") as handle:
        text = handle.read()
    fields = text[text.rindex(")") + 2:].split()  # from field 3 on
    return int(fields[_ENV_START_FIELD - 3]), int(fields[_ENV_END_FIELD - 3])
