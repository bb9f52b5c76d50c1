"""Background tasks in git worktrees, end to end: the daemon as a subprocess, real git in temp
workspaces, the fake LLM editing files in the task's worktree; the workspace untouched until
the task is applied, then merged with what the user changed meanwhile."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from harness9.process.sandbox import Mechanism, availability
from tests.e2e.daemon import StartDaemon
from tests.e2e.editor import Editor
from tests.e2e.task_repos import a_task, daemon_on, edit, git, repository, started
from tests.fakellm import Call, FakeLLM, Reply
from tests.fakellm.router import Router

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("sandbox", [
    "off",
    pytest.param("workspace-write", marks=pytest.mark.skipif(
        availability().mechanism is not Mechanism.BWRAP, reason="needs bubblewrap")),
])
async def test_a_task_works_in_its_worktree_and_applies_merged_with_the_users_changes(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, sandbox: str
) -> None:
    root = repository(workspace)
    (root / "a.txt").write_text("one\ntwo\nthree\nfour\nFIVE (user, uncommitted)\n")
    (root / "notes.md").write_text("untracked notes\n")
    (root / ".env").write_text("SECRET=1\n")
    (root / "build").mkdir()
    (root / "build" / "out.bin").write_text("ignored\n")
    (root / ".harness9").mkdir()
    (root / ".harness9" / "worktreeinclude").write_text(".env\n")
    (root / ".harness9" / "setup").write_text("echo set up > setup-ran.txt\n")
    git(root, "add", ".harness9")
    git(root, "commit", "-q", "-m", "harness9 files")
    daemon = await daemon_on(start, fake_llm, root, HARNESS9_SANDBOX=sandbox)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "one\n", "ONE (task)\n", "c1"),
        Call("bash", {"command": "cat .env notes.md > seen.txt; echo new > new.txt"}, id="c2"),
    ]))
    assert result["status"] == "completed"
    worktree = started(daemon, result["runId"])["worktree"]
    tree = Path(worktree["path"])
    assert worktree["branch"].startswith("harness9/")
    state = Path(os.environ["HARNESS9_STATE_DIR"])
    assert tree.is_relative_to(state) and not tree.is_relative_to(root)
    # The task saw the uncommitted change, the untracked file and the included file.
    user_five = "FIVE (user, uncommitted)\n"
    assert (tree / "a.txt").read_text() == f"ONE (task)\ntwo\nthree\nfour\n{user_five}"
    assert (tree / "seen.txt").read_text() == "SECRET=1\nuntracked notes\n"
    assert (tree / "setup-ran.txt").is_file() and not (tree / "build").exists()
    # The workspace is untouched until applied.
    assert (root / "a.txt").read_text() == "one\ntwo\nthree\nfour\nFIVE (user, uncommitted)\n"
    assert not (root / "new.txt").exists() and not (root / "seen.txt").exists()

    listed = (await daemon.request("agent/tasks", {}))["tasks"]
    assert [task["sessionId"] for task in listed] == [result["sessionId"]]
    task = listed[0]
    assert task["status"] == "completed"
    assert sorted(task["changedFiles"]) == ["a.txt", "new.txt", "seen.txt", "setup-ran.txt"]
    assert task["insertions"] == 5 and task["deletions"] == 1
    assert git(tree, "diff", "--cached", "--name-only") == ""  # its index left as it was

    # The user goes on editing the same file elsewhere: the merge keeps both.
    (root / "a.txt").write_text("one\ntwo\nthree (user, later)\nfour\nFIVE (user, uncommitted)\n")
    applied = await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is True and applied["conflicts"] == []
    assert (root / "a.txt").read_text() == (
        "ONE (task)\ntwo\nthree (user, later)\nfour\nFIVE (user, uncommitted)\n")
    assert (root / "new.txt").read_text() == "new\n"
    assert (root / ".env").read_text() == "SECRET=1\n"

    await daemon.request("agent/discardTask", {"sessionId": result["sessionId"]})
    assert not tree.exists()  # noqa: ASYNC240
    assert "harness9/" not in git(root, "branch", "--list")
    assert (await daemon.request("agent/tasks", {}))["tasks"] == []


async def test_a_conflict_is_listed_and_nothing_is_written(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    daemon = await daemon_on(start, fake_llm, root)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "two\n", "TWO (task)\n", "c1"),
        Call("write_file", {"path": "other.txt", "content": "task's\n"}, id="c2"),
    ]))
    (root / "a.txt").write_text("one\nTWO (user)\nthree\nfour\nfive\n")
    applied = await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is False and applied["conflicts"] == ["a.txt"]
    assert "TWO (task)" in applied["hunks"][0]["text"]
    assert (root / "a.txt").read_text() == "one\nTWO (user)\nthree\nfour\nfive\n"
    assert not (root / "other.txt").exists()


async def test_tasks_outlive_the_daemon(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    first = await daemon_on(start, fake_llm, root)
    result = await a_task(first, fake_llm, Reply(tool_calls=[
        edit("a.txt", "three\n", "THREE (task)\n", "c1")]))
    await first.client.shutdown_session()
    second = await daemon_on(start, fake_llm, root)
    listed = (await second.request("agent/tasks", {}))["tasks"]
    assert [(t["sessionId"], t["changedFiles"]) for t in listed] == [
        (result["sessionId"], ["a.txt"])]
    applied = await second.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is True
    assert (root / "a.txt").read_text() == "one\ntwo\nTHREE (task)\nfour\nfive\n"


async def test_a_workspace_outside_git_is_refused_naming_isolation(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon = await daemon_on(start, fake_llm, workspace)
    with pytest.raises(JsonRpcInvalidParams, match="isolation"):
        await daemon.run(prompt="work", isolation="worktree")
    with pytest.raises(JsonRpcInvalidParams, match="isolation"):
        await daemon.run(prompt="work", isolation="container")
    assert fake_llm.requests == []


def harness9_tasks(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`harness9 tasks ARGS…` in the terminal, with the test's state folder."""
    return subprocess.run([sys.executable, "-m", "harness9", "tasks", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
                          env={**os.environ, "HARNESS9_LANGUAGE_SERVERS": "{}"}, check=False)


async def test_the_terminal_lists_applies_and_discards_tasks(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    daemon = await daemon_on(start, fake_llm, root)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "four\n", "FOUR (task)\n", "c1")]))
    await daemon.client.shutdown_session()
    session = result["sessionId"]
    listed = await asyncio.to_thread(harness9_tasks, cwd=root)
    assert listed.returncode == 0, listed.stderr
    assert session in listed.stdout and "+1" in listed.stdout and "-1" in listed.stdout
    assert "work in the background" in listed.stdout  # the task's title
    applied = await asyncio.to_thread(harness9_tasks, "apply", session, "--json", cwd=root)
    assert applied.returncode == 0, applied.stderr
    assert json.loads(applied.stdout)["files"] == ["a.txt"]
    assert (root / "a.txt").read_text() == "one\ntwo\nthree\nFOUR (task)\nfive\n"
    discarded = await asyncio.to_thread(harness9_tasks, "discard", session, cwd=root)
    assert discarded.returncode == 0, discarded.stderr
    assert "harness9/" not in git(root, "branch", "--list")
    unknown = await asyncio.to_thread(harness9_tasks, "apply", session, cwd=root)
    assert unknown.returncode == 1 and "sessionId" in unknown.stderr


