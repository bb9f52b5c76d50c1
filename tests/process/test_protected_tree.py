"""What the sandbox protects inside a writable folder, on real trees: every protected name at
any depth, nested repositories, git's hooks folder, the `protect` globs, links, and the removal
of what a command created."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from harness9.process.protected_names import FILES, FOLDERS, SUFFIXES
from harness9.process.protected_tree import ProtectedTree

pytestmark = pytest.mark.timeout(30)
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="no git here")

NAMES = sorted({*FOLDERS, *FILES, *(f"team{suffix}" for suffix in SUFFIXES)})
SETTLE = 0.05  # seconds: a short settle time, so that tests see listings kept


def make(path: Path, folder: bool = False) -> Path:
    """Creates a file (or a folder holding one) at `path`, with its parents."""
    if folder:
        (path / "inside").mkdir(parents=True)
        (path / "inside" / "config").write_text("x\n")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    return path


def git(root: Path, *arguments: str) -> None:
    subprocess.run(["git", "-C", str(root), *arguments], check=True, capture_output=True)


@pytest.fixture
def real(workspace: Path) -> Path:
    """The workspace by its real path (the tree reports real paths)."""
    return Path(os.path.realpath(workspace))


@pytest.fixture(autouse=True)
def own_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Git reads an empty global configuration of the test's own and no system one."""
    config = tmp_path / "gitconfig"
    config.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return config


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("depth", [0, 3])
def test_every_protected_name_is_found_at_any_depth(real: Path, name: str, depth: int) -> None:
    folder = real.joinpath(*["sub"] * depth)
    as_folder = make(folder / name, folder=name in FOLDERS)
    as_file = make(real / "other" / "x" / name, folder=False)
    make(real / "src" / "main.py")
    assert ProtectedTree(str(real)).existing() == sorted(
        [str(as_folder), str(as_file)], key=lambda path: (path.count("/"), path))


def test_ordinary_names_and_the_inside_of_protected_folders_are_not_listed(real: Path) -> None:
    for name in (".editorconfig", ".gitattributes", "AGENTS.md", "git", ".envrc.bak", "vscode"):
        make(real / "a" / name)
    make(real / ".vscode" / ".envrc")
    make(real / ".git" / "modules" / "lib" / ".git", folder=True)
    assert ProtectedTree(str(real)).existing() == [str(real / ".git"), str(real / ".vscode")]


def test_letter_case_counts_only_where_the_file_system_ignores_it(real: Path) -> None:
    make(real / "a" / ".ENVRC")
    make(real / ".VSCode", folder=True)
    assert ProtectedTree(str(real)).existing() == []
    assert ProtectedTree(str(real), fold_case=True).existing() == [
        str(real / ".VSCode"), str(real / "a" / ".ENVRC")]


@needs_git
def test_nested_repositories_and_git_files_are_protected(real: Path) -> None:
    git(real, "init", "-q")
    (real / "vendor" / "lib").mkdir(parents=True)
    git(real / "vendor" / "lib", "init", "-q")
    make(real / "deep" / "a" / "b" / "sub" / ".git")  # a submodule's or worktree's pointer
    assert ProtectedTree(str(real)).existing() == [
        str(real / ".git"), str(real / "vendor" / "lib" / ".git"),
        str(real / "deep" / "a" / "b" / "sub" / ".git")]


@needs_git
@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_the_hooks_folder_is_protected_and_cannot_be_created(
    real: Path, absolute: bool,
) -> None:
    git(real, "init", "-q")
    hooks = real / "tools" / "hooks"
    git(real, "config", "core.hooksPath", str(hooks) if absolute else "tools/hooks")
    tree = ProtectedTree(str(real))
    assert tree.existing() == [str(real / ".git")]
    before = tree.snapshot()
    make(hooks / "pre-commit")
    assert tree.created_since(before) == [str(hooks)]
    assert tree.existing() == [str(real / ".git"), str(hooks)]
    assert tree.remove_created(tree.created_since(before)) == [str(hooks)]
    assert not hooks.exists() and (real / "tools").is_dir()


