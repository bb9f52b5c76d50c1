"""The update stream: in order, text merged while the client is behind, drained before a
permission question; and `--settings`."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from acp import start_tool_call, text_block, tool_content, update_tool_call
from acp.schema import AllowedOutcome, RequestPermissionResponse

from harness9.acp.main import read_settings
from harness9.acp.permissions import ClientApprover
from harness9.acp.update_stream import UpdateStream
from harness9.schema import ToolCall, ToolKind
from harness9.tools.approvals.step import Answer, ApprovalRequest


class SlowSink:
    """Records updates; each send waits until the test lets it go."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.gate = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        await self.gate.wait()
        self.sent.append(update.model_dump(by_alias=True, exclude_none=True))


async def test_text_merges_while_a_send_is_pending_and_order_holds() -> None:
    sink = SlowSink()
    stream = UpdateStream(sink, "s-1")
    stream.text("message", "a")  # goes out first (its send is now waiting)
    await asyncio.sleep(0)
    for piece in "bcd":
        stream.text("message", piece)
    stream.text("thought", "hm")
    stream.push(update_tool_call("c-1", status="in_progress",
                                 content=[tool_content(text_block("x"))]))
    stream.text("message", "e")
    sink.gate.set()
    await stream.drain()
    assert [(u["sessionUpdate"], _text(u)) for u in sink.sent] == [
        ("agent_message_chunk", "a"),
        ("agent_message_chunk", "bcd"),
        ("agent_thought_chunk", "hm"),
        ("tool_call_update", None),
        ("agent_message_chunk", "e"),
    ]


def _text(update: dict[str, Any]) -> str | None:
    content = update.get("content")
    return content.get("text") if isinstance(content, dict) else None


async def test_a_failing_client_drops_the_rest_and_drain_returns() -> None:
    class Gone:
        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            raise ConnectionError("closed")

    stream = UpdateStream(Gone(), "s-1")
    stream.text("message", "a")
    stream.text("thought", "b")
    async with asyncio.timeout(5):
        await stream.drain()


def test_settings_are_validated_like_initialization_options(tmp_path: Any) -> None:
    assert read_settings('{"maxTurns": 3, "thinking": true}') == {"max_turns": 3,
                                                                   "thinking": True}
    assert read_settings('{"maxTurns": 0, "stream": false}') == {"stream": False}
    file = tmp_path / "s.json"
    file.write_text('{"checkpoints": false}')
    assert read_settings(f"@{file}") == {"checkpoints": False}
    assert read_settings(None) == {}


async def test_a_question_goes_out_after_the_updates_queued_before_it() -> None:
    sink = SlowSink()

    class Asker:
        def __init__(self) -> None:
            self.seen: list[str] = []
            self.kind = ""

        async def request_permission(self, session_id: str, tool_call: Any, options: Any,
                                     **kwargs: Any) -> RequestPermissionResponse:
            self.seen = [u["sessionUpdate"] for u in sink.sent]
            self.kind = tool_call.kind
            return RequestPermissionResponse(
                outcome=AllowedOutcome(outcome="selected", option_id="allow_once"))

    stream = UpdateStream(sink, "s-1")
    asker = Asker()
    stream.push(start_tool_call("c-1", "bash: ls", kind="execute", status="pending"))
    stream.push(update_tool_call("c-1", status="in_progress"))
    asyncio.get_running_loop().call_later(0.05, sink.gate.set)
    call = ToolCall("c-1", "bash", '{"command": "ls"}')
    approver = ClientApprover(asker, "s-1", "/tmp", stream)
    request = ApprovalRequest(call, ToolKind.EXECUTE, {"command": "ls"}, "bash: ls")
    answer = await approver.ask(request)
    assert answer.decision is Answer.ALLOW_ONCE
    assert asker.seen == ["tool_call", "tool_call_update"]
    assert asker.kind == "execute"  # the kind the question's tool declares


class FailingSink:
    """A connection whose every send fails with `error`."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.tries = 0

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.tries += 1
        raise self.error


async def test_a_client_that_left_is_not_warned_about_but_another_failure_is(
    caplog: pytest.LogCaptureFixture,
) -> None:
    for error, warned in ((ConnectionError("Connection closed"), False),
                          (RuntimeError("bad update"), True)):
        caplog.clear()
        sink = FailingSink(error)
        stream = UpdateStream(sink, "s-1")
        stream.text("message", "a")
        stream.text("thought", "b")
        with caplog.at_level(logging.DEBUG, logger="harness9.acp"):
            await stream.drain()
        assert sink.tries == 1  # the rest is dropped: nobody can take it
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert bool(warnings) is warned, (error, caplog.text)
