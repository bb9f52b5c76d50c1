"""The pure formatting helpers of the live view."""

from __future__ import annotations

from harness9.client import format as fmt


def test_sizes_and_durations_read_naturally() -> None:
    assert fmt.human_bytes(412) == "412 B"
    assert fmt.human_bytes(1234) == "1.2 kB"
    assert fmt.human_bytes(3_400_000) == "3.4 MB"
    assert fmt.human_duration(12.4) == "12 ms"
    assert fmt.human_duration(1340) == "1.3 s"


def test_tool_summary_names_the_path_or_the_command() -> None:
    assert fmt.tool_summary("read_file", {"path": "a/b.py"}) == "a/b.py"
    assert fmt.tool_summary("write_file", {"path": "n.txt", "content": "héllo"}) == "n.txt (6 B)"
    assert fmt.tool_summary("bash", {"command": "make test\nmake lint"}) == "make test …"
    assert fmt.tool_summary("bash", {"command": "x" * 80}) == "x" * 59 + "…"
    assert fmt.tool_summary("bash", "{not json") == "{not json"


def test_preview_keeps_the_tail_of_bash_and_the_head_of_the_rest() -> None:
    output = "\n".join(f"line {i}" for i in range(1, 11)) + "\n\nexit status 1\n"
    assert fmt.preview("bash", output) == ["… 8 lines above", "line 9", "line 10", "exit status 1"]
    assert fmt.preview("read_file", output) == ["line 1", "line 2", "line 3", "… 8 more lines"]
    assert fmt.preview("edit_file", "done\n") == ["done"]


def test_tokens_line() -> None:
    assert fmt.tokens({"inputTokens": 1234, "outputTokens": 56}) == "1,234 in · 56 out tokens"
    assert fmt.tokens({"inputTokens": 0, "outputTokens": 0}) == ""
    assert fmt.tokens(None) == ""
