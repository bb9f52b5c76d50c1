"""Steering, queueing and the plan over the wire: agent/steer, agent/queue, agent/unqueue, the
progress kinds steered, queued, dequeued and plan, and agent/session's plan."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    return await start(root, env=env)


def kinds(daemon: Daemon, run_id: str) -> list[str]:
    return [p["kind"] for p in daemon.of_run(run_id)]


def last_user_text(fake: FakeLLM, index: int) -> str:
    users = [m for m in fake.requests[index].messages if m["role"] == "user"]
    return str(users[-1]["content"])


async def test_a_steer_lands_after_the_batch_and_the_run_goes_on(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "sleep 0.5; echo ok"})]),
                     Reply("done, docs too")])
    daemon = await daemon_on(start, fake_llm, workspace)
    running = asyncio.ensure_future(daemon.run(prompt="fix it"))
    await daemon.wait_for(lambda p: p["kind"] == "tool_started")
    run_id = daemon.progress[-1]["runId"]
    (workspace / "notes.md").write_text("remember the changelog\n")
    answer = await daemon.request("agent/steer", {
        "runId": run_id, "prompt": "also update the docs",
        "context": [{"uri": (workspace / "notes.md").as_uri()}],
    })
    assert answer == {"delivered": "run", "runId": run_id}
    result = await running
    assert result["text"] == "done, docs too"
    seen = kinds(daemon, run_id)
    steered = seen.index("steered")
    assert seen.index("observation") < steered < seen.index("turn_started", steered)
    assert "turn_started" not in seen[seen.index("observation"):steered]
    note = daemon.of_run(run_id)[steered]
    assert (note["turn"], note["text"]) == (2, "also update the docs")
    sent = last_user_text(fake_llm, 1)
    assert sent.startswith("also update the docs") and "remember the changelog" in sent
    shown = await daemon.request("agent/session", {"sessionId": result["sessionId"]})
    assert [m["role"] for m in shown["messages"]][-3:] == ["user", "user", "assistant"]


async def test_a_second_prompt_is_queued_listed_and_removable(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "sleep 1"})]), Reply("first"),
                     Reply("second")])
    daemon = await daemon_on(start, fake_llm, workspace)
    first = asyncio.ensure_future(daemon.run(prompt="one"))
    await daemon.wait_for(lambda p: p["kind"] == "tool_started")
    session_id = daemon.progress[-1]["sessionId"]
    second = asyncio.ensure_future(daemon.run(prompt="two", sessionId=session_id))
    third = asyncio.ensure_future(daemon.run(prompt="three", sessionId=session_id))
    await daemon.wait_for(lambda p: p["kind"] == "queued" and p["position"] == 2)
    listed = (await daemon.request("agent/queue", {"sessionId": session_id}))["queued"]
    assert [(q["prompt"], q["position"]) for q in listed] == [("two", 1), ("three", 2)]
    removed = await daemon.request("agent/unqueue", {"sessionId": session_id,
                                                     "queueId": listed[1]["queueId"]})
    assert removed == {"removed": True}
    with pytest.raises(JsonRpcException) as cancelled:
        await third
    assert cancelled.value.code == -32800 and cancelled.value.data["reason"] == "removed"
    assert kinds(daemon, listed[1]["runId"]) == ["queued", "dequeued", "run_finished"]
    assert (await first)["text"] == "first"
    answer = await second
    assert answer["text"] == "second" and answer["runId"] == listed[0]["runId"]
    seen = kinds(daemon, answer["runId"])
    assert seen[:3] == ["queued", "dequeued", "run_started"]
    assert daemon.of_run(answer["runId"])[1]["reason"] == "started"
    fake_llm.script([Reply("x", first_byte_delay=1.0)])
    fourth = asyncio.ensure_future(daemon.run(prompt="x", sessionId=session_id))
    result_ids = {p["runId"] for p in daemon.progress}
    await daemon.wait_for(lambda p: p["kind"] == "turn_started" and p["runId"] not in result_ids)
    with pytest.raises(JsonRpcException) as busy:  # queue: false keeps the 1.1 answer
        await daemon.run(prompt="y", sessionId=session_id, queue=False)
    assert busy.value.data["kind"] == "busy" and busy.value.data["runId"] not in result_ids
    assert (await fourth)["text"] == "x"


async def test_a_steer_too_late_becomes_the_next_run(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "sleep 0.5"})]),
                     Reply("took the steer")])
    daemon = await daemon_on(start, fake_llm, workspace)
    running = asyncio.ensure_future(daemon.run(prompt="one turn only", maxTurns=1))
    await daemon.wait_for(lambda p: p["kind"] == "tool_started")
    run_id = daemon.progress[-1]["runId"]
    answer = await daemon.request("agent/steer", {"runId": run_id, "prompt": "then this"})
    assert answer["delivered"] == "next" and answer["runId"] != run_id
    assert (await running)["status"] == "max_turns"
    await daemon.wait_for(lambda p: p["runId"] == answer["runId"]
                          and p["kind"] == "run_finished")
    ended = daemon.of_run(answer["runId"])[-1]
    assert ended["status"] == "completed"
    assert kinds(daemon, answer["runId"])[:3] == ["queued", "dequeued", "run_started"]
    assert last_user_text(fake_llm, 1) == "then this"


async def test_the_plan_is_sent_as_progress_and_kept_with_the_session(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    items = [{"text": "Read the code", "status": "done"},
             {"text": "Write the fix", "status": "in_progress"}]
    fake_llm.script([Reply("", [Call("update_plan", {"items": items, "note": "small"})]),
                     Reply("planned")])
    daemon = await daemon_on(start, fake_llm, workspace)
    result = await daemon.run(prompt="plan it")
    plan = [p for p in daemon.of_run(result["runId"]) if p["kind"] == "plan"]
    assert [(p["turn"], p["items"], p["note"]) for p in plan] == [(1, items, "small")]
    started = next(p for p in daemon.progress if p["kind"] == "tool_started")
    assert started["toolKind"] == "think"
    shown = await daemon.request("agent/session", {"sessionId": result["sessionId"]})
    assert shown["plan"] == {"items": items, "note": "small"}
    tools = (await daemon.request("agent/tools", {}))["tools"]
    assert {"name": "update_plan", "kind": "think"}.items() <= next(
        t for t in tools if t["name"] == "update_plan").items()


async def test_plan_mode_over_the_wire_refuses_changes(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("write_file", {"path": "x.txt", "content": "x"})]),
                     Reply("a plan")])
    daemon = await daemon_on(start, fake_llm, workspace)
    result = await daemon.run(prompt="plan", plan=True)
    failed = next(p for p in daemon.of_run(result["runId"]) if p["kind"] == "tool_failed")
    assert failed["reason"] == "unknown_tool"  # not even offered
    assert not (workspace / "x.txt").exists()
    offered = [t["function"]["name"] for t in fake_llm.requests[0].body["tools"]]
    assert "write_file" not in offered and "update_plan" in offered


@pytest.mark.parametrize(("method", "params", "field"), [
    ("agent/steer", {"prompt": "x"}, "runId"),
    ("agent/steer", {"runId": "r-nope", "prompt": "x"}, "runId"),
    ("agent/steer", {"runId": "r-1", "prompt": "  "}, "prompt"),
    ("agent/run", {"prompt": "x", "queue": "yes"}, "queue"),
    ("agent/run", {"prompt": "x", "plan": True, "executePlan": True}, "executePlan"),
    ("agent/queue", {}, "sessionId"),
    ("agent/unqueue", {"sessionId": "s-1"}, "queueId"),
])
async def test_bad_params_name_the_field(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, method: str,
    params: dict[str, Any], field: str,
) -> None:
    daemon = await daemon_on(start, fake_llm, workspace)
    with pytest.raises(JsonRpcException) as bad:
        await daemon.request(method, params)
    assert bad.value.code == -32602 and field in str(bad.value)


async def test_initialize_lists_the_new_methods_and_kinds(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon = await daemon_on(start, fake_llm, workspace)
    ours = daemon.initialized.capabilities.experimental["harness9"]
    assert {"agent/steer", "agent/queue", "agent/unqueue"} <= set(ours["methods"])
    assert {"steered", "queued", "dequeued", "plan"} <= set(ours["progressKinds"])


async def test_a_run_of_a_workspace_the_client_left_cannot_be_steered(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    fake_llm.script([Reply("", [Call("bash", {"command": "sleep 1"})]), Reply("done")])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai"}
    daemon = await start(workspace, env=env, folders=[workspace, other])
    running = asyncio.ensure_future(daemon.run(prompt="work", workspaceFolder=other.as_uri()))
    await daemon.wait_for(lambda p: p["kind"] == "tool_started")
    run_id = daemon.progress[-1]["runId"]
    removed = types.WorkspaceFolder(uri=other.as_uri(), name=other.name)
    daemon.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[], removed=[removed])))
    with pytest.raises(JsonRpcException) as refused:
        await daemon.request("agent/steer", {"runId": run_id, "prompt": "read ~/.ssh"})
    assert refused.value.code == -32602 and str(refused.value).count("runId") >= 1
    assert (await running)["text"] == "done"
    assert "read ~/.ssh" not in str(fake_llm.requests[-1].messages)
