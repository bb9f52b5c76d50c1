"""Golden tests for the seed's block-style log format."""

from __future__ import annotations

import json
import time
from typing import Any

from harness9.engine.events import (
    ApprovalRequested,
    ApprovalResolved,
    ChildEvent,
    LLMCallStarted,
    ObservationAdded,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnStarted,
)
from harness9.engine.log import ENGLISH, SEED, format_event, log_words
from harness9.schema import ToolCall, ToolFailure, ToolKind, ToolResult, Usage

NOW = time.mktime((2026, 4, 29, 15, 11, 30, 0, 0, -1))
STAMP = "2026/04/29 15:11:30 [engine]"


def seed_format(event: Any, now: float) -> str | None:
    """The seed's own layout and labels (`HARNESS9_LOG_LANG=zh`), as these golden tests fix."""
    return format_event(event, now, SEED)


def started(arguments: str, name: str = "bash", id_: str = "call_xyz") -> str | None:
    return seed_format(ToolStarted(1, ToolCall(id_, name, arguments), ToolKind.EXECUTE), NOW)


def finished(output: str, **kw: object) -> str | None:
    result = ToolResult("call_xyz", output, **kw)  # type: ignore[arg-type]
    call = ToolCall("call_xyz", "bash", "{}")
    return seed_format(ToolFinished(1, call, result, ToolKind.EXECUTE), NOW)


def test_short_arguments_inline_without_html_escaping() -> None:
    text = started(json.dumps({"command": "go version && pwd && ls -la"}))
    assert text == (
        f"{STAMP} Turn 1 │ 工具启动 │ tool=bash id=call_xyz\n"
        '        arguments: {"command":"go version && pwd && ls -la"}'
    )


def test_long_arguments_pretty_printed_and_long_strings_shortened() -> None:
    content = "package main\n\nimport \"fmt\"\n" + "x" * 200
    args = json.dumps({"path": "src/main.go", "content": content})
    text = started(args, name="write_file", id_="call_abc")
    shown = json.dumps(content[:80] + "...", ensure_ascii=False)
    assert text == (
        f"{STAMP} Turn 1 │ 工具启动 │ tool=write_file id=call_abc\n"
        "        arguments:\n"
        "          {\n"
        '            "path": "src/main.go",\n'
        f'            "content": {shown}\n'
        "          }"
    )


def test_exactly_80_bytes_stays_inline_and_81_does_not() -> None:
    base = '{"command":""}'
    fits = json.dumps({"command": "a" * (80 - len(base))}, separators=(",", ":"))
    over = json.dumps({"command": "a" * (81 - len(base))}, separators=(",", ":"))
    assert len(fits) == 80
    assert started(fits) is not None
    assert "arguments: {" in (started(fits) or "")
    assert "arguments:\n" in (started(over) or "")


def test_non_json_arguments_are_shown_raw() -> None:
    assert (started('{"command": "ls"') or "").endswith('arguments (not JSON): {"command": "ls"')


def test_completion_with_multiline_output() -> None:
    text = finished("go version go1.25.3\n/Users/zsa\ntotal 9456\n")
    assert text == (
        f"{STAMP} Turn 1 │ 工具完成 │ tool=bash id=call_xyz status=ok bytes=42\n"
        "        output:\n"
        "        │ go version go1.25.3\n"
        "        │ /Users/zsa\n"
        "        │ total 9456"
    )


def test_output_cut_at_512_bytes_with_header_notice() -> None:
    text = finished("é" * 400) or ""
    header, _, body = text.partition("\n")
    assert header.endswith("status=ok bytes=800 (truncated to 512)")
    shown = body.split("│ ", 1)[1]
    assert shown == "é" * 256


def test_failure_block() -> None:
    text = finished("command not found: foo", is_error=True, failure=ToolFailure.ERROR)
    assert text == (
        f"{STAMP} Turn 1 │ 工具失败 │ tool=bash id=call_xyz status=error bytes=22\n"
        "        output:\n"
        "        │ command not found: foo"
    )


