"""The pure formatting helpers of the live view."""

from __future__ import annotations

from rich.console import Console

from harness9.client import format as fmt
from harness9.client import summary
from harness9.client.approval_prompt import question
from harness9.client.stored_sessions import recap
from harness9.client.tool_row import STOP_HINT, ToolRow, live_tail


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


def test_preview_keeps_the_tail_of_commands_and_the_head_of_the_rest() -> None:
    output = "\n".join(f"line {i}" for i in range(1, 11)) + "\n\nexit status 1\n"
    assert fmt.preview("execute", output) == [
        "… 8 lines above", "line 9", "line 10", "exit status 1"
    ]
    assert fmt.preview("read", output) == ["line 1", "line 2", "line 3", "… 8 more lines"]
    assert fmt.preview("other", output)[-1] == "… 8 more lines"
    assert fmt.preview("edit", "done\n") == ["done"]


def test_a_command_s_exit_comes_from_its_fields_never_its_text() -> None:
    command = {"command": "make"}
    printed = {"output": "exit status 7\n", "bytes": 14, "exitCode": 0, "durationMs": 2}
    assert summary.finished("bash", command, printed, ok=True) == "ran `make` · exit 0 · 2 ms"
    assert summary.command_output(printed) == "exit status 7\n"  # what it printed is kept
    older = {"output": "boom\nexit status 2", "durationMs": 2}  # a daemon without exitCode
    assert summary.finished("bash", command, older, ok=True) == "ran `make` · 2 ms"


def test_a_command_s_output_is_shown_without_the_model_s_status_line() -> None:
    failed = {"output": "a\nb\nexit status 2", "bytes": 4, "exitCode": 2}
    assert summary.command_output(failed) == "a\nb"
    killed = {"output": "killed by signal SIGTERM (15)", "bytes": 0, "signal": "SIGTERM"}
    assert summary.command_output(killed) == ""
    cut = {"output": "head\n\n[output truncated: …]\n\ntail\nexit status 1", "bytes": 9000,
           "exitCode": 1}
    assert summary.command_output(cut).endswith("\ntail")
    assert summary.command_output({"output": "(no output)", "bytes": 0, "exitCode": 0}) == ""


def test_tokens_line() -> None:
    assert fmt.tokens({"inputTokens": 1234, "outputTokens": 56}) == "1,234 in · 56 out tokens"
    assert fmt.tokens({"inputTokens": 0, "outputTokens": 0}) == ""
    assert fmt.tokens(None) == ""


def test_context_fill_names_the_share_of_the_window() -> None:
    usage = {"inputTokens": 1, "contextTokens": 122_000, "contextWindow": 200_000}
    assert fmt.context_fill(usage) == "context 61% of 200k"
    assert fmt.context_fill({"contextTokens": 5, "contextWindow": 1_000_000}) == (
        "context 0% of 1M"
    )
    assert fmt.context_fill({"inputTokens": 10}) == ""
    assert fmt.context_fill(None) == ""


def test_rows_say_what_a_call_did_in_english() -> None:
    read = {"output": "a\nb\nc\n", "bytes": 6, "durationMs": 3}
    assert summary.finished("read_file", {"path": "p.py"}, read, ok=True) == "read p.py · 3 lines"
    page = {"output": "x\n" * 50 + "\n\n[truncated: showed bytes 0-99 …]", "bytes": 12_000,
            "truncated": True}
    assert summary.finished("read_file", {"path": "big"}, page, ok=True) == (
        "read big · 50 lines of 12.0 kB"
    )
    edit = {"output": "Edited p.py", "durationMs": 4}
    args = {"path": "p.py", "source_text": "a\nb\n", "target_text": "a\nB\nc\n"}
    assert summary.finished("edit_file", args, edit, ok=True) == "edited p.py +2 −1"
    told = {**edit, "added": 7, "removed": 3, "diff": "…"}
    assert summary.finished("edit_file", args, told, ok=True) == "edited p.py +7 −3"
    wrote = {"output": "Wrote 4 bytes to n.txt"}
    assert summary.finished("write_file", {"path": "n.txt", "content": "a\nb\n"}, wrote,
                            ok=True) == "wrote n.txt · 2 lines"
    ran = {"output": "F\nFAILED\nexit status 1", "exitCode": 1, "durationMs": 291.4}
    command = {"command": "python3 -m unittest"}
    assert summary.finished("bash", command, ran, ok=True) == (
        "ran `python3 -m unittest` · exit 1 · 291 ms"
    )
    killed = {"output": "killed by signal SIGKILL (9)", "signal": "SIGKILL", "durationMs": 5}
    assert summary.finished("bash", command, killed, ok=True).endswith("· killed (SIGKILL) · 5 ms")
    failed = {"output": "Error: file not found: x", "reason": "error"}
    assert summary.finished("read_file", {"path": "x"}, failed, ok=False) == "read x · error"
    assert summary.finished("bash", command, {"reason": "rejected"}, ok=False) == (
        "run `python3 -m unittest` · rejected"
    )
    assert summary.running("bash", command) == "running `python3 -m unittest`"
    assert summary.running("edit_file", {"path": "p.py"}) == "editing p.py"


