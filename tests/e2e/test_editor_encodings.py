"""Edits through the editor of files whose bytes the buffer does not show as they are: a UTF-8
BOM (Neovim's 'bomb', VS Code's "UTF-8 with BOM" keep it out of the buffer text) and CRLF line
endings."""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.editor import Editor
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)

BOM = codecs.BOM_UTF8


async def run_on_open_file(
    start: StartDaemon, fake: FakeLLM, workspace: Path, disk: bytes, buffer: str,
    calls: list[Call],
) -> tuple[Editor, list[dict[str, Any]]]:
    """Runs `calls` (one a turn) with a.txt holding `disk` and open in an editor showing
    `buffer`; returns the editor and the run's finished tool calls."""
    (workspace / "a.txt").write_bytes(disk)
    fake.script([Reply("", [call]) for call in calls] + [Reply("ok")])
    daemon: Daemon = await start(workspace, env={**fake.env(), "HARNESS9_PROVIDER": "openai"})
    editor = Editor(daemon)
    editor.open(workspace / "a.txt", buffer)
    result = await daemon.run(prompt="edit a.txt")
    done = [n for n in daemon.of_run(result["runId"]) if n["kind"].startswith("tool_")]
    return editor, [n for n in done if n["kind"] != "tool_started"]


def new_texts(editor: Editor) -> list[str]:
    """The text of every edit the editor was asked to apply."""
    return [
        edit["newText"]
        for request in editor.edits
        for change in request["edit"]["documentChanges"]
        for edit in change["edits"]
    ]


async def test_an_edit_of_an_open_bom_file_keeps_the_bom_on_disk_only(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    calls = [
        Call("read_file", {"path": "a.txt"}),
        Call("edit_file", {"path": "a.txt", "source_text": "beta", "target_text": "gamma"}),
    ]
    editor, (read, edited) = await run_on_open_file(
        start, fake_llm, workspace, BOM + b"alpha\nbeta\n", "alpha\nbeta\n", calls
    )
    # The BOM the buffer leaves out is no unsaved change.
    assert read["output"] == "alpha\nbeta\n"
    assert (edited["kind"], edited["via"]) == ("tool_completed", "editor")
    assert editor.text(workspace / "a.txt") == "alpha\ngamma\n"
    assert (workspace / "a.txt").read_bytes() == BOM + b"alpha\ngamma\n"


async def test_a_bom_written_to_an_open_file_goes_to_the_disk_not_into_the_buffer(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    calls = [
        Call("edit_file", {"path": "a.txt", "source_text": "alpha", "target_text": "beta"}),
        # Its own edit is what the session saw last: the write is not refused as stale.
        Call("write_file", {"path": "a.txt", "content": "\ufeffomega\n"}),
    ]
    editor, (edited, written) = await run_on_open_file(
        start, fake_llm, workspace, b"alpha\n", "alpha\n", calls
    )
    assert [edited["kind"], written["kind"]] == ["tool_completed", "tool_completed"]
    assert written["via"] == "editor"
    assert editor.text(workspace / "a.txt") == "omega\n"
    assert not any("\ufeff" in text for text in new_texts(editor))
    assert (workspace / "a.txt").read_bytes() == BOM + b"omega\n"


async def test_an_edit_of_an_open_crlf_file_keeps_its_line_endings(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    # Neovim sends a 'fileformat=dos' buffer's text with CRLF line endings.
    calls = [Call("edit_file", {"path": "a.txt", "source_text": "beta", "target_text": "gamma"})]
    editor, (edited,) = await run_on_open_file(
        start, fake_llm, workspace, BOM + b"alpha\r\nbeta\r\n", "alpha\r\nbeta\r\n", calls
    )
    assert (edited["kind"], edited["via"]) == ("tool_completed", "editor")
    assert editor.text(workspace / "a.txt") == "alpha\r\ngamma\r\n"
    assert (workspace / "a.txt").read_bytes() == BOM + b"alpha\r\ngamma\r\n"


async def test_a_buffer_that_holds_its_bom_as_text_keeps_it_there(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    calls = [Call("edit_file", {"path": "a.txt", "source_text": "beta", "target_text": "gamma"})]
    editor, (edited,) = await run_on_open_file(
        start, fake_llm, workspace, BOM + b"alpha\nbeta\n", "\ufeffalpha\nbeta\n", calls
    )
    assert (edited["kind"], edited["via"]) == ("tool_completed", "editor")
    assert editor.text(workspace / "a.txt") == "\ufeffalpha\ngamma\n"
    assert (workspace / "a.txt").read_bytes() == BOM + b"alpha\ngamma\n"
