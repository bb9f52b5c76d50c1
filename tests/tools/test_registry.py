"""Registry behaviour with small real tools: lookup, validation, failures, timeouts, cancel."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from harness9.schema import ToolCall, ToolDefinition, ToolFailure, ToolKind
from harness9.tools import Registry, ToolError, ToolOutput, default_registry
from harness9.tools.contract import seconds_left


class Echo:
    """Returns its `text` argument; `times` repeats it; `fail` raises; `sleep` waits first."""

    name = "echo"

    def definition(self) -> ToolDefinition:
        return ToolDefinition(
            name="echo",
            description="Echo text.",
            input_schema={
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "times": {"type": "integer"},
                    "sleep": {"type": "number"},
                    "fail": {"type": "string"},
                },
                "required": ["text"],
            },
        )

    async def execute(self, arguments: str) -> str | ToolOutput:
        args = json.loads(arguments)
        await asyncio.sleep(args.get("sleep", 0))
        if args.get("fail") == "tool":
            raise ToolError("Error: asked to fail")
        if args.get("fail") == "os":
            raise FileNotFoundError(2, "No such file or directory", "/nowhere")
        if args.get("fail") == "bug":
            raise ZeroDivisionError("division by zero")
        return args["text"] * args.get("times", 1)


class Budget:
    """Reports the time budget the registry gave it."""

    name = "budget"

    def definition(self) -> ToolDefinition:
        return ToolDefinition("budget", "Budget.", {"type": "object", "properties": {}})

    async def execute(self, arguments: str) -> str:
        return f"{seconds_left(30.0):.1f}"


def registry() -> Registry:
    reg = Registry()
    reg.register(Echo())
    reg.register(Budget())
    return reg


def test_each_tool_declares_its_kind_and_an_unknown_name_is_other(tmp_path: Path) -> None:
    builtin = default_registry(tmp_path)
    kinds = {d.name: d.kind for d in builtin.available_tools()}
    assert kinds == {"read_file": ToolKind.READ, "write_file": ToolKind.EDIT,
                     "edit_file": ToolKind.EDIT, "bash": ToolKind.EXECUTE,
                     "update_plan": ToolKind.THINK}
    assert [builtin.kind_of(name) for name in kinds] == list(kinds.values())
    assert builtin.kind_of("no_such_tool") is ToolKind.OTHER
    assert registry().kind_of("echo") is ToolKind.OTHER  # a tool that declares none


def call(args: object, name: str = "echo") -> ToolCall:
    raw = args if isinstance(args, str) else json.dumps(args)
    return ToolCall(id="c1", name=name, arguments=raw)


async def test_success_counts_utf8_bytes() -> None:
    result = await registry().execute(call({"text": "é", "times": 3}))
    assert (result.output, result.is_error, result.bytes, result.failure) == ("ééé", False, 6, None)
    assert result.tool_call_id == "c1"


async def test_duplicate_registration_warns(caplog: pytest.LogCaptureFixture) -> None:
    reg = registry()
    with caplog.at_level(logging.WARNING):
        reg.register(Echo())
    assert "registered twice" in caplog.text
    assert reg.names() == ["echo", "budget"]


async def test_unknown_tool_lists_valid_names() -> None:
    result = await registry().execute(call({}, name="nope"))
    assert result.failure is ToolFailure.UNKNOWN_TOOL
    assert result.output == (
        "Error: unknown tool 'nope'. Available tools: echo, budget. "
        "Call one of these by its exact name."
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"text": ', "Error: the arguments of 'echo' are not valid JSON (Expecting value"),
        ("[1]", "Error: the arguments of 'echo' must be a JSON object, got array"),
        ("{}", "Error: missing required argument(s) for 'echo': text. Required: text"),
        ('{"text": 5}', "Error: argument 'text' of 'echo' must be of type string, got integer"),
        ('{"text": "a", "times": true}', "Error: argument 'times' of 'echo' must be of type int"),
        ('{"text": "a", "times": 1.5}', "Error: argument 'times' of 'echo' must be of type int"),
    ],
)
async def test_bad_arguments(raw: str, expected: str) -> None:
    result = await registry().execute(call(raw))
    assert result.failure is ToolFailure.BAD_ARGUMENTS
    assert result.output.startswith(expected), result.output


@pytest.mark.parametrize(
    ("fail", "expected"),
    [
        ("tool", "Error: asked to fail"),
        ("os", "Error: No such file or directory: /nowhere"),
        ("bug", "Error: tool 'echo' failed: ZeroDivisionError: division by zero"),
    ],
)
async def test_tool_exceptions_become_errors(fail: str, expected: str) -> None:
    result = await registry().execute(call({"text": "x", "fail": fail}))
    assert (result.is_error, result.failure, result.output) == (True, ToolFailure.ERROR, expected)


async def test_timeout_is_a_timeout_failure() -> None:
    result = await registry().execute(call({"text": "x", "sleep": 5}), timeout=0.2)
    assert result.failure is ToolFailure.TIMEOUT
    assert result.output == (
        "Error: tool 'echo' timed out after 0.2 s and was stopped. Try a smaller or faster step."
    )
    assert result.duration_ms < 2000


async def test_deadline_reaches_the_tool() -> None:
    unbounded = await registry().execute(call({}, name="budget"))
    bounded = await registry().execute(call({}, name="budget"), timeout=5)
    assert unbounded.output == "30.0"
    assert bounded.output in {"5.0", "4.9"}


async def test_cancellation_propagates() -> None:
    task = asyncio.create_task(registry().execute(call({"text": "x", "sleep": 10})))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
