"""The live transcript a plain client's run writes: markdown a reader renders as the run went."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness9.engine.events import AssistantMessage, ToolFinished
from harness9.lsp.run_transcript import Transcript
from harness9.schema import ToolCall, ToolKind, ToolResult

pytestmark = pytest.mark.timeout(10)


def _finished(call_id: str) -> ToolFinished:
    call = ToolCall(call_id, "read_file", '{"path": "a.txt"}')
    result = ToolResult(call_id, "text", duration_ms=3)
    return ToolFinished(turn=1, call=call, result=result, tool_kind=ToolKind.READ)


def test_text_after_the_tool_rows_is_a_paragraph_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS9_STATE_DIR", str(tmp_path / "state"))
    transcript = Transcript("s-1", "r-1", str(tmp_path), "read it")
    transcript(_finished("c1"))
    transcript(_finished("c2"))
    transcript(AssistantMessage(turn=2, text="Read.", tool_calls=(), tool_kinds=()))
    transcript.note("removed the instruction comment from a.txt")
    text = transcript.path.read_text()
    rows = text.split("> read it\n\n", 1)[1]
    row = "- ✓ `read_file: a.txt` · 3 ms\n"
    assert rows.startswith(f"{row}{row}\nRead.\n\n")
    assert rows.endswith("Read.\n\n*removed the instruction comment from a.txt*\n\n")