@needs_git
def test_a_hooks_folder_outside_the_folder_is_not_its_concern(real: Path, tmp_path: Path) -> None:
    git(real, "init", "-q")
    git(real, "config", "core.hooksPath", str(tmp_path / "elsewhere"))
    make(tmp_path / "elsewhere" / "pre-commit")
    assert ProtectedTree(str(real)).existing() == [str(real / ".git")]


@needs_git
def test_a_global_hooks_folder_inside_the_folder_counts_outside_a_repository(
    real: Path, own_git_config: Path,
) -> None:
    own_git_config.write_text(f"[core]\n\thooksPath = {real / 'global-hooks'}\n")
    tree = ProtectedTree(str(real))
    before = tree.snapshot()
    make(real / "global-hooks" / "post-checkout")
    assert tree.created_since(before) == [str(real / "global-hooks")]
    assert tree.existing() == [str(real / "global-hooks")]


@needs_git
def test_a_hooks_folder_reached_through_a_subfolder_of_the_repository(real: Path) -> None:
    git(real, "init", "-q")
    git(real, "config", "core.hooksPath", "app/hooks")
    make(real / "app" / "hooks" / "pre-push")
    # The workspace is a folder of the repository: hooks run from the repository's top.
    assert ProtectedTree(str(real / "app")).existing() == [str(real / "app" / "hooks")]


def test_protect_globs_match_inside_the_folder_only(real: Path, tmp_path: Path) -> None:
    make(real / "certs" / "a.pem")
    make(real / "x" / "y" / "b.pem")
    make(real / "secrets" / "token", folder=False)
    make(real / "notes.txt")
    make(tmp_path / "outside.pem")
    protect = ["**/*.pem", str(real / "secrets"), "../*.pem", str(tmp_path / "*.pem"), "/etc/*"]
    assert ProtectedTree(str(real), protect).existing() == [
        str(real / "secrets"), str(real / "certs" / "a.pem"), str(real / "x" / "y" / "b.pem")]


def test_a_link_counts_by_its_name_and_is_never_followed(real: Path, tmp_path: Path) -> None:
    make(real / "scripts" / "env.sh")
    (real / ".envrc").symlink_to("scripts/env.sh")
    (real / "a").mkdir()
    (real / "a" / ".exrc").symlink_to(tmp_path / "outside-exrc")  # dangling, and outside
    make(tmp_path / "elsewhere" / ".envrc")
    (real / "linked").symlink_to(tmp_path / "elsewhere")
    make(real / "inner" / ".nvim.lua")
    (real / "alias").symlink_to("inner")
    tree = ProtectedTree(str(real))
    # What to keep read-only: where a protected link leads, if that is inside the folder.
    assert tree.existing() == [str(real / "inner" / ".nvim.lua"), str(real / "scripts" / "env.sh")]
    assert sorted(tree.snapshot().entries) == [
        str(real / ".envrc"), str(real / "a" / ".exrc"), str(real / "inner" / ".nvim.lua")]


def test_a_dangling_protected_link_made_live_counts_as_created(real: Path) -> None:
    (real / ".envrc").symlink_to("later.sh")
    tree = ProtectedTree(str(real))
    before = tree.snapshot()
    make(real / "later.sh")
    assert tree.created_since(before) == [str(real / ".envrc")]
    assert tree.remove_created([str(real / ".envrc")]) == [str(real / ".envrc")]
    assert (real / "later.sh").is_file() and not os.path.lexists(real / ".envrc")


