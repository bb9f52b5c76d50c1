"""Cancelling a turn, stored sessions (listing, loading after a restart), prompt content."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from acp import (
    RequestError,
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
)
from acp.schema import PromptResponse

from tests.acp.agent import AcpAgent, StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Reply


async def sleeping(
    start: StartAgent, fake: FakeLLM, workspace: Path
) -> tuple[AcpAgent, str, asyncio.Future[PromptResponse], int]:
    """An agent whose prompt runs `sleep 30` in bash (call `c-sleep`): the agent, the session,
    the prompt's answer to come, and the bash process group, once it is running."""
    marker = workspace / "pid"
    command = f"echo $$ > {marker}; sleep 30"
    fake.script([Reply("", [Call("bash", {"command": command}, id="c-sleep")])])
    agent = await start(env=openai_env(fake))
    session = await agent.new_session(workspace)
    turn = asyncio.ensure_future(agent.prompt(session, "sleep"))
    async with asyncio.timeout(10):
        while not (marker.exists() and marker.read_text().strip()):
            await asyncio.sleep(0.02)
    return agent, session, turn, int(marker.read_text())


async def test_cancel_mid_bash_kills_its_group_and_the_session_goes_on(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent, session, turn, group = await sleeping(start, fake_llm, workspace)
    await agent.conn.cancel(session_id=session)
    async with asyncio.timeout(10):
        answer = await turn
    assert answer.stop_reason == "cancelled"
    with pytest.raises(ProcessLookupError):
        os.killpg(group, 0)
    updates = agent.client.tool_updates(session, "c-sleep")
    assert updates[-1]["status"] == "failed"  # sent before the prompt answered
    fake_llm.script([Reply("second answer")])
    assert (await agent.prompt(session, "again")).stop_reason == "end_turn"
    assert agent.client.text(session).endswith("second answer")


async def test_a_second_prompt_while_one_runs_waits_and_runs_after_it(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "sleep 30"})]), Reply("second ran")])
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    turn = asyncio.ensure_future(agent.prompt(session, "sleep"))
    await agent.client.wait_for(lambda u: u.get("status") == "in_progress")
    queued = asyncio.ensure_future(agent.prompt(session, "again"))
    await asyncio.sleep(0.3)
    assert not queued.done() and len(fake_llm.requests) == 1  # it waits its turn
    await agent.conn.cancel(session_id=session)  # cancels the running prompt, not the queue
    assert (await turn).stop_reason == "cancelled"
    async with asyncio.timeout(20):
        assert (await queued).stop_reason == "end_turn"
    assert agent.client.text(session).endswith("second ran")
    assert fake_llm.requests[-1].messages[-1]["content"] == "again"


async def test_the_plan_arrives_as_plan_updates_and_again_on_load(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    items = [{"text": "Read", "status": "done"}, {"text": "Fix", "status": "in_progress"},
             {"text": "Test", "status": "pending"}]
    fake_llm.script([Reply("", [Call("update_plan", {"items": items}, id="c-plan")]),
                     Reply("planned")])
    first = await start(env=openai_env(fake_llm))
    session = await first.new_session(workspace)
    await first.prompt(session, "plan")
    plans = [u for u in first.client.of(session) if u["sessionUpdate"] == "plan"]
    expected = [{"content": "Read", "priority": "medium", "status": "completed"},
                {"content": "Fix", "priority": "medium", "status": "in_progress"},
                {"content": "Test", "priority": "medium", "status": "pending"}]
    assert [p["entries"] for p in plans] == [expected]
    assert first.client.tool_updates(session, "c-plan")[0]["kind"] == "think"
    await first.end()
    again = await start(env=openai_env(fake_llm))
    await again.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    replayed = again.client.of(session)
    assert replayed[-1]["sessionUpdate"] == "plan" and replayed[-1]["entries"] == expected


async def test_embedded_resources_and_workspace_links_reach_the_model(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("seen")])
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    embedded = resource_block(embedded_text_resource("file:///x/notes.md", "unsaved notes"))
    link = resource_link_block("a.txt", (workspace / "a.txt").as_uri())
    outside = resource_link_block("passwd", "file:///etc/passwd")
    await agent.prompt(session, "look", embedded, link, outside)
    prompt = fake_llm.requests[-1].messages[-1]["content"]
    assert '<context uri="file:///x/notes.md">\nunsaved notes\n</context>' in prompt
    assert f'<context uri="{(workspace / "a.txt").as_uri()}">\nalpha\n' in prompt
    assert "root:" not in prompt and "(not attached:" in prompt


