"""Background tasks at git's edges, end to end with real git: a submodule, a repository nested
in the workspace, Git LFS with git-lfs and pointers without it, `core.worktree`, and a workspace
that is a folder of a larger repository. Each works (the task sees the files, applying lands them
where they are) or is refused with the limit named."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.e2e.daemon import StartDaemon
from tests.e2e.task_repos import a_task, daemon_on, edit, git, repository, started
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)
FIVE = "one\ntwo\nthree\nfour\nfive\n"


async def test_a_submodules_files_are_the_tasks_and_apply_into_its_checkout(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    library = repository(tmp_path / "library")
    root = repository(workspace)
    git(root, "submodule", "add", "-q", str(library), "lib")
    git(root, "commit", "-q", "-m", "lib")
    users = "one\ntwo\nthree\nfour\nFIVE (user, in the submodule)\n"
    (root / "lib" / "a.txt").write_text(users)
    (root / "lib" / "notes.md").write_text("untracked in the submodule\n")
    commit = git(root / "lib", "rev-parse", "HEAD")
    daemon = await daemon_on(start, fake_llm, root)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("lib/a.txt", "one\n", "ONE (task)\n", "c1"),
        Call("bash", {"command": "cat lib/notes.md > seen.txt"}, id="c2")]))
    assert result["status"] == "completed"
    tree = Path(started(daemon, result["runId"])["worktree"]["path"])
    assert (tree / "lib" / "a.txt").read_text() == "ONE (task)\n" + users[4:]
    assert (tree / "seen.txt").read_text() == "untracked in the submodule\n"
    assert (root / "lib" / "a.txt").read_text() == users
    [task] = (await daemon.request("agent/tasks", {}))["tasks"]
    assert sorted(task["changedFiles"]) == ["lib/a.txt", "seen.txt"]
    applied = await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is True and sorted(applied["files"]) == ["lib/a.txt", "seen.txt"]
    assert (root / "lib" / "a.txt").read_text() == "ONE (task)\n" + users[4:]
    # Landed in the submodule's working files: its commit and the superproject's are kept.
    assert git(root / "lib", "rev-parse", "HEAD") == commit
    assert git(root, "diff", "--cached", "--name-only") == ""


async def test_a_repository_nested_in_the_workspace_is_carried_as_its_files(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    nested = repository(root / "vendored")
    (nested / "notes.md").write_text("untracked in the nested repository\n")
    (nested / "build").mkdir()
    (nested / "build" / "out.bin").write_text("ignored there\n")
    daemon = await daemon_on(start, fake_llm, root)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("vendored/a.txt", "two\n", "TWO (task)\n", "c1"),
        Call("bash", {"command": "cat vendored/notes.md > seen.txt"}, id="c2")]))
    tree = Path(started(daemon, result["runId"])["worktree"]["path"])
    assert (tree / "seen.txt").read_text() == "untracked in the nested repository\n"
    assert not (tree / "vendored" / ".git").exists()
    assert not (tree / "vendored" / "build").exists()
    [task] = (await daemon.request("agent/tasks", {}))["tasks"]
    assert sorted(task["changedFiles"]) == ["seen.txt", "vendored/a.txt"]
    applied = await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is True
    assert (nested / "a.txt").read_text() == "one\nTWO (task)\nthree\nfour\nfive\n"
    assert git(nested, "status", "--short") == " M a.txt\n?? notes.md\n"


POINTER = ("version https://git-lfs.github.com/spec/v1\noid sha256:"
           "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")


@pytest.mark.skipif(shutil.which("git-lfs") is not None, reason="git-lfs is installed here")
async def test_lfs_pointers_are_carried_as_they_are_without_git_lfs(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    (root / ".gitattributes").write_text("*.bin filter=lfs diff=lfs merge=lfs -text\n")
    (root / "model.bin").write_text(POINTER)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "lfs")
    # As `git lfs install` leaves it, on a machine where git-lfs is not (or no longer) there.
    for name, value in (("required", "true"), ("process", "git-lfs filter-process"),
                        ("smudge", "git-lfs smudge -- %f"), ("clean", "git-lfs clean -- %f")):
        git(root, "config", f"filter.lfs.{name}", value)
    (root / "a.txt").write_text("one\ntwo\nthree\nfour\nfive (user)\n")
    daemon = await daemon_on(start, fake_llm, root)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "one\n", "ONE (task)\n", "c1"),
        Call("bash", {"command": "cat model.bin > seen.txt"}, id="c2")]))
    assert result["status"] == "completed"
    tree = Path(started(daemon, result["runId"])["worktree"]["path"])
    assert (tree / "seen.txt").read_text() == POINTER
    [task] = (await daemon.request("agent/tasks", {}))["tasks"]
    assert sorted(task["changedFiles"]) == ["a.txt", "seen.txt"]
    applied = await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is True
    assert (root / "a.txt").read_text() == "ONE (task)\ntwo\nthree\nfour\nfive (user)\n"
    assert (root / "model.bin").read_text() == POINTER


GIT_LFS = Path(__file__).resolve().parents[2] / ".venv" / "git-lfs" / "usr" / "bin"


@pytest.mark.skipif(not (GIT_LFS / "git-lfs").exists(),
                    reason="git-lfs is not unpacked (scripts/bootstrap --test does it)")
async def test_lfs_files_are_their_content_with_git_lfs(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{GIT_LFS}{os.pathsep}{os.environ['PATH']}")
    root = repository(workspace)
    git(root, "lfs", "install", "--local")
    git(root, "lfs", "track", "*.bin")
    weights = bytes(range(256)) * 40
    (root / "model.bin").write_bytes(weights)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "lfs")
    assert git(root, "cat-file", "-p", "HEAD:model.bin").startswith(
        "version https://git-lfs")  # stored as a pointer, checked out as the content
    (root / "data.bin").write_bytes(b"\x00uncommitted\xff")  # an LFS file not committed yet
    daemon = await daemon_on(start, fake_llm, root)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "one\n", "ONE (task)\n", "c1"),
        Call("bash", {"command": "sha256sum model.bin data.bin > seen.txt"}, id="c2")]))
    assert result["status"] == "completed"
    tree = Path(started(daemon, result["runId"])["worktree"]["path"])
    assert (tree / "model.bin").read_bytes() == weights
    assert (tree / "data.bin").read_bytes() == b"\x00uncommitted\xff"
    [task] = (await daemon.request("agent/tasks", {}))["tasks"]
    assert sorted(task["changedFiles"]) == ["a.txt", "seen.txt"]
    applied = await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is True
    assert (root / "a.txt").read_text().startswith("ONE (task)\n")
    assert (root / "model.bin").read_bytes() == weights
    assert git(root, "status", "--short") == " M a.txt\n?? data.bin\n?? seen.txt\n"


async def test_a_workspace_outside_its_core_worktree_is_refused_naming_it(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    elsewhere = workspace / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.txt").write_text(FIVE)
    project = workspace / "project"
    project.mkdir()
    git(project, "init", "-q")
    git(project, "config", "core.worktree", str(elsewhere))
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "start")
    daemon = await daemon_on(start, fake_llm, project)
    with pytest.raises(JsonRpcInvalidParams, match=r"isolation.*core\.worktree"):
        await daemon.run(prompt="work", isolation="worktree")
    assert fake_llm.requests == []
    state = Path(os.environ["HARNESS9_STATE_DIR"])
    assert not list(state.glob("worktrees/*/*"))  # noqa: ASYNC240


async def test_a_checkout_with_core_worktree_works_on_its_own_files(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    # A submodule's checkout: its `.git` is a file, its repository's config sets core.worktree.
    root = repository(workspace)
    git(root, "submodule", "add", "-q", str(repository(tmp_path / "library")), "lib")
    lib = root / "lib"
    assert git(lib, "config", "core.worktree").strip()
    daemon = await daemon_on(start, fake_llm, lib)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "one\n", "ONE (task)\n", "c1"),
        Call("bash", {"command": "git status --short -- a.txt > status.txt"}, id="c2")]))
    tree = Path(started(daemon, result["runId"])["worktree"]["path"])
    assert (tree / "status.txt").read_text() == " M a.txt\n"  # git there is the worktree's
    assert (lib / "a.txt").read_text() == FIVE and git(lib, "status", "--short") == ""
    applied = await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is True
    assert (lib / "a.txt").read_text() == "ONE (task)\n" + FIVE[4:]


async def test_a_folder_of_a_larger_repository_maps_to_its_counterpart(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    top = repository(workspace)
    app = top / "packages" / "app"
    app.mkdir(parents=True)
    (app / "main.py").write_text("print('one')\n")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "app")
    (top / "README.md").write_text("untracked, outside the workspace\n")
    daemon = await daemon_on(start, fake_llm, app)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("main.py", "one", "two", "c1"),
        Call("bash", {"command": "pwd > where.txt; cat ../../README.md > seen.txt; "
                                 "echo x > ../../outside.txt"}, id="c2")]))
    tree = Path(started(daemon, result["runId"])["worktree"]["path"])
    assert tree.parts[-2:] == ("packages", "app")
    assert (tree / "main.py").read_text() == "print('two')\n"
    assert (tree / "where.txt").read_text().strip() == str(tree.resolve())  # noqa: ASYNC240
    assert (tree / "seen.txt").read_text() == "untracked, outside the workspace\n"
    [task] = (await daemon.request("agent/tasks", {}))["tasks"]
    assert sorted(task["changedFiles"]) == ["main.py", "seen.txt", "where.txt"]
    applied = await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is True
    assert (app / "main.py").read_text() == "print('two')\n"
    assert not (top / "outside.txt").exists() and not (top / "seen.txt").exists()
