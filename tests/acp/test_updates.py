"""Engine results as ACP tool call updates: what a client reads without parsing text."""

from __future__ import annotations

from typing import Any

from harness9.acp.updates import finish_update
from harness9.schema import ProcessExit, ToolCall, ToolResult

BASH = ToolCall("c1", "bash", '{"command": "sleep 9"}')


def wire(update: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = update.model_dump(by_alias=True, exclude_none=True)
    return dumped


def test_a_command_killed_by_a_signal_names_it_in_its_raw_output() -> None:
    result = ToolResult("c1", "killed by signal SIGKILL (9)", exit=ProcessExit(signal="SIGKILL"))
    update = wire(finish_update(BASH, result))
    assert update["status"] == "completed"
    assert update["rawOutput"] == {"output": "killed by signal SIGKILL (9)", "signal": "SIGKILL"}


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