def test_a_refused_row_says_why_once() -> None:
    command = {"command": "rm -r build"}
    rejected = {"reason": "rejected", "message": "not now,\n please\x1b[2J",
                "output": "Error: the user rejected this bash call: not now, please."}
    row = ToolRow("bash", "execute", command, asked=True)
    row.finish(rejected, ok=False)
    assert row.headline == "run `rm -r build` · rejected: not now, please\\x1b[2J"
    assert row.lines == []  # the model's text would say the reason again
    denied = {"reason": "denied", "message": "deny rule bash(rm *)", "output": "Error: …"}
    assert summary.finished("bash", command, denied, ok=False) == (
        "run `rm -r build` · denied: deny rule bash(rm *)"
    )
    assert summary.finished("task", None, denied, ok=False) == "task · denied: deny rule bash(rm *)"
    plain = ToolRow("bash", "execute", command, asked=True)
    plain.finish({"reason": "rejected", "output": "Error: the user rejected it"}, ok=False)
    assert (plain.headline, plain.lines) == ("run `rm -r build` · rejected", [])
    old = ToolRow("bash", "execute", command)  # a denial without a message: the text says why
    old.finish({"reason": "denied", "output": "Error: bash was not run: it is denied"}, ok=False)
    assert (old.headline, old.lines) == ("run `rm -r build` · denied",
                                         ["Error: bash was not run: it is denied"])


def test_a_row_s_body_goes_by_its_tool_s_kind() -> None:
    done = {"output": "the model's words", "bytes": 17, "durationMs": 1}
    rows = {kind: ToolRow("lookup", kind, {"path": "a.py"}) for kind in ("read", "edit", "other")}
    for row in rows.values():
        row.finish(done, ok=True)
    assert (rows["read"].lines, rows["edit"].lines) == ([], [])  # the headline says it
    assert rows["other"].lines == ["the model's words"]
    command = ToolRow("run_it", "execute", {"command": "make"})
    command.finish({**done, "output": "built\nexit status 2", "exitCode": 2}, ok=True)
    assert command.lines == ["built"]
    console = Console(width=60, record=True)
    console.print(ToolRow("run_it", "execute", {}).render(), ToolRow("x", "other", {}).render())
    assert console.export_text().count(STOP_HINT) == 1  # only a command can be stopped


def test_a_question_shows_a_command_as_a_command_by_its_tool_s_kind() -> None:
    def shown(kind: str) -> str:
        console = Console(width=60, record=True)
        console.print(question({"tool": "run_it", "toolKind": kind, "title": "run_it: make",
                                "arguments": {"command": "make"}}))
        return console.export_text()

    assert "│ make" in shown("execute") and "{" not in shown("execute")
    assert "{'command': 'make'}" in shown("other")


def test_live_tail_keeps_the_last_lines_as_a_terminal_leaves_them() -> None:
    text = "".join(f"step {i}\n" for i in range(9)) + "10%\r50%\r100%\r\n\n"
    assert live_tail(text, 3) == ["step 7", "step 8", "100%"]


def test_cost_shows_dollars_when_the_price_is_known() -> None:
    assert fmt.cost({"costUsd": 0.012345}) == "$0.0123"
    assert fmt.cost({"costUsd": 12.5}) == "$12.50"
    assert fmt.cost({"costUsd": 0}) == "$0.0000"
    assert fmt.cost({"inputTokens": 10}) == ""
    assert fmt.cost({"costUsd": True}) == ""
    assert fmt.cost(None) == ""


def test_a_command_that_exited_non_zero_is_a_red_failed_row() -> None:
    def row(note: dict[str, object]) -> tuple[bool | None, str, str]:
        ran = ToolRow("bash", "execute", {"command": "npm test"})
        ran.finish({"bytes": 5, "durationMs": 80, **note}, ok=True)
        console = Console(width=80, record=True, color_system="truecolor")
        console.print(ran.render())
        return ran.ok, console.export_text(clear=False), console.export_html(inline_styles=True)

    ok, text, html = row({"output": "boom\nexit status 254", "exitCode": 254})
    assert not ok and "✗ ran `npm test` · exit 254 · 80 ms" in text and "│ boom" in text
    assert "✓" not in text and 'color: #800000">✗' in html
    killed, text, _ = row({"output": "killed by signal SIGKILL (9)", "signal": "SIGKILL"})
    assert not killed and "✗ ran `npm test` · killed (SIGKILL)" in text
    passed, text, _ = row({"output": "fine", "exitCode": 0})
    assert passed and "✓ ran `npm test` · exit 0" in text
    assert summary.command_failed({"exitCode": 1}) and not summary.command_failed({})


def test_a_resumed_sessions_recap_shows_the_answer_as_text_not_markdown() -> None:
    answer = ("### What changed\n\n```python\nx = 1\n```\n- **parser**: handles `None` now, "
              "see [the docs](https://x.y/z)\n\n| file | lines |\n|---|---:|\n| a.py | 3 |")
    shown = recap({"sessionId": "s-1", "title": "fix", "runs": [{}],
                   "messages": [{"role": "assistant", "content": answer}]}).plain
    assert shown.splitlines()[1:] == ["  What changed", "  x = 1",
                                      "  • parser: handles None now, see the docs"]
    assert fmt.markdown_lines("| file | lines |\n|---|---|\n| a.py | 3 |") == [
        "file · lines", "a.py · 3"]
    assert fmt.markdown_lines("2 * 3 * 4 and a_b_c, *really*") == ["2 * 3 * 4 and a_b_c, really"]
