"""The model picker (session config options) and slash commands over ACP."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import RequestError

from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Reply

pytestmark = pytest.mark.timeout(60)


def option(options: list[dict[str, object]], option_id: str) -> dict[str, object]:
    return next(o for o in options if o["id"] == option_id)


async def test_the_model_and_effort_are_config_options_the_client_sets(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.models = ["gpt-4o", "gpt-5.4-mini"]
    agent = await start(env=openai_env(fake_llm))
    answer = await agent.conn.new_session(cwd=str(workspace), mcp_servers=[])
    session = answer.session_id
    options = [o.model_dump(by_alias=True, exclude_none=True) for o in answer.config_options]
    model = option(options, "model")
    assert model["category"] == "model" and model["currentValue"] == "openai:fake"
    assert option(options, "reasoning_effort")["category"] == "thought_level"
    # The services' lists follow the answer, as a config_option_update.
    await agent.client.wait_for(lambda u: u["sessionUpdate"] == "config_option_update"
                                and "openai:gpt-4o" in str(u))
    changed = await agent.conn.set_config_option(config_id="model", session_id=session,
                                                 value="openai:gpt-4o")
    current = {o.id: o.current_value for o in changed.config_options}
    assert current == {"model": "openai:gpt-4o", "reasoning_effort": "default"}
    await agent.conn.set_config_option(config_id="reasoning_effort", session_id=session,
                                       value="high")
    fake_llm.script([Reply("on gpt-4o")])
    await agent.prompt(session, "hello")
    body = fake_llm.requests[0].body
    assert (body["model"], body["reasoning_effort"]) == ("gpt-4o", "high")
    loaded = await agent.conn.load_session(cwd=str(workspace), session_id=session,
                                           mcp_servers=[])
    assert {o.id: o.current_value for o in loaded.config_options} == {
        "model": "openai:gpt-4o", "reasoning_effort": "high"}
    with pytest.raises(RequestError) as info:
        await agent.conn.set_config_option(config_id="model", session_id=session,
                                           value="no-provider")
    assert info.value.code == -32602 and str(info.value).startswith("value:")
    with pytest.raises(RequestError) as info:
        await agent.conn.set_config_option(config_id="colour", session_id=session, value="x")
    assert info.value.code == -32602 and str(info.value).startswith("configId:")


async def test_the_services_are_listed_after_a_prompt_sent_at_once(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    # Listing imports each service's SDK: it must not take the CPU from the first prompt.
    fake_llm.models = ["gpt-4o"]
    fake_llm.script([Reply("done", first_byte_delay=0.8)])
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    prompt = asyncio.ensure_future(agent.prompt(session, "hello"))
    async with asyncio.timeout(20):
        while not fake_llm.requests:
            await asyncio.sleep(0.02)
    await asyncio.sleep(0.5)  # the model still thinking
    assert fake_llm.listings == []
    assert (await prompt).stop_reason == "end_turn"
    await agent.client.wait_for(lambda u: u["sessionUpdate"] == "config_option_update"
                                and "openai:gpt-4o" in str(u))
    assert fake_llm.listings and all("/models" in r.path for r in fake_llm.listings)


async def test_commands_are_announced_and_run_from_prompts(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    folder = workspace / ".harness9" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("---\ndescription: Review\nargument-hint: <file>\n---\n"
                                      "Review $ARGUMENTS.\n")
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    await agent.client.wait_for(lambda u: u["sessionUpdate"] == "available_commands_update")
    update = next(u for u in agent.client.of(session)
                  if u["sessionUpdate"] == "available_commands_update")
    names = {c["name"]: c for c in update["availableCommands"]}
    assert {"help", "compact", "undo", "model", "review"} <= names.keys()
    assert "clear" not in names and "resume" not in names  # the client's own views do that
    assert names["review"]["input"] == {"hint": "<file>"}
    fake_llm.script([Reply("reviewed")])
    await agent.prompt(session, "/review app.py")
    users = [m for m in fake_llm.requests[0].messages if m["role"] == "user"]
    assert users[-1]["content"] == "Review app.py."
    answer = await agent.prompt(session, "/help")
    assert answer.stop_reason == "end_turn" and "/compact" in agent.client.text(session)
    await agent.prompt(session, "/model gpt-other")
    await agent.client.wait_for(lambda u: u["sessionUpdate"] == "config_option_update"
                                and "openai:gpt-other" in str(u))
    assert len(fake_llm.requests) == 1  # neither asked the model


async def test_any_model_of_a_configured_service_is_taken_before_the_lists_arrive(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.models = ["gpt-4o"]
    fake_llm.script([Reply("from claude")])
    agent = await start(env=openai_env(fake_llm))  # a fresh process: no list asked for yet
    session = await agent.new_session(workspace)
    changed = await agent.conn.set_config_option(config_id="model", session_id=session,
                                                 value="anthropic:claude-opus-4-1")
    assert {o.id: o.current_value for o in changed.config_options}["model"] == (
        "anthropic:claude-opus-4-1")
    await agent.prompt(session, "hello")  # the service says whether it has the model
    assert fake_llm.requests[-1].wire == "anthropic"
    assert fake_llm.requests[-1].body["model"] == "claude-opus-4-1"
    # A service that is not configured has no models to choose: named, not taken.
    for value in ("mistral:large", "gemini:pro"):
        with pytest.raises(RequestError) as info:
            await agent.conn.set_config_option(config_id="model", session_id=session,
                                               value=value)
        assert info.value.code == -32602 and "is not a configured service" in str(info.value)


async def test_help_and_model_answer_in_markdown_with_what_acp_offers(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.models = ["gpt-4o"]
    agent = await start(env=openai_env(fake_llm))
    session = await agent.new_session(workspace)
    await agent.prompt(session, "/help")
    shown = agent.client.text(session)
    assert "- `/compact` — " in shown
    assert "- `/model [provider:]model [low|medium|high]` — " in shown
    assert "/clear" not in shown and "/resume" not in shown  # the client's own views do that
    before = len(shown)
    await agent.prompt(session, "/model")
    models = agent.client.text(session)[before:]
    assert "- `openai:gpt-4o`\n" in models and "- `openai:fake` (in use)\n" in models
    assert models.rstrip().endswith("In use: `openai:fake`.")