async def test_an_open_buffer_gets_the_task_merged_with_its_unsaved_text_as_one_edit(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    daemon = await daemon_on(start, fake_llm, root)
    editor = Editor(daemon)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "one\n", "ONE (task)\n", "c1")]))
    editor.open(root / "a.txt", "one\ntwo\nthree\nfour\nfive\n")
    editor.type(root / "a.txt", 4, "typed, not saved\n")
    applied = await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert applied["applied"] is True and applied["files"] == ["a.txt"]
    merged = "ONE (task)\ntwo\nthree\nfour\ntyped, not saved\nfive\n"
    assert editor.text(root / "a.txt") == merged
    assert len(editor.edits) == 1
    assert (root / "a.txt").read_text() == merged


async def test_a_write_that_fails_midway_puts_back_the_files_written_before_it(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    (root / "z.txt").write_text("z\n")
    git(root, "add", "z.txt")
    git(root, "commit", "-q", "-m", "z")
    daemon = await daemon_on(start, fake_llm, root)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "one\n", "ONE (task)\n", "c1"), edit("z.txt", "z\n", "Z\n", "c2")]))
    # z.txt is open in an editor that refuses the edit: a.txt was written by then.
    editor = Editor(daemon, applied=False)
    editor.open(root / "z.txt", "z\n")
    with pytest.raises(JsonRpcException, match="not applied"):
        await daemon.request("agent/applyTask", {"sessionId": result["sessionId"]})
    assert len(editor.edits) == 1
    assert (root / "a.txt").read_text() == "one\ntwo\nthree\nfour\nfive\n"
    assert editor.text(root / "z.txt") == "z\n" and (root / "z.txt").read_text() == "z\n"