def test_timeout_failure_names_reason() -> None:
    text = finished("Error: timed out", is_error=True, failure=ToolFailure.TIMEOUT) or ""
    assert text.splitlines()[0].endswith("status=error bytes=16 reason=timeout")


def test_other_nodes_of_the_coverage_table() -> None:
    start = RunStarted("/ws", "openai", "gpt", 20, 60000, False, True)
    assert seed_format(start, NOW) == (
        f"{STAMP} 引擎启动 │ workdir=/ws provider=openai model=gpt thinking=false "
        "maxTurns=20 toolTimeout=60s"
    )
    assert seed_format(TurnStarted(2, 5), NOW) == f"{STAMP} Turn 2 │ 开始 │ messages=5"
    assert seed_format(LLMCallStarted(2, "thinking", None), NOW) == (
        f"{STAMP} Turn 2 │ Phase 1 (Thinking) │ 禁用工具 (tools=nil)"
    )
    assert seed_format(LLMCallStarted(2, "action", 4), NOW) == (
        f"{STAMP} Turn 2 │ Phase 2 (Action) │ 恢复工具 (tools=4)"
    )
    assert seed_format(ObservationAdded(2, ("a", "b"), 3, 5), NOW) == (
        f"{STAMP} Turn 2 │ Observation 注入 │ results=2 messages 3 → 5"
    )
    end = RunFinished("completed", 3, 4, Usage(100, 20), 9)
    assert seed_format(end, NOW) == (
        f"{STAMP} 循环结束 │ status=completed turns=3 toolCalls=4 messages=9 tokens=100/20"
    )
    assert seed_format(TextDelta(1, "x"), NOW) is None


def test_approval_lines_say_who_decided_what() -> None:
    call = ToolCall(id="c1", name="bash", arguments='{"command": "rm -rf build"}')
    asked = seed_format(
        ApprovalRequested(2, call, "bash: rm -rf build", ToolKind.EXECUTE), 0
    )
    resolved = seed_format(
        ApprovalResolved(turn=2, call=call, decision="deny", by="rule", rule="bash(rm *)"), 0
    )
    assert asked is not None and resolved is not None
    assert asked.split(" [engine] ")[1] == (
        "Turn 2 │ 审批请求 │ tool=bash id=c1\n        title: bash: rm -rf build\n"
        '        arguments: {"command":"rm -rf build"}'
    )
    assert resolved.split(" [engine] ")[1] == (
        "Turn 2 │ 审批结果 │ tool=bash id=c1 decision=deny by=rule rule=bash(rm *)"
    )


def test_the_labels_are_english_unless_chinese_is_asked_for() -> None:
    event = ToolStarted(1, ToolCall("call_xyz", "bash", "{}"), ToolKind.EXECUTE)
    assert format_event(event, NOW, ENGLISH) == (
        f"{STAMP} Turn 1 │ Tool start │ tool=bash id=call_xyz\n        arguments: {{}}")
    assert log_words({}) is ENGLISH
    assert log_words({"HARNESS9_LOG_LANG": "zh_CN.UTF-8"}) is SEED
    assert log_words({"HARNESS9_LOG_LANG": "en"}) is ENGLISH
    assert set(ENGLISH) == set(SEED) and all(label.isascii() for label in ENGLISH.values())


def test_a_child_agents_events_show_as_its_own_marked_with_its_agent_and_task() -> None:
    event = ToolStarted(1, ToolCall("c1", "bash", "{}", wire_id="t1/c1"), ToolKind.EXECUTE)
    assert format_event(ChildEvent("t1", "explore", event), NOW, ENGLISH) == (
        "2026/04/29 15:11:30 [explore t1] Turn 1 │ Tool start │ tool=bash id=t1/c1\n"
        "        arguments: {}")
    assert format_event(ChildEvent("t1", "explore", TextDelta(1, "x")), NOW, ENGLISH) is None
