"""Engine results as ACP tool call updates: what a client reads without parsing text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness9.acp.updates import finish_update
from harness9.schema import ProcessExit, ToolCall, ToolResult
from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Reply

BASH = ToolCall("c1", "bash", '{"command": "sleep 9"}')


def wire(update: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = update.model_dump(by_alias=True, exclude_none=True)
    return dumped


def test_a_command_killed_by_a_signal_names_it_in_its_raw_output() -> None:
    result = ToolResult("c1", "killed by signal SIGKILL (9)", exit=ProcessExit(signal="SIGKILL"))
    update = wire(finish_update(BASH, result))
    assert update["status"] == "failed"  # for the user; the model got a normal result
    assert update["rawOutput"] == {"output": "killed by signal SIGKILL (9)", "signal": "SIGKILL"}


def test_a_command_that_exited_non_zero_failed_and_one_that_exited_zero_completed() -> None:
    failed = wire(finish_update(BASH, ToolResult("c1", "boom\nexit status 254",
                                                 exit=ProcessExit(code=254))))
    assert failed["status"] == "failed" and failed["rawOutput"]["exitCode"] == 254
    passed = wire(finish_update(BASH, ToolResult("c1", "ok", exit=ProcessExit(code=0))))
    assert passed["status"] == "completed"


def test_a_call_that_ran_no_command_has_no_raw_output() -> None:
    update = wire(finish_update(BASH, ToolResult("c1", "Error: timed out", is_error=True)))
    assert update["status"] == "failed" and "rawOutput" not in update


def test_a_command_says_where_it_ran() -> None:
    result = ToolResult("c1", "ok", exit=ProcessExit(code=0), sandbox="bwrap")
    update = wire(finish_update(BASH, result))
    assert update["rawOutput"] == {"output": "ok", "exitCode": 0, "sandbox": "bwrap"}
    texts = [c["content"]["text"] for c in update["content"] if c["type"] == "content"]
    assert texts == ["ok", "sandboxed (bwrap)"]


def test_read_and_command_output_is_fenced_against_markdown() -> None:
    from harness9.acp.updates import shown_output
    from harness9.schema import ToolKind

    text = "# a comment\n__init__ and ```code```\n"
    shown = shown_output(text, ToolKind.EXECUTE)
    assert shown == "````\n# a comment\n__init__ and ```code```\n````"
    assert shown_output("x = 1\n", ToolKind.READ) == "```\nx = 1\n```"
    assert shown_output("Edited a.py", ToolKind.EDIT) == "Edited a.py"
    update = wire(finish_update(BASH, ToolResult("c1", "# hi", exit=ProcessExit(code=0)),
                                kind=ToolKind.EXECUTE))
    assert update["content"][0]["content"]["text"] == "```\n# hi\n```"
    assert update["rawOutput"]["output"] == "# hi"  # the raw output stays raw


async def test_a_failing_command_is_failed_live_and_when_the_session_is_loaded(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "echo boom; exit 254"}, id="c-t")]),
                     Reply("the tests fail")])
    first = await start(env=openai_env(fake_llm))
    session = await first.new_session(workspace)
    assert (await first.prompt(session, "run the tests")).stop_reason == "end_turn"
    [*_, ended] = first.client.tool_updates(session, "c-t")
    assert ended["status"] == "failed" and ended["rawOutput"]["exitCode"] == 254
    result = fake_llm.requests[1].messages[-1]
    assert result["role"] == "tool" and result["content"].startswith("boom")  # not an error
    await first.end()
    again = await start(env=openai_env(fake_llm))
    await again.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    [*_, replayed] = again.client.tool_updates(session, "c-t")
    assert replayed["status"] == "failed"
