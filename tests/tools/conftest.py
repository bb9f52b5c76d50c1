"""Helpers for the tool tests: is a process or a process group still running?"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest


def _state(pid: int) -> str | None:
    """The /proc state letter of `pid`, or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def process_running(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie (a zombie runs nothing, it waits to be reaped)."""
    return _state(pid) not in (None, "Z", "X")


def group_running(pgid: int) -> bool:
    """Whether any non-zombie process is in group `pgid`.

    Killed grandchildren are re-parented to init, which may reap them seconds later (slowly in
    some containers); until then `killpg(pgid, 0)` still finds their zombies.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False


@pytest.fixture
def is_group_running() -> Callable[[int], bool]:
    """`group_running`, as a fixture."""
    return group_running


@pytest.fixture
def is_process_running() -> Callable[[int], bool]:
    """`process_running`, as a fixture."""
    return process_running
