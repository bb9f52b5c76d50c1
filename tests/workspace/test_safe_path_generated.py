"""The sandbox against generated trees of folders and links and generated paths.

The oracle is the kernel's own answer, `os.path.realpath` of the path after `..` is applied to
its text: whatever the walk accepts must lie inside the workspace and be exactly that real path;
whatever really lies outside must be refused. (The walk may also refuse a link that leaves the
workspace and comes back, as `RESOLVE_BENEATH` does: stricter, never looser.)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness9.schema import ToolError
from harness9.workspace.path_walk import Walk
from harness9.workspace.safe_path import _relative_parts, safe_path

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


@contextlib.contextmanager
def _tree(entries: list[tuple[str, str, str]]) -> Iterator[tuple[Path, Path]]:
    """A workspace built from `entries` and a folder outside it, removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix="h9-sandbox-"))
    try:
        root, outside = base / "ws", base / "out"
        root.mkdir()
        (outside / "a").mkdir(parents=True)
        _build(root, outside, entries)
        yield root, outside
    finally:
        shutil.rmtree(base)


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
    with _tree(entries) as (root, outside):
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


def _walked(root: Path, path: str, follow_links: bool, at_once: bool) -> tuple[str, int] | str:
    """Where one way resolves `path`: (real path, its folder's inode), or the refusal; the
    kernel's way gives "no answer" when it leaves the path to the walk."""
    real_root = os.path.realpath(root)
    try:
        parts = _relative_parts(root, real_root, path)
    except ToolError as exc:
        return str(exc)
    with Walk(real_root, os.open(real_root, os.O_RDONLY | os.O_DIRECTORY), path,
               follow_links) as walk:
        try:
            where = walk.at_once(parts) if at_once else walk.resolve(parts, make_folders=False)
        except ToolError as exc:
            return str(exc)
        if where is None:
            return "no answer"
        return where.path, os.fstat(where.dir_fd).st_ino


@settings(max_examples=300, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_entry, max_size=8), st.lists(_path, min_size=1, max_size=4), st.booleans())
def test_the_kernels_one_call_answer_is_the_walks_answer(
    entries: list[tuple[str, str, str]], paths: list[str], follow_links: bool
) -> None:
    # Where openat2 opens a folder at once, it must land where the component-by-component walk
    # lands (same real path, same folder); where it does not, the walk decides alone.
    with _tree(entries) as (root, outside):
        # The generated paths, and a way through each entry made (links and folders on the way).
        made = [f"{relative}/{name}" for relative, _, _ in entries for name in ("a", "b/c")]
        for raw in [*paths, *made]:
            path = raw.replace("@ROOT", str(root)).replace("@OUT", str(outside)) or "."
            fast = _walked(root, path, follow_links, at_once=True)
            if fast != "no answer":
                assert fast == _walked(root, path, follow_links, at_once=False), path


def test_one_call_answers_plain_paths_and_links_inside(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "x.py").write_text("x = 1\n")
    (tmp_path / "rel").symlink_to("src/pkg", target_is_directory=True)
    (tmp_path / "abs").symlink_to(tmp_path / "src" / "pkg", target_is_directory=True)
    real = os.path.realpath(tmp_path / "src" / "pkg" / "x.py")
    assert _walked(tmp_path, "src/pkg/x.py", True, at_once=True)[0] == real
    assert _walked(tmp_path, "rel/x.py", True, at_once=True)[0] == real
    assert _walked(tmp_path, "rel/x.py", False, at_once=True) == "no answer"  # links: the walk
    assert _walked(tmp_path, "abs/x.py", True, at_once=True) == "no answer"  # kernel: refused
    assert _walked(tmp_path, "abs/x.py", True, at_once=False)[0] == real  # the walk: inside


def test_a_link_through_a_missing_folder_and_back_up_resolves_as_realpath_does(
    tmp_path: Path,
) -> None:
    # Found by the generated trees: the walk stopped at the missing folder and returned
    # `a/a/..` unresolved.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").symlink_to("a/a/..")
    (tmp_path / "c").symlink_to("a/x/../y")
    assert str(safe_path(tmp_path, "b")) == os.path.realpath(tmp_path / "b")
    assert str(safe_path(tmp_path, "c")) == os.path.realpath(tmp_path / "c")