def test_created_since_lists_new_and_replaced_names_only(real: Path) -> None:
    make(real / "env.sh")
    (real / ".envrc").symlink_to("env.sh")
    make(real / "a" / ".vscode", folder=True)
    make(real / "a" / ".exrc")
    tree = ProtectedTree(str(real))
    before = tree.snapshot()
    # A link is not kept by the read-only mount of where it leads: a command can replace it.
    (real / ".envrc").unlink()
    make(real / ".envrc")
    make(real / "a" / ".vscode" / "settings.json")  # inside a protected folder: not new
    make(real / "b" / "c" / ".idea", folder=True)
    make(real / "b" / "c" / ".idea" / ".envrc")
    make(real / "b" / "c" / "plain.txt")
    assert tree.created_since(before) == [str(real / ".envrc"), str(real / "b" / "c" / ".idea")]


def test_remove_created_removes_inside_the_folder_only_and_never_through_a_link(
    real: Path, tmp_path: Path,
) -> None:
    outside = make(tmp_path / "keep" / ".envrc")
    (real / "via").symlink_to(tmp_path / "keep")
    made = make(real / "deep" / ".husky", folder=True)
    (made / "inside" / "locked").mkdir()
    (made / "inside").chmod(0o500)  # a command may take its own write rights away
    tree = ProtectedTree(str(real))
    asked = [str(made), str(real / "via" / ".envrc"), str(outside), str(real), "deep/.husky",
             str(real / "deep" / ".." / "x"), str(real / "missing")]
    assert tree.remove_created(asked) == [str(made)]
    assert outside.is_file() and (real / "deep").is_dir() and not made.exists()


def test_a_folder_whose_times_were_set_back_is_listed_again(real: Path) -> None:
    (real / "a").mkdir()
    time.sleep(SETTLE * 2)
    tree = ProtectedTree(str(real), settle=SETTLE)
    before = tree.snapshot()
    old = (real / "a").stat()
    make(real / "a" / ".envrc")
    os.utime(real / "a", ns=(old.st_atime_ns, old.st_mtime_ns))
    assert tree.created_since(before) == [str(real / "a" / ".envrc")]


def test_the_paths_to_protect_are_bounded_shallowest_first(real: Path) -> None:
    for depth in range(5):
        make(real.joinpath(*["d"] * depth) / ".envrc")
    tree = ProtectedTree(str(real), limit=3)
    assert tree.existing() == [str(real / ".envrc"), str(real / "d" / ".envrc"),
                               str(real / "d" / "d" / ".envrc")]
    assert tree.left_out == 2


def test_a_missing_folder_protects_nothing(tmp_path: Path) -> None:
    tree = ProtectedTree(str(tmp_path / "missing"))
    assert tree.existing() == [] and tree.created_since(tree.snapshot()) == []


def test_a_repeated_call_lists_only_the_folders_that_changed(real: Path) -> None:
    for name in ("a", "b", "c"):
        make(real / name / "deeper" / "file.txt")
    time.sleep(SETTLE * 2)
    tree = ProtectedTree(str(real), settle=SETTLE)
    assert tree.existing() == [] and tree.listed == 7
    assert tree.existing() == [] and tree.listed == 0
    make(real / "b" / "deeper" / ".envrc")
    assert tree.existing() == [str(real / "b" / "deeper" / ".envrc")] and tree.listed == 1


def test_a_folder_changed_just_before_it_was_listed_is_listed_again(real: Path) -> None:
    # A change right after the listing could carry the same (coarse) time as the one before.
    make(real / "a" / "file.txt")
    tree = ProtectedTree(str(real), settle=60)
    assert tree.existing() == [] and tree.listed == 2
    assert tree.existing() == [] and tree.listed == 2


@needs_git
def test_nothing_inside_a_listed_folder_is_listed_again(real: Path) -> None:
    git(real, "init", "-q")  # git's own hooks folder, .git/hooks, is inside .git
    make(real / ".git-backup")  # sorts between ".git" and ".git/hooks"
    assert ProtectedTree(str(real), [".git-backup"]).existing() == [
        str(real / ".git"), str(real / ".git-backup")]