async def test_a_client_that_goes_away_takes_the_tool_processes_with_it(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent, _, turn, group = await sleeping(start, fake_llm, workspace)
    assert await agent.end() == 0
    with pytest.raises(ProcessLookupError):
        os.killpg(group, 0)
    turn.cancel()


async def test_a_stored_session_is_listed_and_replayed_before_load_answers_after_a_restart(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("read_file", {"path": "a.txt"}, id="c-read")]),
                     Reply("it says alpha")])
    first = await start(env=openai_env(fake_llm))
    session = await first.new_session(workspace)
    await first.prompt(session, "what is in a.txt?")
    await first.end()
    again = await start(env=openai_env(fake_llm))
    listed = await again.conn.list_sessions(cwd=str(workspace))
    [info] = listed.sessions
    assert info.session_id == session and info.cwd == str(workspace)
    assert info.title == "what is in a.txt?" and info.updated_at is not None
    assert listed.next_cursor is None
    await again.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    replayed = again.client.of(session)  # all of it arrived before the answer
    kinds = [u["sessionUpdate"] for u in replayed]
    assert kinds == ["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]
    assert replayed[0]["content"]["text"] == "what is in a.txt?"
    assert replayed[1]["toolCallId"] == "c-read" and replayed[1]["kind"] == "read"
    assert replayed[2]["status"] == "completed"
    assert "alpha" in replayed[2]["content"][0]["content"]["text"]
    assert replayed[3]["content"]["text"] == "it says alpha"
    fake_llm.script([Reply("still alpha")])
    assert (await again.prompt(session, "and now?")).stop_reason == "end_turn"
    sent = fake_llm.requests[-1].messages
    assert any("what is in a.txt?" in str(m.get("content")) for m in sent)


async def test_a_session_another_process_runs_is_busy_and_an_idle_one_is_taken_over(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("hi"), Reply("slow", first_byte_delay=1.5), Reply("over here")])
    first = await start(env=openai_env(fake_llm))
    session = await first.new_session(workspace)
    await first.prompt(session, "hello")
    running = asyncio.create_task(first.prompt(session, "more"))
    while fake_llm.requests[-1].messages[-1]["content"] != "more":
        await asyncio.sleep(0.02)
    second = await start(env=openai_env(fake_llm))
    with pytest.raises(RequestError) as info:
        await second.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    assert info.value.code == -32803 and info.value.data["kind"] == "busy"
    assert (await running).stop_reason == "end_turn"
    # Idle in the first process now: the second takes it over, with every turn so far.
    await second.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    assert (await second.prompt(session, "from the second")).stop_reason == "end_turn"
    users = [m["content"] for m in fake_llm.requests[-1].messages if m["role"] == "user"]
    assert [str(u) for u in users][-3:] == ["hello", "more", "from the second"]


async def test_an_image_reaches_the_model_and_comes_back_on_load(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJ"
           "RU5ErkJggg==")
    fake_llm.script([Reply("a red dot")])
    agent = await start(env=openai_env(fake_llm, HARNESS9_MODEL="gpt-4o"))
    assert agent.initialized.agent_capabilities.prompt_capabilities.image is True
    session = await agent.new_session(workspace)
    await agent.prompt(session, "what is this?", image_block(png, "image/png"))
    assert fake_llm.requests[-1].messages[-1]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}},
    ]
    # A bad image names the prompt and reaches no model; so does a model without vision.
    with pytest.raises(RequestError) as info:
        await agent.prompt(session, "look", image_block("aGk=", "image/bmp"))
    assert info.value.code == -32602 and str(info.value).startswith("prompt: an image must be")
    with pytest.raises(RequestError) as mislabelled:
        await agent.prompt(session, "look", image_block(png, "image/webp"))
    assert mislabelled.value.code == -32602
    assert "declared image/webp holds image/png bytes" in str(mislabelled.value)
    assert len(fake_llm.requests) == 1
    await agent.end()
    again = await start(env=openai_env(fake_llm, HARNESS9_MODEL="gpt-3.5-turbo"))
    await again.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    shown = [u["content"] for u in again.client.of(session)
             if u["sessionUpdate"] == "user_message_chunk"]
    assert shown[1] == {"type": "image", "data": png, "mimeType": "image/png"}
    with pytest.raises(RequestError) as blind:
        await again.prompt(session, "and this?", image_block(png, "image/png"))
    assert blind.value.code == -32803 and "does not take images" in str(blind.value)
    assert len(fake_llm.requests) == 1


