"""Child agents end to end: the `task` tool over the wire, with the daemon as a subprocess, the
fake LLM answering the parent and each child from a script of its own, and real tools."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from harness9.process.sandbox import Mechanism, availability
from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, Fail, FakeLLM, Reply
from tests.fakellm.router import Router

# Explore's commands run read-only in the OS sandbox: on here (the suite's default is off).
pytestmark = [pytest.mark.timeout(60),
              pytest.mark.skipif(availability().mechanism is not Mechanism.BWRAP,
                                 reason="needs bubblewrap")]
QUIET = {"HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-4o",
         "HARNESS9_LANGUAGE_SERVERS": "{}", "HARNESS9_SANDBOX": "workspace-write"}


def task(prompt: str, call_id: str, **more: str) -> Call:
    return Call("task", {"description": f"task {call_id}", "prompt": prompt, **more},
                id=call_id)


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path, router: Router,
                    **env: str) -> Daemon:
    fake.responder = router
    return await start(root, env={**fake.env(), **QUIET, **env}, approval_requests=True)


def of_kind(daemon: Daemon, run_id: str, *wanted: str) -> list[dict[str, Any]]:
    return [n for n in daemon.of_run(run_id) if n["kind"] in wanted]


def tool_names(request: Any) -> set[str]:
    return {tool["function"]["name"] for tool in request.body.get("tools", [])}


def tool_message(request: Any, call_id: str) -> str:
    return next(str(m["content"]) for m in request.messages
                if m["role"] == "tool" and m.get("tool_call_id") == call_id)


async def test_a_child_runs_with_its_own_context_and_read_tools_and_its_answer_returns(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    router = Router({
        "find alpha": [Reply("", [task("CHILD look for alpha", "t1")]), Reply("parent done")],
        "CHILD": [Reply("reading", [Call("read_file", {"path": "a.txt"}, id="c1"),
                                    Call("bash", {"command": "touch planted.txt"}, id="c2")],
                        usage=(100, 10)),
                  Reply("alpha is in a.txt, line 1", usage=(200, 20))],
    })
    daemon = await daemon_on(start, fake_llm, workspace, router)
    result = await daemon.run(prompt="find alpha")
    assert result["text"] == "parent done"
    child_first, _ = router.requests["CHILD"]
    assert "find alpha" not in json.dumps(child_first.messages)  # nothing of the parent's
    assert "exploring agent" in child_first.messages[0]["content"]
    offered = tool_names(child_first)
    assert {"read_file", "bash"} <= offered
    assert not offered & {"write_file", "edit_file", "task", "update_plan"}
    assert not (workspace / "planted.txt").exists()  # its commands run read-only
    parent_second = router.requests["find alpha"][1]
    assert tool_message(parent_second, "t1") == "alpha is in a.txt, line 1"
    assert "task" in tool_names(router.requests["find alpha"][0])
    assert "# Delegating" in router.requests["find alpha"][0].messages[0]["content"]
    rows = [n for n in daemon.of_run(result["runId"]) if "parentToolCallId" in n]
    assert {(n["parentToolCallId"], n["agent"]) for n in rows} == {("t1", "explore")}
    assert [n["kind"] for n in rows if n.get("toolCallId") != "t1/c2"] == [
        "assistant_message", "tool_started", "tool_completed", "assistant_message"]
    assert rows[1]["toolCallId"] == "t1/c1" and rows[1]["tool"] == "read_file"
    done = of_kind(daemon, result["runId"], "tool_completed")[-1]
    assert (done["toolCallId"], done["agent"]) == ("t1", "explore")
    assert done["usage"]["inputTokens"] == 300 and done["usage"]["outputTokens"] == 30
    assert "costUsd" in done
    assert result["usage"]["inputTokens"] >= 300  # the parent's totals include the child's
    shown = await daemon.request("agent/session", {"sessionId": result["sessionId"]})
    task_call = next(c for m in shown["messages"] for c in m.get("toolCalls", [])
                     if c["id"] == "t1")
    transcript = task_call["outcome"]["transcript"]
    assert [m["role"] for m in transcript] == ["user", "assistant", "user", "user",
                                               "assistant"]
    assert transcript[-1]["content"] == "alpha is in a.txt, line 1"


async def test_in_read_only_mode_explore_is_offered_no_commands(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    router = Router({"ro": [Reply("", [task("CHILD look", "t1")]), Reply("ok")],
                     "CHILD": [Reply("looked")]})
    daemon = await daemon_on(start, fake_llm, workspace, router,
                             HARNESS9_APPROVALS="read-only")
    assert (await daemon.run(prompt="ro"))["text"] == "ok"
    offered = tool_names(router.requests["CHILD"][0])
    assert "read_file" in offered and "bash" not in offered


async def test_children_run_at_most_max_subagents_at_once(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    children = {f"CHILD-{n}": [Reply("", [Call("bash", {"command": "sleep 0.5"}, id="s")]),
                               Reply(f"child {n} done")] for n in range(3)}
    router = Router({"three": [Reply("", [task(f"CHILD-{n}", f"t{n}") for n in range(3)]),
                               Reply("all done")], **children})
    daemon = await daemon_on(start, fake_llm, workspace, router)
    result = await daemon.run(prompt="three", maxSubagents=2)
    assert result["text"] == "all done"
    running, most = 0, 0
    for note in daemon.of_run(result["runId"]):
        if note.get("parentToolCallId") and note.get("tool") == "bash":
            running += {"tool_started": 1, "tool_completed": -1}.get(note["kind"], 0)
            most = max(most, running)
    assert most == 2
    answers = [tool_message(router.requests["three"][1], f"t{n}") for n in range(3)]
    assert answers == ["child 0 done", "child 1 done", "child 2 done"]


async def test_a_childs_question_reaches_the_editor_marked_and_a_rejection_is_its_error(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    router = Router({
        "ask": [Reply("", [task("CHILD run it", "t1", agent="general")]), Reply("ok")],
        "CHILD": [Reply("", [Call("bash", {"command": "ls"}, id="b1")]),
                  Reply("", [Call("bash", {"command": "cat a.txt"}, id="b2")]),
                  Reply("could list, could not read")],
    })
    daemon = await daemon_on(start, fake_llm, workspace, router, HARNESS9_APPROVALS="ask")
    asked: list[dict[str, Any]] = []
    answers = [{"decision": "allow_once"}, {"decision": "reject", "message": "not that"}]

    @daemon.client.feature("agent/requestApproval")
    async def _ask(ls: Any, params: Any) -> dict[str, Any]:
        asked.append(dict(params))
        return answers.pop(0)

    result = await daemon.run(prompt="ask")
    assert [(q["toolCallId"], q["parentToolCallId"], q["agent"]) for q in asked] == [
        ("t1/b1", "t1", "general"), ("t1/b2", "t1", "general")]
    failed = of_kind(daemon, result["runId"], "tool_failed")
    assert [(n["toolCallId"], n["reason"], n.get("parentToolCallId")) for n in failed] == [
        ("t1/b2", "rejected", "t1")]
    done = of_kind(daemon, result["runId"], "tool_completed")[-1]
    assert done["toolCallId"] == "t1" and done["output"] == "could list, could not read"


async def test_a_stock_clients_question_of_a_child_names_its_agent(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.responder = Router({
        "ask": [Reply("", [task("CHILD run it", "t1", agent="general")]), Reply("ok")],
        "CHILD": [Reply("", [Call("bash", {"command": "ls"}, id="b1")]), Reply("listed")],
    })
    daemon = await start(workspace, env={**fake_llm.env(), **QUIET, "HARNESS9_APPROVALS": "ask"})
    questions: list[str] = []

    @daemon.client.feature("window/showMessageRequest")
    def _show(ls: Any, params: Any) -> Any:
        questions.append(params.message)
        return {"title": "Allow once"}

    await daemon.run(prompt="ask")
    assert questions == ["harness9's general agent asks to run bash: ls"]


async def test_cancelling_the_parent_cancels_its_children(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    children = {f"CHILD-{n}": [Reply("", [Call("bash", {"command": "sleep 30"}, id="s")])]
                for n in range(2)}
    router = Router({"two": [Reply("", [task(f"CHILD-{n}", f"t{n}") for n in range(2)])],
                     **children})
    daemon = await daemon_on(start, fake_llm, workspace, router)
    running = asyncio.ensure_future(daemon.run(prompt="two"))
    await daemon.wait_for(lambda n: n["kind"] == "tool_started" and n.get("tool") == "bash"
                          and n["toolCallId"] == "t1/s")
    await daemon.wait_for(lambda n: n["kind"] == "tool_started" and n["toolCallId"] == "t0/s")
    run_id = daemon.progress[-1]["runId"]
    began = time.monotonic()
    assert await daemon.request("agent/cancel", {"runId": run_id}) == {"cancelled": True}
    with pytest.raises(Exception, match="cancel"):
        await running
    assert time.monotonic() - began < 10
    failed = {n["toolCallId"]: n["reason"] for n in of_kind(daemon, run_id, "tool_failed")}
    assert failed == {"t0/s": "cancelled", "t1/s": "cancelled", "t0": "cancelled",
                      "t1": "cancelled"}
    assert of_kind(daemon, run_id, "run_finished")[-1]["status"] == "cancelled"


async def test_a_childs_failure_is_the_tasks_error_with_what_it_found(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    router = Router({
        "fail": [Reply("", [task("CHILD break", "t1")]), Reply("noted")],
        "CHILD": [Reply("alpha is in a.txt so far", [Call("read_file", {"path": "a.txt"})]),
                  Fail(400, "the model is gone")],
    })
    daemon = await daemon_on(start, fake_llm, workspace, router)
    result = await daemon.run(prompt="fail")
    assert result["text"] == "noted"
    failed = of_kind(daemon, result["runId"], "tool_failed")[-1]
    assert (failed["toolCallId"], failed["reason"], failed["agent"]) == ("t1", "error", "explore")
    said = tool_message(router.requests["fail"][1], "t1")
    assert "explore agent failed" in said and "the model is gone" in said
    assert "alpha is in a.txt so far" in said


async def test_a_child_out_of_turns_fails_its_task_with_what_it_found(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    router = Router({
        "short": [Reply("", [task("CHILD keep going", "t1")])],
        "CHILD": [Reply("a.txt holds alpha", [Call("read_file", {"path": "a.txt"})])],
    })
    daemon = await daemon_on(start, fake_llm, workspace, router)
    result = await daemon.run(prompt="short", maxTurns=1)
    failed = of_kind(daemon, result["runId"], "tool_failed")[-1]
    assert failed["toolCallId"] == "t1"
    assert "reached maxTurns (1 turns)" in failed["output"]
    assert "a.txt holds alpha" in failed["output"]


async def test_a_custom_agent_is_listed_and_its_tools_are_checked(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    agents = workspace / ".harness9" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a file\ntools: [read_file]\n---\n"
        "You review code. Say REVIEWED first.\n")
    (agents / "broken.md").write_text("---\ntools: read_file, fly\n---\nNo.\n")
    user = workspace.parent / "config" / "harness9" / "agents"
    user.mkdir(parents=True)
    (user / "reviewer.md").write_text("---\ndescription: the user's, hidden\n---\nNo.\n")
    (user / "helper.md").write_text("Helps with anything.\n")
    router = Router({
        "review": [Reply("", [task("CHILD review a.txt", "t1", agent="reviewer"),
                              task("CHILD-B", "t2", agent="broken"),
                              task("CHILD-C", "t3", isolation="worktree")]),
                   Reply("reviewed")],
        "CHILD review": [Reply("REVIEWED: fine")],
    })
    daemon = await daemon_on(start, fake_llm, workspace, router,
                             XDG_CONFIG_HOME=str(workspace.parent / "config"))
    listed = {a["name"]: a for a in (await daemon.request("agent/agents", {}))["agents"]}
    assert list(listed) == ["explore", "general", "broken", "reviewer", "helper"]
    assert (listed["reviewer"]["source"], listed["reviewer"]["tools"]) == (
        "workspace", ["read_file"])
    assert (listed["helper"]["source"], listed["helper"]["description"]) == (
        "user", "Helps with anything.")
    tools = (await daemon.request("agent/tools", {}))["tools"]
    task_tool = next(t for t in tools if t["name"] == "task")
    assert task_tool["kind"] == "think"
    assert task_tool["inputSchema"]["properties"]["agent"]["enum"] == list(listed)
    result = await daemon.run(prompt="review")
    child = router.requests["CHILD review"][0]
    assert tool_names(child) == {"read_file"}
    assert "You review code." in child.messages[0]["content"]
    second = router.requests["review"][1]
    assert tool_message(second, "t1") == "REVIEWED: fine"
    assert "names tools it cannot have: fly" in tool_message(second, "t2")
    assert "isolation \"worktree\" needs a git repository" in tool_message(second, "t3")
    assert result["text"] == "reviewed"


# What a child call's live end carries that is not part of its stored outcome: the progress'
# envelope, who it is (the stored call says), whose child it is (its task), and its output (its
# result message).
NOT_KEPT = {"runId", "sessionId", "seq", "kind", "toolCallId", "tool", "toolKind", "arguments",
            "turn", "output", "parentToolCallId", "agent", "reason"}


async def test_a_restored_task_shows_its_childs_calls_as_they_ended_live(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    router = Router({
        "look twice": [Reply("", [task("CHILD look", "t1")]), Reply("parent done")],
        "CHILD": [Reply("looking", [Call("read_file", {"path": "a.txt"}, id="ok1"),
                                    Call("bash", {"command": "ls no-such-dir"}, id="bad2"),
                                    Call("read_file", {"path": "missing.txt"}, id="bad3")]),
                  Reply("a.txt holds alpha; the rest is missing")],
    })
    daemon = await daemon_on(start, fake_llm, workspace, router)
    result = await daemon.run(prompt="look twice")
    live = {n["toolCallId"]: n for n in of_kind(daemon, result["runId"], "tool_completed",
                                                  "tool_failed")
            if n.get("parentToolCallId") == "t1"}
    assert set(live) == {"t1/ok1", "t1/bad2", "t1/bad3"}
    assert live["t1/bad2"]["exitCode"] != 0 and live["t1/bad3"]["kind"] == "tool_failed"
    shown = await daemon.request("agent/session", {"sessionId": result["sessionId"]})
    task_call = next(c for m in shown["messages"] for c in m.get("toolCalls", [])
                     if c["id"] == "t1")
    stored = {c.get("wireId", c["id"]): c for m in task_call["outcome"]["transcript"]
              for c in m.get("toolCalls", [])}
    assert set(stored) == set(live)
    for call_id, ended in live.items():
        kept = stored[call_id]
        assert (kept["name"], kept["kind"]) == (ended["tool"], ended["toolKind"])
        status = "completed" if ended["kind"] == "tool_completed" else ended["reason"]
        told = {k: v for k, v in ended.items() if k not in NOT_KEPT}
        assert kept["outcome"] == {"status": status, "turn": ended["turn"], **told}, call_id
