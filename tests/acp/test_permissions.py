"""Approvals over ACP: `session/request_permission` with our three options."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness9.process.sandbox import Mechanism, availability
from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Reply

ASK = {"HARNESS9_APPROVALS": "ask"}


def asking(fake: FakeLLM) -> dict[str, str]:
    return openai_env(fake, **ASK)


def edit(call_id: str, source: str, target: str) -> Call:
    return Call("edit_file", {"path": "a.txt", "source_text": source, "target_text": target},
                id=call_id)


async def test_allow_once_runs_the_call_and_the_question_shows_the_diff(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [edit("c-1", "alpha", "beta")]), Reply("ok")])
    agent = await start(env=asking(fake_llm))
    session = await agent.new_session(workspace)
    agent.client.answers = ["allow_once"]
    assert (await agent.prompt(session, "edit")).stop_reason == "end_turn"
    [asked] = agent.client.permissions
    assert asked["sessionId"] == session
    assert asked["callAnnounced"]  # its tool_call went out before the question
    assert [(o["optionId"], o["kind"]) for o in asked["options"]] == [
        ("allow_once", "allow_once"), ("allow_session", "allow_always"),
        ("reject", "reject_once"),
    ]
    call = asked["toolCall"]
    assert call["toolCallId"] == "c-1" and call["title"] == "edit_file: a.txt"
    assert call["kind"] == "edit"
    assert call["locations"] == [{"path": str(workspace / "a.txt")}]
    # the change as diff content (the file's text before and after), for the client's diff view
    assert call["content"] == [{"type": "diff", "path": str(workspace / "a.txt"),
                                "oldText": "alpha\n", "newText": "beta\n"}]
    assert (workspace / "a.txt").read_text() == "beta\n"
    # announced pending before the question, in progress only once allowed, then completed
    statuses = [u.get("status") for u in agent.client.tool_updates(session, "c-1")]
    assert statuses == ["pending", "in_progress", "completed"]
    assert asked["statusWhenAsked"] == "pending"


async def test_allow_always_holds_for_the_rest_of_the_session(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    bash = [Call("bash", {"command": "echo hi"}, id=f"c-{n}") for n in range(3)]
    fake_llm.script([Reply("", bash[:1]), Reply("one"), Reply("", bash[1:2]), Reply("two")])
    agent = await start(env=asking(fake_llm))
    session = await agent.new_session(workspace)
    agent.client.answers = ["allow_session"]
    await agent.prompt(session, "first")
    await agent.prompt(session, "second")
    assert len(agent.client.permissions) == 1
    assert agent.client.tool_updates(session, "c-1")[-1]["status"] == "completed"
    other = await agent.new_session(workspace)  # another session asks again
    fake_llm.script([Reply("", bash[2:]), Reply("three")])
    await agent.prompt(other, "third")
    assert len(agent.client.permissions) == 2


async def test_reject_and_a_cancelled_outcome_both_refuse_the_call(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [edit("c-1", "alpha", "beta"), edit("c-2", "alpha", "gamma")]),
                     Reply("gave up")])
    agent = await start(env=asking(fake_llm))
    session = await agent.new_session(workspace)
    agent.client.answers = ["reject", None]
    assert (await agent.prompt(session, "edit")).stop_reason == "end_turn"
    assert len(agent.client.permissions) == 2
    assert (workspace / "a.txt").read_text() == "alpha\n"
    for call_id in ("c-1", "c-2"):  # refused before it ran: never in progress
        statuses = [u.get("status") for u in agent.client.tool_updates(session, call_id)]
        assert statuses == ["pending", "failed"]
    observations = [m for m in fake_llm.requests[-1].messages if m.get("role") == "tool"]
    assert all("rejected" in m["content"] for m in observations)


async def test_cancel_while_a_question_is_open_ends_the_turn_cancelled(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [edit("c-1", "alpha", "beta")])])
    agent = await start(env=asking(fake_llm))
    session = await agent.new_session(workspace)
    agent.client.answer_delay = 30  # the user does not answer
    turn = asyncio.ensure_future(agent.prompt(session, "edit"))
    async with asyncio.timeout(10):
        while not agent.client.permissions:
            await asyncio.sleep(0.02)
    await agent.conn.cancel(session_id=session)
    async with asyncio.timeout(10):
        answer = await turn
    assert answer.stop_reason == "cancelled"
    assert (workspace / "a.txt").read_text() == "alpha\n"
    assert agent.client.tool_updates(session, "c-1")[-1]["status"] == "failed"


async def test_the_question_never_hides_the_command_and_says_why_it_is_asked(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    hidden = "npm test\r; touch planted"
    fake_llm.script([Reply("", [Call("bash", {"command": hidden}, id="c-1"),
                                Call("write_file", {"path": ".git/config", "content": "x"},
                                     id="c-2")]),
                     Reply("ok")])
    agent = await start(env=openai_env(fake_llm, HARNESS9_APPROVALS="auto-edit"))
    session = await agent.new_session(workspace)
    agent.client.answers = ["reject", "reject"]
    await agent.prompt(session, "go")
    bash, write = (asked["toolCall"] for asked in agent.client.permissions)
    assert bash["title"] == "bash: npm test\\r; touch planted"
    assert bash["rawInput"] == {"command": hidden}
    assert write["title"] == "write_file: .git/config"
    texts = [block["content"]["text"] for block in write["content"] if block["type"] == "content"]
    [why] = [text for text in texts if "Asked because" in text]
    assert why == "Asked because it writes .git/config, which controls what git runs."
    assert not (workspace / "planted").exists() and not (workspace / ".git").exists()


@pytest.mark.skipif(availability().mechanism is not Mechanism.BWRAP,
                    reason="bubblewrap does not work here")
async def test_a_command_the_sandbox_stops_after_it_was_allowed_is_asked_about_again(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    """The default mode (auto) asks before a write under .git; bubblewrap keeps .git read-only
    all the same, so the client is asked a second time (run it outside?), and the call ends."""
    (workspace / ".git" / "info").mkdir(parents=True)
    command = "echo build/ >> .git/info/exclude"
    fake_llm.script([Reply("", [Call("bash", {"command": command}, id="x-1")]), Reply("ok")])
    agent = await start(env=openai_env(fake_llm, HARNESS9_SANDBOX="", HARNESS9_APPROVALS=""))
    session = await agent.new_session(workspace)
    agent.client.answers = ["allow_once", "allow_once"]
    async with asyncio.timeout(30):
        assert (await agent.prompt(session, "ignore build/")).stop_reason == "end_turn"
    assert len(agent.client.permissions) == 2
    assert (workspace / ".git" / "info" / "exclude").read_text() == "build/\n"
    statuses = [u.get("status") for u in agent.client.tool_updates(session, "x-1")]
    assert statuses[-1] == "completed"