async def test_close_ends_the_run_and_resume_goes_on_without_a_replay(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent, session, turn, group = await sleeping(start, fake_llm, workspace)
    capabilities = agent.initialized.agent_capabilities.session_capabilities
    assert capabilities.close is not None and capabilities.resume is not None
    await agent.conn.close_session(session_id=session)
    async with asyncio.timeout(10):
        assert (await turn).stop_reason == "cancelled"
    with pytest.raises(ProcessLookupError):
        os.killpg(group, 0)
    with pytest.raises(RequestError) as info:
        await agent.prompt(session, "still there?")
    assert info.value.code == -32602 and str(info.value).startswith("sessionId:")
    before = len(agent.client.of(session))
    resumed = await agent.conn.resume_session(session_id=session, cwd=str(workspace),
                                              mcp_servers=[])
    assert resumed.modes is not None and resumed.config_options
    fake_llm.script([Reply("on again")])
    assert (await agent.prompt(session, "go on")).stop_reason == "end_turn"
    replayed = [u for u in agent.client.of(session)[before:]
                if u["sessionUpdate"] in ("user_message_chunk", "tool_call")]
    assert replayed == []  # no history replay, unlike session/load
    users = [m for m in fake_llm.requests[-1].messages if m["role"] == "user"]
    assert [str(m["content"]) for m in users][:1] == ["sleep"]  # the conversation went on
    with pytest.raises(RequestError):
        await agent.conn.close_session(session_id="s-nope")


async def test_a_loaded_session_shows_the_prompt_as_typed_and_each_edit_with_its_diff(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("one\ntwo\nthree\n")
    fake_llm.script([
        Reply("", [Call("edit_file", {"path": "a.txt", "source_text": "two",
                                      "target_text": "TWO"}, id="c-edit")]),
        Reply("done"),
    ])
    first = await start(env=openai_env(fake_llm))
    session = await first.new_session(workspace)
    link = resource_link_block("a.txt", (workspace / "a.txt").as_uri())
    await first.prompt(session, "shout line two", link)
    assert "<context" in fake_llm.requests[0].messages[-1]["content"]  # the model got the file
    await first.end()
    again = await start(env=openai_env(fake_llm))
    await again.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    replayed = again.client.of(session)
    assert replayed[0]["content"]["text"] == "shout line two"  # not the model's wrapper
    attached = replayed[1]["content"]  # the file the prompt linked, as resource content
    assert replayed[1]["sessionUpdate"] == "user_message_chunk"
    assert attached["type"] == "resource"
    assert attached["resource"]["uri"] == (workspace / "a.txt").as_uri()
    assert attached["resource"]["text"] == "one\ntwo\nthree\n"
    [finished] = [u for u in replayed if u["sessionUpdate"] == "tool_call_update"
                  and u.get("status") == "completed"]
    diff = finished["content"][0]
    assert diff["type"] == "diff" and diff["path"] == str(workspace / "a.txt")
    assert diff["oldText"] == "one\ntwo\nthree\n" and diff["newText"] == "one\nTWO\nthree\n"


async def test_a_replayed_new_file_has_no_old_text(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("write_file", {"path": "n.txt", "content": "new\n"},
                                     id="c-new")]), Reply("done")])
    first = await start(env=openai_env(fake_llm))
    session = await first.new_session(workspace)
    await first.prompt(session, "make n.txt")
    await first.end()
    again = await start(env=openai_env(fake_llm))
    await again.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    [finished] = [u for u in again.client.of(session) if u["sessionUpdate"] == "tool_call_update"]
    diff = finished["content"][0]
    # Not a diff that removes an empty line: a new file's diff has no old text, as live.
    assert diff == {"type": "diff", "path": str(workspace / "n.txt"), "newText": "new\n"}


async def test_session_delete_removes_a_session_from_the_list(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("one"), Reply("two")])
    agent = await start(env=openai_env(fake_llm))
    caps = agent.initialized.agent_capabilities.session_capabilities
    assert caps is not None and caps.delete is not None  # advertised
    kept, gone = (await agent.new_session(workspace)), (await agent.new_session(workspace))
    await agent.prompt(kept, "keep me")
    await agent.prompt(gone, "delete me")
    raw = agent.conn._conn  # this SDK's client has no session/delete method yet
    assert await raw.send_request("session/delete", {"sessionId": gone}) == {}
    listed = await agent.conn.list_sessions(cwd=str(workspace))
    assert [s.session_id for s in listed.sessions] == [kept]
    with pytest.raises(RequestError) as unknown:
        await raw.send_request("session/delete", {"sessionId": gone})
    assert unknown.value.code == -32602 and "sessionId" in str(unknown.value)
    with pytest.raises(RequestError) as bad:
        await raw.send_request("session/delete", {})
    assert bad.value.code == -32602
    with pytest.raises(RequestError):  # nothing is left to load
        await agent.conn.load_session(cwd=str(workspace), session_id=gone, mcp_servers=[])
