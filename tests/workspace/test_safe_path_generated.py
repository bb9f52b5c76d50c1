"""The sandbox against generated trees of folders and links and generated paths.

The oracle is the kernel's own answer, `os.path.realpath` of the path after `..` is applied to
its text: whatever the walk accepts must lie inside the workspace and be exactly that real path;
whatever really lies outside must be refused. (The walk may also refuse a link that leaves the
workspace and comes back, as `RESOLVE_BENEATH` does: stricter, never looser.)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness9.schema import ToolError
from harness9.workspace.safe_path import safe_path

NAMES = ["a", "b", "c", "d"]
_name = st.sampled_from(NAMES)
_relative = st.lists(st.sampled_from([*NAMES, "..", "."]), min_size=1, max_size=4).map("/".join)
_link_target = st.one_of(
    _relative,  # may stay inside, leave and come back, or leave
    st.lists(_name, min_size=1, max_size=3).map(lambda p: "@ROOT/" + "/".join(p)),
    st.lists(_name, min_size=1, max_size=2).map(lambda p: "@OUT/" + "/".join(p)),
    st.just("@OUT"),
)
_entry = st.tuples(
    st.lists(_name, min_size=1, max_size=3).map("/".join),
    st.sampled_from(["dir", "file", "link"]),
    _link_target,
)
_path = st.one_of(
    st.lists(st.sampled_from([*NAMES, "..", ".", ""]), min_size=1, max_size=5).map("/".join),
    st.lists(_name, min_size=1, max_size=3).map(lambda p: "@ROOT/" + "/".join(p)),
    st.just("@OUT/a"),
)


def _build(root: Path, outside: Path, entries: list[tuple[str, str, str]]) -> None:
    for relative, kind, target in entries:
        path = root / relative
        if path.parent.exists() and not path.parent.is_dir():
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if os.path.lexists(path):
                continue
            if kind == "dir":
                path.mkdir()
            elif kind == "file":
                path.write_text("x")
            else:
                path.symlink_to(target.replace("@ROOT", str(root)).replace("@OUT", str(outside)))
        except OSError:
            continue  # a parent is a link or a file: this entry cannot be made, skip it


def _plain(root: str, lexical: str) -> bool:
    """No link anywhere on the way (the last component included) and no file in the way."""
    if os.path.islink(lexical):
        return False
    parent = os.path.dirname(lexical)
    while _inside(root, parent) and parent != root:
        if os.path.islink(parent) or (os.path.lexists(parent) and not os.path.isdir(parent)):
            return False
        parent = os.path.dirname(parent)
    return True


def _inside(root: str, candidate: str) -> bool:
    return candidate == root or candidate.startswith(root + os.sep)


@settings(max_examples=400, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_entry, max_size=8), st.lists(_path, min_size=1, max_size=4))
def test_generated_trees_and_paths_never_resolve_outside(
    entries: list[tuple[str, str, str]], paths: list[str]
) -> None:
    base = Path(tempfile.mkdtemp(prefix="h9-sandbox-"))
    try:
        root, outside = base / "ws", base / "out"
        root.mkdir()
        (outside / "a").mkdir(parents=True)
        _build(root, outside, entries)
        real_root = os.path.realpath(root)
        for raw in paths:
            path = raw.replace("@ROOT", str(root)).replace("@OUT", str(outside)) or "."
            lexical = os.path.abspath(os.path.join(real_root, path))
            expected = os.path.realpath(lexical)
            try:
                got = str(safe_path(root, path))
            except ToolError as exc:
                text = str(exc)
                # A plain path (no link on the way, no file in the way) inside must be accepted.
                plain = _inside(real_root, lexical) and _plain(real_root, lexical)
                assert not plain, (path, text)
                assert "outside the workspace" in text or "symbolic links" in text or (
                    "a part of the path is a file" in text
                ), text
                continue
            assert _inside(real_root, got), (path, got)
            assert got == expected, (path, got, expected)
    finally:
        shutil.rmtree(base)
