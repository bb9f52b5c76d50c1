"""The stream tool-call accumulator joins fragments per index, whatever their order."""

from __future__ import annotations

from harness9.provider.tool_call_accumulator import ToolCallAccumulator
from harness9.schema import ToolCall


def test_interleaved_fragments_are_joined_per_index() -> None:
    acc = ToolCallAccumulator()
    acc.add(1, id="b", name="bash", arguments="")
    acc.add(0, id="a", name="read_file")
    acc.add(1, arguments='{"comm')
    acc.add(0, arguments='{"path"')
    acc.add(1, arguments='and": "ls"}')
    acc.add(0, arguments=': "x"}')
    assert acc.calls() == (
        ToolCall("a", "read_file", '{"path": "x"}'),
        ToolCall("b", "bash", '{"command": "ls"}'),
    )
    assert len(acc) == 2


def test_repeated_headers_do_not_duplicate_names() -> None:
    acc = ToolCallAccumulator()
    acc.add(0, id="a", name="bash", arguments="{")
    acc.add(0, id="a", name="bash", arguments="}")
    assert acc.calls() == (ToolCall("a", "bash", "{}"),)


def test_defaults_for_missing_parts() -> None:
    acc = ToolCallAccumulator()
    acc.add(3, name="list")
    acc.add(5, name="read_file")
    acc.set_default(5, '{"path": "a"}')
    assert acc.calls() == (
        ToolCall("call_3", "list", "{}"),
        ToolCall("call_5", "read_file", '{"path": "a"}'),
    )


def test_broken_json_is_kept_verbatim() -> None:
    acc = ToolCallAccumulator()
    acc.add(0, id="a", name="bash", arguments='{"command": ')
    acc.add(0, arguments='"unterminated')
    assert acc.calls()[0].arguments == '{"command": "unterminated'
