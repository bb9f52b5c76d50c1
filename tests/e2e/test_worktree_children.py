"""`task` calls with isolation `worktree`, end to end: the daemon as a subprocess, real git, the
fake LLM answering the parent and each child from a script of its own. Each child works in a
worktree task of its own, the workspace untouched; the tasks it leaves are listed, applied and
discarded as any task; a child that changed nothing leaves none."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.task_repos import QUIET, edit, git, repository
from tests.fakellm import Call, FakeLLM, Reply
from tests.fakellm.router import Router

pytestmark = pytest.mark.timeout(60)
FIVE = "one\ntwo\nthree\nfour\nfive\n"


def task(prompt: str, call_id: str, **more: str) -> Call:
    return Call("task", {"description": f"task {call_id}", "prompt": prompt, **more},
                id=call_id)


def tool_message(request: Any, call_id: str) -> str:
    return next(str(m["content"]) for m in request.messages
                if m["role"] == "tool" and m.get("tool_call_id") == call_id)


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path, router: Router) -> Daemon:
    fake.responder = router
    return await start(root, env={**fake.env(), **QUIET})


async def test_isolated_children_each_leave_a_task_the_user_applies_or_discards(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    (root / "a.txt").write_text("one\ntwo\nthree\nfour\nfive (user)\n")  # uncommitted
    isolated = {"agent": "general", "isolation": "worktree"}
    router = Router({
        "split": [Reply("", [task("FIRST edit line one", "t1", **isolated),
                             task("SECOND edit line three", "t2", **isolated),
                             task("THIRD only look", "t3", **isolated)]),
                  Reply("split done")],
        "FIRST": [Reply("", [edit("a.txt", "one\n", "ONE (first)\n", "c1")]), Reply("one done")],
        "SECOND": [Reply("", [edit("a.txt", "three\n", "THREE (second)\n", "c1"),
                              Call("bash", {"command": "pwd > where.txt"}, id="c2")]),
                   Reply("three done")],
        "THIRD": [Reply("", [Call("read_file", {"path": "a.txt"}, id="c1")]),
                  Reply("looked")],
    })
    daemon = await daemon_on(start, fake_llm, root, router)
    result = await daemon.run(prompt="split the work")
    assert result["text"] == "split done"
    session = result["sessionId"]
    assert (root / "a.txt").read_text() == "one\ntwo\nthree\nfour\nfive (user)\n"
    assert not (root / "where.txt").exists()
    said = {call: tool_message(router.requests["split"][1], call) for call in ("t1", "t2", "t3")}
    assert said["t1"].startswith("one done") and f"background task {session}/t1" in said["t1"]
    assert "changed no files" in said["t3"]

    tasks = {t["sessionId"]: t for t in (await daemon.request("agent/tasks", {}))["tasks"]}
    assert sorted(tasks) == [f"{session}/t1", f"{session}/t2"]
    assert [tasks[f"{session}/{t}"]["title"] for t in ("t1", "t2")] == ["task t1", "task t2"]
    first, second = tasks[f"{session}/t1"], tasks[f"{session}/t2"]
    assert first["status"] == "completed" and first["changedFiles"] == ["a.txt"]
    assert sorted(second["changedFiles"]) == ["a.txt", "where.txt"]
    tree = Path(second["worktree"]["path"])
    assert first["worktree"]["path"] != str(tree)
    assert tree.is_relative_to(Path(os.environ["HARNESS9_STATE_DIR"]))
    assert (tree / "where.txt").read_text().strip() == str(tree.resolve())  # noqa: ASYNC240
    # Each child started from the workspace as it was, the user's change included.
    assert (tree / "a.txt").read_text() == "one\ntwo\nTHREE (second)\nfour\nfive (user)\n"

    # Another daemon (as after a restart) lists them from their records, and applies them.
    await daemon.client.shutdown_session()
    daemon = await daemon_on(start, fake_llm, root, router)
    listed = (await daemon.request("agent/tasks", {}))["tasks"]
    assert sorted(t["sessionId"] for t in listed) == [f"{session}/t1", f"{session}/t2"]
    applied = await daemon.request("agent/applyTask", {"sessionId": f"{session}/t1"})
    assert applied["applied"] is True and applied["files"] == ["a.txt"]
    assert (root / "a.txt").read_text() == "ONE (first)\ntwo\nthree\nfour\nfive (user)\n"
    await daemon.request("agent/discardTask", {"sessionId": f"{session}/t2"})
    assert not tree.exists()  # noqa: ASYNC240
    listed = (await daemon.request("agent/tasks", {}))["tasks"]
    assert [(t["sessionId"], t["status"]) for t in listed] == [(f"{session}/t1", "applied")]
    assert git(root, "branch", "--list").count("harness9/") == 1


async def test_an_isolated_child_is_refused_with_the_reason_where_it_cannot_be(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    isolated = {"agent": "general", "isolation": "worktree"}
    router = Router({
        "nested": [Reply("", [task("CHILD edit", "t1", **isolated)]), Reply("noted")],
    })
    daemon = await daemon_on(start, fake_llm, root, router)
    # The parent is a task itself: its children work in its worktree, not in one of their own.
    result = await daemon.run(prompt="nested tasks", isolation="worktree")
    assert result["text"] == "noted"
    said = tool_message(router.requests["nested"][1], "t1")
    assert "isolation" in said and "task's worktree already" in said
    assert [t["sessionId"] for t in (await daemon.request("agent/tasks", {}))["tasks"]] == [
        result["sessionId"]]


async def test_a_plan_mode_parent_gets_no_isolated_child_and_no_setup_runs(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    root = repository(workspace)
    (root / ".harness9").mkdir()
    (root / ".harness9" / "setup").write_text("touch setup-ran\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "setup")
    router = Router({
        "plan it": [Reply("", [task("CHILD edit", "t1", agent="general",
                                    isolation="worktree")]), Reply("planned")],
        "CHILD": [Reply("child done")],
    })
    daemon = await daemon_on(start, fake_llm, root, router)
    result = await daemon.run(prompt="plan it", plan=True)
    assert result["text"] == "planned"
    said = tool_message(router.requests["plan it"][1], "t1")
    assert said.startswith("Error: isolation") and "plan mode" in said
    assert router.requests["CHILD"] == []  # the child never ran
    # No worktree was made, so no setup ran (its file would have left a task behind).
    assert (await daemon.request("agent/tasks", {}))["tasks"] == []
