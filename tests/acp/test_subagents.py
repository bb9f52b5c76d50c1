"""Child agents over ACP: a task is one tool call of kind `think` whose content streams the
child's rows, and a child's question reaches the client as a question about that call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.router import Router
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Reply

pytestmark = pytest.mark.timeout(60)
QUIET = {"HARNESS9_LANGUAGE_SERVERS": "{}"}


def task(prompt: str, call_id: str, agent: str = "explore") -> Call:
    return Call("task", {"description": "look around", "prompt": prompt, "agent": agent},
                id=call_id)


async def test_a_task_is_one_think_call_whose_content_streams_the_childs_rows(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.responder = Router({
        "look": [Reply("", [task("CHILD read a.txt", "t1")]), Reply("it says alpha")],
        "CHILD": [Reply("reading it", [Call("read_file", {"path": "a.txt"}, id="r1")]),
                  Reply("a.txt says alpha")],
    })
    agent = await start(env=openai_env(fake_llm, **QUIET))
    session = await agent.new_session(workspace)
    assert (await agent.prompt(session, "look")).stop_reason == "end_turn"
    updates = agent.client.tool_updates(session, "t1")
    assert updates[0]["sessionUpdate"] == "tool_call" and updates[0]["kind"] == "think"
    assert updates[0]["title"] == "task: look around"
    texts = [u["content"][0]["content"]["text"] for u in updates[1:] if u.get("content")]
    assert "reading it\n▸ read_file: a.txt" in texts
    assert "reading it\n✓ read_file: a.txt" in texts
    last = updates[-1]
    assert last["status"] == "completed"
    assert [c["content"]["text"] for c in last["content"]] == [
        "reading it\n✓ read_file: a.txt", "a.txt says alpha"]
    # the child's calls are rows of the task, never tool calls of their own
    shown = {u["toolCallId"] for u in agent.client.of(session)
             if u["sessionUpdate"] == "tool_call"}
    assert shown == {"t1"}
    await agent.end()
    # loaded again: the task's rows come back from the child's stored transcript
    again = await start(env=openai_env(fake_llm, **QUIET))
    await again.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    replayed = again.client.tool_updates(session, "t1")
    assert [c["content"]["text"] for c in replayed[-1]["content"]] == [
        "reading it\n✓ read_file: a.txt", "a.txt says alpha"]


async def test_a_childs_question_asks_about_its_task_call(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.responder = Router({
        "run": [Reply("", [task("CHILD echo", "t1", agent="general")]), Reply("ok")],
        "CHILD": [Reply("", [Call("bash", {"command": "echo hi"}, id="b1")]),
                  Reply("it was refused")],
    })
    agent = await start(env=openai_env(fake_llm, HARNESS9_APPROVALS="ask", **QUIET))
    session = await agent.new_session(workspace)
    agent.client.answers = ["reject"]
    assert (await agent.prompt(session, "run")).stop_reason == "end_turn"
    [asked] = agent.client.permissions
    call = asked["toolCall"]
    assert call["toolCallId"] == "t1" and asked["callAnnounced"]
    assert call["content"][0]["content"]["text"] == (
        "The general agent asks to run bash: echo hi")
    assert call["_meta"]["harness9"] == {"toolCallId": "t1/b1", "parentToolCallId": "t1",
                                         "agent": "general",
                                         "rawInput": {"command": "echo hi"}}
    last = agent.client.tool_updates(session, "t1")[-1]
    assert last["status"] == "completed"
    assert [c["content"]["text"] for c in last["content"]] == [
        "✗ bash: echo hi (rejected)", "it was refused"]


async def test_a_loaded_task_shows_its_childs_failed_calls_as_they_ended_live(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.responder = Router({
        "look": [Reply("", [task("CHILD look", "t1", agent="general")]), Reply("done")],
        "CHILD": [Reply("looking", [Call("read_file", {"path": "a.txt"}, id="ok1"),
                                    Call("bash", {"command": "ls no-such-dir"}, id="bad2"),
                                    Call("read_file", {"path": "missing.txt"}, id="bad3")]),
                  Reply("only a.txt is there")],
    })
    env = openai_env(fake_llm, HARNESS9_APPROVALS="auto", **QUIET)
    agent = await start(env=env)
    session = await agent.new_session(workspace)
    assert (await agent.prompt(session, "look")).stop_reason == "end_turn"
    live = [c["content"]["text"] for c in agent.client.tool_updates(session, "t1")[-1]["content"]]
    # each call's row where the model wrote it (the reads started before the command)
    assert live[0].splitlines() == ["looking", "✓ read_file: a.txt",
                                    "✗ bash: ls no-such-dir (exit 2)",
                                    "✗ read_file: missing.txt (error)"]
    await agent.end()
    again = await start(env=env)
    await again.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    replayed = again.client.tool_updates(session, "t1")[-1]
    assert [c["content"]["text"] for c in replayed["content"]] == live
