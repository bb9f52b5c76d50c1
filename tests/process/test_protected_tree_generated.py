"""The protected tree on generated trees and changes: a tree that keeps what it listed before
sees, after any changes (files, folders, links, removals, renames at any depth), exactly what a
fresh scan sees."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness9.process.protected_tree import ProtectedTree

pytestmark = pytest.mark.timeout(60)

SETTLE = 0.05  # seconds: short, so that listings are kept between the calls
NAMES = ["a", "b", ".git", ".vscode", ".envrc", "x.code-workspace", "lefthook.yml", "k.pem"]
PROTECT = ("b/**/*.pem", "a/lefthook.yml")
paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map(tuple)
targets = st.sampled_from(["a", "..", "missing", ".envrc", "b/a", "/"])
changes = st.one_of(
    st.tuples(st.just("file"), paths),
    st.tuples(st.just("folder"), paths),
    st.tuples(st.just("link"), paths, targets),
    st.tuples(st.just("remove"), paths),
    st.tuples(st.just("rename"), paths, paths),
)


def inside(root: str, path: str) -> bool:
    """Whether `path`'s folder is `root` or beneath it once links are followed (a generated
    link may point at `/` or `..`: a change through it would reach outside the test's folder)."""
    folder = os.path.realpath(os.path.dirname(path))
    return folder == root or folder.startswith(root + os.sep)


def apply(root: str, change: tuple[Any, ...]) -> None:
    """Makes one change under `root`; one that cannot be made (no parent, taken, or through a
    link that leads out of `root`) is skipped."""
    kind, path = change[0], os.path.join(root, *change[1])
    if not inside(root, path) or (kind == "rename" and not inside(
            root, os.path.join(root, *change[2]))):
        return
    try:
        if kind == "file":
            with open(path, "x") as file:
                file.write("x\n")
        elif kind == "folder":
            os.makedirs(path)
        elif kind == "link":
            os.symlink(str(change[2]), path)
        elif kind == "remove":
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        else:
            os.rename(path, os.path.join(root, *change[2]))
    except OSError:
        pass


def fresh(root: str) -> ProtectedTree:
    return ProtectedTree(root, PROTECT)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=st.lists(changes, max_size=25),
       rounds=st.lists(st.lists(changes, min_size=1, max_size=8), min_size=1, max_size=3))
def test_a_kept_tree_sees_what_a_fresh_scan_sees(
    first: list[tuple[Any, ...]], rounds: list[list[tuple[Any, ...]]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = os.path.realpath(folder)
        for change in first:
            apply(root, change)
        kept = ProtectedTree(root, PROTECT, settle=SETTLE)
        for changes_made in rounds:
            time.sleep(SETTLE * 1.5)  # what is listed now is kept, not listed again
            before = kept.snapshot()
            for change in changes_made:
                apply(root, change)
            assert kept.snapshot().entries == fresh(root).snapshot().entries
            assert kept.existing() == fresh(root).existing()
            created = kept.created_since(before)
            assert set(created) <= set(kept.snapshot().entries)
            kept.remove_created(created)
            assert kept.created_since(before) == []
