"""Engine events as agent/progress params: fields, numbering and delta coalescing."""

from __future__ import annotations

import asyncio
from typing import Any

from harness9.engine.events import (
    ApprovalRequested,
    AssistantMessage,
    RunFinished,
    TextDelta,
    ToolFinished,
    ToolStarted,
)
from harness9.lsp.progress import DELTA_INTERVAL, ProgressPublisher
from harness9.schema import ProcessExit, ToolCall, ToolFailure, ToolKind, ToolResult, Usage

EXECUTE = ToolKind.EXECUTE


def publisher() -> tuple[ProgressPublisher, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    return ProgressPublisher(sent.append, "r-1", "s-1"), sent


async def test_fast_deltas_are_merged_in_order_and_flushed_by_other_events() -> None:
    publish, sent = publisher()
    for i in range(500):
        publish(TextDelta(1, f"{i},"))
    publish(RunFinished("completed", 1, 0, Usage(1, 2), 2, text="t"))
    deltas = [m for m in sent if m["kind"] == "text_delta"]
    assert "".join(m["text"] for m in deltas) == "".join(f"{i}," for i in range(500))
    assert len(deltas) <= 2  # all within one interval: the first piece, then the rest
    assert [m["seq"] for m in sent] == list(range(1, len(sent) + 1))
    assert sent[-1] == {
        "runId": "r-1", "sessionId": "s-1", "seq": len(sent), "kind": "run_finished",
        "status": "completed", "turns": 1, "toolCalls": 0,
        "usage": {"inputTokens": 1, "outputTokens": 2, "cachedInputTokens": 0,
                  "cacheWriteInputTokens": 0}, "text": "t",
    }  # fmt: skip


async def test_a_pending_piece_is_sent_by_the_timer() -> None:
    publish, sent = publisher()
    publish(TextDelta(1, "a"))
    publish(TextDelta(1, "b"))
    assert [m["text"] for m in sent] == ["a"]
    await asyncio.sleep(DELTA_INTERVAL * 3)
    assert [m["text"] for m in sent] == ["a", "b"]


async def test_rate_stays_bounded_while_pieces_keep_coming() -> None:
    publish, sent = publisher()
    loop = asyncio.get_running_loop()
    end = loop.time() + 0.3
    count = 0
    while loop.time() < end:
        publish(TextDelta(1, "x"))
        count += 1
        await asyncio.sleep(0.0005)
    publish.flush()
    assert "".join(m["text"] for m in sent) == "x" * count
    assert len(sent) <= 0.3 / DELTA_INTERVAL + 2


async def test_tool_fields() -> None:
    publish, sent = publisher()
    call = ToolCall("c1", "bash", '{"command": "ls"}')
    publish(ToolStarted(2, call, EXECUTE))
    result = ToolResult("c1", "boom", is_error=True, failure=ToolFailure.TIMEOUT, bytes=9,
                        truncated=True, duration_ms=12.34)
    publish(ToolFinished(2, call, result, EXECUTE))
    broken = ToolCall("c2", "bash", '{"command": ')
    publish(ToolStarted(2, broken, EXECUTE))
    assert sent[0] == {
        "runId": "r-1", "sessionId": "s-1", "seq": 1, "kind": "tool_started", "turn": 2,
        "toolCallId": "c1", "tool": "bash", "toolKind": "execute",
        "arguments": {"command": "ls"},
    }  # fmt: skip
    assert sent[1] == {
        "runId": "r-1", "sessionId": "s-1", "seq": 2, "kind": "tool_failed", "turn": 2,
        "toolCallId": "c1", "tool": "bash", "toolKind": "execute", "output": "boom", "bytes": 9,
        "truncated": True, "durationMs": 12.3, "reason": "timeout",
    }  # fmt: skip
    assert sent[2]["arguments"] == '{"command": '


async def test_calls_and_questions_carry_their_tool_s_kind() -> None:
    publish, sent = publisher()
    read = ToolCall("c1", "read_file", '{"path": "a.py"}')
    other = ToolCall("c2", "mcp__time__now", "{}")
    publish(AssistantMessage(1, "", (read, other), (ToolKind.READ, ToolKind.OTHER)))
    publish(ApprovalRequested(1, other, "mcp__time__now", ToolKind.OTHER))
    assert sent[0]["toolCalls"] == [
        {"id": "c1", "name": "read_file", "arguments": {"path": "a.py"}, "kind": "read"},
        {"id": "c2", "name": "mcp__time__now", "arguments": {}, "kind": "other"},
    ]
    assert sent[1] == {
        "runId": "r-1", "sessionId": "s-1", "seq": 2, "kind": "approval_requested", "turn": 1,
        "toolCallId": "c2", "tool": "mcp__time__now", "toolKind": "other",
        "title": "mcp__time__now", "arguments": {},
    }  # fmt: skip


async def test_a_command_s_completion_says_how_it_ended() -> None:
    publish, sent = publisher()
    call = ToolCall("c1", "bash", '{"command": "make"}')
    exited = ToolResult("c1", "exit status 2", exit=ProcessExit(code=2))
    killed = ToolResult("c1", "killed by signal SIGKILL (9)", exit=ProcessExit(signal="SIGKILL"))
    for result in (exited, killed, ToolResult("c1", "ok")):
        publish(ToolFinished(1, call, result, EXECUTE))
    assert (sent[0]["exitCode"], "signal" in sent[0]) == (2, False)
    assert (sent[1]["signal"], "exitCode" in sent[1]) == ("SIGKILL", False)
    assert "exitCode" not in sent[2] and "signal" not in sent[2]  # no command ran


async def test_deltas_are_held_while_the_client_lags_and_sent_as_one_after() -> None:
    lagging = [True]
    sent: list[dict[str, Any]] = []
    publish = ProgressPublisher(sent.append, "r-1", "s-1", congested=lambda: lagging[0])
    for i in range(50):
        publish(TextDelta(1, f"{i},"))
        await asyncio.sleep(DELTA_INTERVAL / 2)  # 25 intervals: ~25 notifications unhindered
    assert sent == []
    lagging[0] = False
    await asyncio.sleep(DELTA_INTERVAL * 3)
    assert [(m["seq"], m["text"]) for m in sent] == [(1, "".join(f"{i}," for i in range(50)))]


async def test_other_events_still_flush_held_text_in_order() -> None:
    sent: list[dict[str, Any]] = []
    publish = ProgressPublisher(sent.append, "r-1", "s-1", congested=lambda: True)
    publish(TextDelta(1, "a"))
    publish(TextDelta(1, "b"))
    publish(RunFinished("completed", 1, 0, Usage(1, 2), 2, text="ab"))
    assert [(m["seq"], m["kind"], m.get("text")) for m in sent] == [
        (1, "text_delta", "ab"), (2, "run_finished", "ab")
    ]
