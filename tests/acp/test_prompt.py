"""`session/prompt` end to end: streamed text, thinking, tool calls with statuses and diffs,
stop reasons and classified errors."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, embedded_text_resource, resource_block, text_block

from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Fail, Reply


async def test_initialize_announces_version_1_and_what_prompts_take(start: StartAgent) -> None:
    agent = await start(initialize=False)
    answer = await agent.conn.initialize(protocol_version=1)
    wire = answer.model_dump(by_alias=True, exclude_none=True)
    assert wire["protocolVersion"] == 1
    caps = wire["agentCapabilities"]
    assert caps["loadSession"] is True
    assert caps["promptCapabilities"]["embeddedContext"] is True
    assert caps["promptCapabilities"]["image"] is True
    assert caps["sessionCapabilities"] == {"list": {}, "resume": {}, "close": {}, "delete": {}}
    assert wire["agentInfo"]["name"] == "harness9"


async def test_text_streams_as_message_chunks_and_the_turn_ends(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("Hello from the fake model", chunk_chars=4, usage=(1200, 30))])
    agent = await start(env=openai_env(fake_llm), settings={"contextWindow": 50000})
    session = await agent.new_session(workspace)
    answer = await agent.prompt(session, "say hello")
    assert answer.stop_reason == "end_turn"
    assert answer.usage is not None and answer.usage.output_tokens == 30
    client = agent.client
    # Besides what the session announces when it starts (commands, model options, title).
    announced = {"available_commands_update", "config_option_update", "session_info_update"}
    assert set(client.kinds(session)) - announced == {"agent_message_chunk", "usage_update"}
    [usage] = [u for u in client.of(session) if u["sessionUpdate"] == "usage_update"]
    assert (usage["used"], usage["size"]) == (1230, 50000)
    assert "cost" not in usage  # the fake model has no known price
    assert client.text(session) == "Hello from the fake model"
    assert fake_llm.requests[-1].messages[-1]["content"] == "say hello"


async def test_thinking_arrives_as_thought_chunks(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("I should just answer."), Reply("the answer")])
    agent = await start(env=openai_env(fake_llm), settings={"thinking": True})
    session = await agent.new_session(workspace)
    await agent.prompt(session, "think first")
    assert agent.client.text(session, "agent_thought_chunk") == "I should just answer."
    assert agent.client.text(session) == "the answer"


async def test_parallel_tool_calls_each_reach_a_final_status_with_diff_for_edits(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    calls = [
        Call("read_file", {"path": "a.txt"}, id="c-read"),
        Call("edit_file", {"path": "a.txt", "source_text": "alpha", "target_text": "beta"},
             id="c-edit"),
        Call("write_file", {"path": "new/b.txt", "content": "bee\n"}, id="c-write"),
        Call("bash", {"command": "echo out; exit 3"}, id="c-bash"),
        Call("read_file", {"path": "missing.txt"}, id="c-fail"),
    ]
    fake_llm.script([Reply("", calls), Reply("done")])
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    answer = await agent.prompt(session, "work")
    assert answer.stop_reason == "end_turn"
    client = agent.client
    for call in calls:
        updates = client.tool_updates(session, str(call.id))
        assert updates[0]["sessionUpdate"] == "tool_call"
        statuses = [u.get("status") for u in updates]
        assert statuses[:2] == ["pending", "in_progress"], (call.id, statuses)
        # The read fails; the command exits 3: failed for the user, a normal result for the model.
        failed = call.id in ("c-fail", "c-bash")
        assert statuses[-1] == ("failed" if failed else "completed"), call.id
    start_of = {c.id: client.tool_updates(session, str(c.id))[0] for c in calls}
    assert start_of["c-read"]["kind"] == "read"
    assert start_of["c-edit"]["kind"] == "edit"
    assert start_of["c-bash"]["kind"] == "execute"
    assert start_of["c-bash"]["title"] == "bash: echo out; exit 3"
    assert start_of["c-edit"]["title"] == "edit_file: a.txt"
    assert start_of["c-edit"]["rawInput"]["target_text"] == "beta"
    assert start_of["c-edit"]["locations"] == [{"path": str(workspace / "a.txt")}]
    edit_end = client.tool_updates(session, "c-edit")[-1]
    diff = next(c for c in edit_end["content"] if c["type"] == "diff")
    assert diff == {"type": "diff", "path": str(workspace / "a.txt"),
                    "oldText": "alpha\n", "newText": "beta\n"}
    write_end = client.tool_updates(session, "c-write")[-1]
    new = next(c for c in write_end["content"] if c["type"] == "diff")
    assert new["newText"] == "bee\n" and "oldText" not in new
    bash_end = client.tool_updates(session, "c-bash")[-1]
    assert "out" in _text_of(bash_end) and "exit status 3" in _text_of(bash_end)
    assert bash_end["rawOutput"] == {"output": "out\nexit status 3", "exitCode": 3,
                                     "sandbox": "none"}
    assert "not sandboxed" in _text_of(bash_end)
    assert "file not found" in _text_of(client.tool_updates(session, "c-fail")[-1])
    assert "rawOutput" not in client.tool_updates(session, "c-fail")[-1]
    assert "rawOutput" not in edit_end  # no command ran
    assert client.text(session) == "done"


def _text_of(update: dict[str, Any]) -> str:
    return "".join(c["content"]["text"] for c in update.get("content", [])
                   if c["type"] == "content")


async def test_max_turns_stops_with_max_turn_requests(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("read_file", {"path": "a.txt"})]) for _ in range(2)])
    agent = await start(env=openai_env(fake_llm), settings={"maxTurns": 2})
    session = await agent.new_session(workspace)
    answer = await agent.prompt(session, "loop")
    assert answer.stop_reason == "max_turn_requests"


async def test_provider_errors_are_request_failed_with_their_kind(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Fail(401, "bad key")])
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    with pytest.raises(RequestError) as info:
        await agent.prompt(session, "x")
    assert info.value.code == -32803
    assert info.value.data["kind"] == "auth"
    assert info.value.data["sessionId"] == session
    fake_llm.script([Reply("fine now")])
    assert (await agent.prompt(session, "again")).stop_reason == "end_turn"


async def test_no_provider_is_a_config_error(start: StartAgent, workspace: Path) -> None:
    agent = await start(env={"HARNESS9_PROVIDER": "openai"})
    session = await agent.new_session(workspace)
    with pytest.raises(RequestError) as info:
        await agent.prompt(session, "x")
    assert info.value.code == -32803
    assert info.value.data["kind"] == "config"


async def test_bad_params_name_the_field(start: StartAgent, workspace: Path) -> None:
    agent = await start()
    with pytest.raises(RequestError) as info:
        await agent.conn.new_session(cwd="relative/path", mcp_servers=[])
    assert info.value.code == -32602 and str(info.value).startswith("cwd:")
    with pytest.raises(RequestError) as info:
        await agent.prompt("s-nope", "x")
    assert info.value.code == -32602 and str(info.value).startswith("sessionId:")
    with pytest.raises(RequestError) as info:
        await agent.conn.load_session(cwd=str(workspace), session_id="s-nope", mcp_servers=[])
    assert info.value.code == -32602 and str(info.value).startswith("sessionId:")


async def test_a_malformed_initialize_gets_the_sdks_error_and_the_agent_goes_on(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm), initialize=False)
    with pytest.raises(RequestError) as info:
        await agent.conn._conn.send_request("initialize", {"clientCapabilities": {}})
    assert info.value.code == -32602
    await agent.conn.initialize(protocol_version=1)
    fake_llm.script([Reply("fine")])
    session = await agent.new_session(workspace)
    assert (await agent.prompt(session, "x")).stop_reason == "end_turn"


async def test_auth_methods_name_the_key_variables(
    start: StartAgent, fake_llm: FakeLLM
) -> None:
    agent = await start(env={**openai_env(fake_llm), "ANTHROPIC_API_KEY": ""})
    methods = {m.id: m for m in agent.initialized.auth_methods}
    assert {v.name for v in methods["openai-api-key"].vars} == {"OPENAI_API_KEY",
                                                                 "OPENAI_BASE_URL"}
    assert methods["anthropic-api-key"].type == "env_var"
    await agent.conn.authenticate(method_id="openai-api-key")  # the key is set: nothing to do
    with pytest.raises(RequestError) as info:
        await agent.conn.authenticate(method_id="anthropic-api-key")
    assert info.value.code == -32000 and "ANTHROPIC_API_KEY" in str(info.value.data)
    with pytest.raises(RequestError) as info:
        await agent.conn.authenticate(method_id="password")
    assert info.value.code == -32602


async def test_the_first_prompt_titles_the_session(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("one"), Reply("two")])
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    await agent.prompt(session, "Fix the flaky login test\nit fails on CI")
    await agent.prompt(session, "and the docs")
    titles = [u for u in agent.client.of(session) if u["sessionUpdate"] == "session_info_update"]
    assert [t["title"] for t in titles] == ["Fix the flaky login test"]
    listed = await agent.conn.list_sessions(cwd=str(workspace))
    assert listed.sessions[0].title == "Fix the flaky login test"


async def test_a_prompt_that_starts_with_an_attached_resource_is_titled_by_its_text(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("noted")])
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    notes = resource_block(embedded_text_resource("file:///notes.md", "keep it short\n"))
    await agent.conn.prompt(session_id=session, prompt=[notes, text_block("Sum up the notes")])
    titles = [u for u in agent.client.of(session) if u["sessionUpdate"] == "session_info_update"]
    assert [t["title"] for t in titles] == ["Sum up the notes"]
    listed = await agent.conn.list_sessions(cwd=str(workspace))
    assert listed.sessions[0].title == "Sum up the notes"  # not the resource's wrapper


async def test_a_commands_output_shows_while_it_runs(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    command = "echo '# first'; sleep 1.5; echo second"
    fake_llm.script([Reply("", [Call("bash", {"command": command}, id="c-live")]),
                     Reply("done")])
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    turn = asyncio.ensure_future(agent.prompt(session, "run it"))
    await agent.client.wait_for(
        lambda u: u.get("toolCallId") == "c-live" and u.get("status") == "in_progress"
        and "# first" in str(u.get("content")), timeout=10)
    assert not turn.done()  # seen while the command still ran
    await turn
    updates = agent.client.tool_updates(session, "c-live")
    live = [u for u in updates if u.get("status") == "in_progress" and u.get("content")]
    assert live[0]["content"][0]["content"]["text"] == "```\n# first\n```"
    final = updates[-1]["content"][0]["content"]["text"]
    assert updates[-1]["status"] == "completed" and "second" in final


async def test_the_terminal_login_method_checks_for_a_stored_key(
    start: StartAgent, fake_llm: FakeLLM
) -> None:
    import json
    import os

    agent = await start(env={**openai_env(fake_llm), "OPENAI_API_KEY": "",
                             "ANTHROPIC_API_KEY": ""})
    login = next(m for m in agent.initialized.auth_methods if m.id == "login")
    assert login.type == "terminal" and login.args == ["login"]
    with pytest.raises(RequestError) as info:
        await agent.conn.authenticate(method_id="login")
    assert info.value.code == -32000 and "harness9 login" in str(info.value.data)
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "harness9"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "credentials.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-stored"}))
    (folder / "credentials.json").chmod(0o600)
    await agent.conn.authenticate(method_id="login")
    await agent.conn.authenticate(method_id="openai-api-key")  # the stored key counts too


async def test_usage_updates_carry_the_sessions_cost_so_far(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("one", usage=(100_000, 1_000)), Reply("two", usage=(200_000, 2_000))])
    agent = await start(env=openai_env(fake_llm, HARNESS9_MODEL="gpt-4o"))
    session = await agent.new_session(workspace)
    await agent.prompt(session, "first")
    await agent.prompt(session, "second")
    costs = [u["cost"] for u in agent.client.of(session) if u["sessionUpdate"] == "usage_update"]
    # GPT-4o: $2.50 in, $10 out per million tokens; each update is the session's total.
    assert [c["currency"] for c in costs] == ["USD", "USD"]
    assert [c["amount"] for c in costs] == [pytest.approx(0.26), pytest.approx(0.26 + 0.52)]
