"""The workspace sandbox: what resolves inside, and the attacks that must be refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness9.schema import ToolError
from harness9.workspace.safe_path import resolve_beneath, safe_path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace whose name starts with the workspace's name."""
    evil = tmp_path / "ws-evil"
    evil.mkdir()
    (evil / "secret.txt").write_text("secret")
    return evil


def refused(workspace: Path, path: str) -> str:
    with pytest.raises(ToolError) as caught:
        safe_path(workspace, path)
    return str(caught.value)


def test_relative_paths_resolve_inside(workspace: Path) -> None:
    (workspace / "src").mkdir()
    assert safe_path(workspace, "src/main.py") == workspace / "src" / "main.py"
    assert safe_path(workspace, "new/deep/file.txt") == workspace / "new" / "deep" / "file.txt"
    assert safe_path(workspace, "src/../src/./x") == workspace / "src" / "x"


def test_absolute_path_inside_is_accepted(workspace: Path) -> None:
    assert safe_path(workspace, str(workspace / "a.txt")) == workspace / "a.txt"


def test_workspace_root_itself_is_accepted(workspace: Path) -> None:
    assert safe_path(workspace, ".") == workspace


def test_workspace_given_through_a_link_accepts_both_spellings(
    workspace: Path, tmp_path: Path
) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(workspace)
    assert safe_path(alias, "a.txt") == workspace / "a.txt"
    assert safe_path(alias, str(alias / "a.txt")) == workspace / "a.txt"
    assert safe_path(alias, str(workspace / "a.txt")) == workspace / "a.txt"


@pytest.mark.parametrize("path", ["../x", "../../etc/passwd", "a/../../x", "..", "/etc/passwd"])
def test_escapes_are_refused(workspace: Path, path: str) -> None:
    message = refused(workspace, path)
    assert repr(path) in message
    assert str(workspace) in message
    assert "outside the workspace" in message


def test_sibling_with_the_same_prefix_is_refused(workspace: Path, outside: Path) -> None:
    refused(workspace, str(outside / "secret.txt"))
    refused(workspace, "../ws-evil/secret.txt")


def test_symlinked_file_pointing_outside_is_refused(workspace: Path, outside: Path) -> None:
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    message = refused(workspace, "link.txt")
    assert "through a symbolic link" in message
    assert str(outside / "secret.txt") in message


def test_symlinked_parent_pointing_outside_is_refused(workspace: Path, outside: Path) -> None:
    (workspace / "dir").symlink_to(outside, target_is_directory=True)
    refused(workspace, "dir/secret.txt")
    refused(workspace, "dir/not-yet-there.txt")  # a write_file target that does not exist yet
    refused(workspace, "dir/new/deeper.txt")


def test_dangling_link_pointing_outside_is_refused(workspace: Path, outside: Path) -> None:
    (workspace / "dangling").symlink_to(outside / "does-not-exist.txt")
    refused(workspace, "dangling")


def test_link_inside_the_workspace_resolves_to_its_target(workspace: Path) -> None:
    (workspace / "real.txt").write_text("x")
    (workspace / "alias.txt").symlink_to("real.txt")
    assert safe_path(workspace, "alias.txt") == workspace / "real.txt"


def test_dotdot_after_a_link_is_resolved_lexically(workspace: Path, outside: Path) -> None:
    (workspace / "up").symlink_to(outside, target_is_directory=True)
    # `..` is applied to the text first (as the seed's Join does), so this names the workspace's
    # own secret.txt, never the one next to the link's target; the caller opens the returned path.
    assert safe_path(workspace, "up/../secret.txt") == workspace / "secret.txt"


def test_nul_byte_is_refused(workspace: Path) -> None:
    assert refused(workspace, "a\0b") == "Error: path 'a\\x00b' contains a NUL byte"


@pytest.mark.parametrize("path", ["", "   "])
def test_empty_path_is_refused(workspace: Path, path: str) -> None:
    assert "path is empty" in refused(workspace, path)


def test_root_workspace_has_no_double_separator(tmp_path: Path) -> None:
    assert safe_path("/", "etc") == Path(os.path.realpath("/etc"))


def test_without_following_links_the_entry_itself_is_given_and_a_linked_folder_refused(
    workspace: Path, outside: Path
) -> None:
    (workspace / "real").mkdir()
    (workspace / "inside").symlink_to("real")
    (workspace / "out").symlink_to(outside / "secret.txt")
    for link in ("inside", "out"):
        with resolve_beneath(workspace, link, follow_links=False) as where:
            assert where.name == link and where.path == str(workspace / link)
            assert os.readlink(where.name, dir_fd=where.dir_fd)  # the link, not its target
    with (
        pytest.raises(ToolError, match="is a symbolic link, not a folder"),
        resolve_beneath(workspace, "inside/x.txt", follow_links=False),
    ):
        pass
    with resolve_beneath(workspace, "inside/x.txt") as where:  # followed by default
        assert where.path == str(workspace / "real" / "x.txt")