async def test_a_later_run_on_the_tasks_session_goes_on_in_its_worktree(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    daemon = await daemon_on(start, fake_llm, root)
    first = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "one\n", "ONE (task)\n", "c1")]))
    fake_llm.script([Reply(tool_calls=[edit("a.txt", "two\n", "TWO (task)\n", "c2")]),
                     Reply("done")])
    second = await daemon.run(prompt="go on", sessionId=first["sessionId"])
    assert second["status"] == "completed"
    tree = Path(started(daemon, second["runId"])["worktree"]["path"])
    assert (tree / "a.txt").read_text().startswith("ONE (task)\nTWO (task)\n")
    assert (root / "a.txt").read_text() == "one\ntwo\nthree\nfour\nfive\n"
    [task] = (await daemon.request("agent/tasks", {}))["tasks"]
    assert task["status"] == "completed" and task["insertions"] == 2


async def test_a_client_of_another_workspace_neither_sees_nor_applies_the_task(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    root = repository(workspace)
    daemon = await daemon_on(start, fake_llm, root)
    result = await a_task(daemon, fake_llm, Reply(tool_calls=[
        edit("a.txt", "one\n", "ONE (task)\n", "c1")]))
    other = tmp_path / "other"
    other.mkdir()
    stranger = await daemon_on(start, fake_llm, other)
    assert (await stranger.request("agent/tasks", {}))["tasks"] == []
    for method in ("agent/applyTask", "agent/discardTask"):
        with pytest.raises(JsonRpcInvalidParams, match="sessionId"):
            await stranger.request(method, {"sessionId": result["sessionId"]})
    assert (root / "a.txt").read_text() == "one\ntwo\nthree\nfour\nfive\n"
    assert len((await daemon.request("agent/tasks", {}))["tasks"]) == 1


async def test_three_tasks_started_at_once_each_work_in_their_own_worktree(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    for n in range(200):  # enough files that the worktrees are made at the same time
        (root / f"f{n}.txt").write_text(f"{n}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "files")
    fake_llm.responder = Router({
        f"task {n}": [Reply(tool_calls=[Call("write_file", {"path": f"by{n}.txt",
                                                              "content": f"{n}\n"}, id="c1")]),
                      Reply("done")] for n in range(3)})
    daemon = await daemon_on(start, fake_llm, root)
    results = await asyncio.gather(*(daemon.run(prompt=f"task {n}", isolation="worktree")
                                     for n in range(3)))
    assert [r["status"] for r in results] == ["completed"] * 3
    trees = {started(daemon, r["runId"])["worktree"]["path"] for r in results}
    assert len(trees) == 3
    tasks = (await daemon.request("agent/tasks", {}))["tasks"]
    listed = {t["sessionId"]: t["changedFiles"] for t in tasks}
    assert sorted(listed.values()) == [["by0.txt"], ["by1.txt"], ["by2.txt"]]
    # Each task is named by its own prompt, whatever order the daemon started them in.
    assert sorted((t["title"], t["changedFiles"]) for t in tasks) == [
        (f"task {n}", [f"by{n}.txt"]) for n in range(3)]
