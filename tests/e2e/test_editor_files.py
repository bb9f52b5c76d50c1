"""Editor-true files end to end: the agent reads the buffer, edits land through applyEdit."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.editor import Editor
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)

LINES = "".join(f"line {i}\n" for i in range(1, 51))


async def daemon_for(start: StartDaemon, fake: FakeLLM, root: Path, **kw: Any) -> Daemon:
    return await start(root, env={**fake.env(), "HARNESS9_PROVIDER": "openai"}, **kw)


def finished(daemon: Daemon, run_id: str) -> list[dict[str, Any]]:
    """The run's tool_completed and tool_failed notifications."""
    return [n for n in daemon.of_run(run_id) if n["kind"] in ("tool_completed", "tool_failed")]


def edit(source: str, target: str, path: str = "a.txt") -> Call:
    return Call("edit_file", {"path": path, "source_text": source, "target_text": target})


async def test_the_server_syncs_documents_incrementally(
    start: StartDaemon, workspace: Path
) -> None:
    daemon = await start(workspace, initialize=False)
    params = types.InitializeParams(types.ClientCapabilities(), root_uri=workspace.as_uri())
    answer = await daemon.client.initialize_session(params)
    sync = answer.capabilities.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert (sync.open_close, sync.change, bool(sync.save)) == (
        True, types.TextDocumentSyncKind.Incremental, True
    )


async def test_read_file_returns_the_unsaved_buffer_and_says_so(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("read_file", {"path": "a.txt"})]), Reply("ok")])
    daemon = await daemon_for(start, fake_llm, workspace)
    editor = Editor(daemon)
    editor.open(workspace / "a.txt", "alpha\n")
    editor.type(workspace / "a.txt", 1, "typed, not saved\n")
    result = await daemon.run(prompt="read")
    (read,) = finished(daemon, result["runId"])
    assert read["output"] == (
        "alpha\ntyped, not saved\n\n\n[this is the text of a.txt open in the editor; it has "
        "changes not saved to the file on disk]"
    )
    assert (workspace / "a.txt").read_text() == "alpha\n"


async def test_an_edit_of_an_open_document_is_one_minimal_versioned_apply_edit(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace / "a.txt").write_text(LINES)
    fake_llm.script([Reply("", [edit("line 25\n", "line twenty-five\n")]), Reply("ok")])
    daemon = await daemon_for(start, fake_llm, workspace)
    editor = Editor(daemon)
    editor.open(workspace / "a.txt", LINES)
    editor.type(workspace / "a.txt", 0, "# unsaved\n")  # the buffer is now at version 2
    result = await daemon.run(prompt="edit")
    (request,) = editor.edits
    assert request["label"] == "harness9: edit_file a.txt"
    (change,) = request["edit"]["documentChanges"]
    assert change["textDocument"] == {"uri": (workspace / "a.txt").as_uri(), "version": 2}
    # Only the changed span: "25" became "twenty-five" on line 26 (0-based 25) of the buffer.
    assert change["edits"] == [{
        "range": {"start": {"line": 25, "character": 5}, "end": {"line": 25, "character": 7}},
        "newText": "twenty-five",
    }]
    expected = "# unsaved\n" + LINES.replace("line 25\n", "line twenty-five\n")
    assert editor.text(workspace / "a.txt") == expected
    assert (workspace / "a.txt").read_text() == expected  # bash sees what the editor shows
    (done,) = finished(daemon, result["runId"])
    assert (done["kind"], done["path"], done["via"], done["added"], done["removed"]) == (
        "tool_completed", "a.txt", "editor", 1, 1
    )
    assert "-line 25\n+line twenty-five\n" in done["diff"]
    assert "diffTruncated" not in done


async def test_a_refused_apply_edit_fails_the_call_and_changes_nothing(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [edit("alpha", "beta")]), Reply("ok")])
    daemon = await daemon_for(start, fake_llm, workspace)
    editor = Editor(daemon, applied=False)
    editor.open(workspace / "a.txt", "alpha\n")
    result = await daemon.run(prompt="edit")
    (failed,) = finished(daemon, result["runId"])
    assert failed["kind"] == "tool_failed"
    assert failed["output"] == (
        "Error: the editor refused the change to a.txt (the user is typing); nothing was "
        "changed, in the editor or on disk. The user may be editing a.txt: read it again "
        "with read_file and retry"
    )
    assert len(editor.edits) == 1
    assert (workspace / "a.txt").read_text() == "alpha\n"
    assert editor.text(workspace / "a.txt") == "alpha\n"


@pytest.mark.parametrize("answer", [{"applied": "false"}, {"applied": 1}, ["applied"], 7])
async def test_an_apply_edit_answer_that_is_not_applied_true_is_a_refusal(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, answer: Any
) -> None:
    fake_llm.script([Reply("", [edit("alpha", "beta")]), Reply("ok")])
    daemon = await daemon_for(start, fake_llm, workspace)
    editor = Editor(daemon, answer=answer)
    editor.open(workspace / "a.txt", "alpha\n")
    result = await asyncio.wait_for(daemon.run(prompt="edit"), 20)
    (failed,) = finished(daemon, result["runId"])
    assert failed["kind"] == "tool_failed"
    assert failed["output"].startswith("Error: the editor refused the change to a.txt")
    assert (workspace / "a.txt").read_text() == "alpha\n"


async def test_a_client_without_apply_edit_gets_the_change_on_disk(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [edit("alpha", "beta")]), Reply("ok")])
    daemon = await daemon_for(start, fake_llm, workspace, apply_edit=False)
    editor = Editor(daemon)
    editor.open(workspace / "a.txt", "alpha\n")
    result = await daemon.run(prompt="edit")
    (done,) = finished(daemon, result["runId"])
    assert (done["kind"], done["via"]) == ("tool_completed", "disk")
    assert editor.edits == []
    assert (workspace / "a.txt").read_text() == "beta\n"


async def test_edits_through_the_editor_can_be_turned_off(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [edit("alpha", "beta")]), Reply("ok")])
    daemon = await daemon_for(start, fake_llm, workspace, init={"editsThroughEditor": False})
    editor = Editor(daemon)
    editor.open(workspace / "a.txt", "alpha\nunsaved\n")
    result = await daemon.run(prompt="edit")
    (done,) = finished(daemon, result["runId"])
    assert (done["kind"], done["via"], editor.edits) == ("tool_completed", "disk", [])
    # Matched against, and written to, the disk; the buffer is the user's.
    assert (workspace / "a.txt").read_text() == "beta\n"
    assert editor.text(workspace / "a.txt") == "alpha\nunsaved\n"


async def test_a_document_closed_before_the_edit_is_edited_on_disk(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("read_file", {"path": "a.txt"})]),
        Reply("", [edit("alpha", "beta")], first_byte_delay=0.5),  # the editor closes it
        Reply("ok"),
    ])
    daemon = await daemon_for(start, fake_llm, workspace)
    editor = Editor(daemon)
    editor.open(workspace / "a.txt", "alpha\n")

    closed = False

    def close_after_the_read(params: dict[str, Any]) -> None:
        nonlocal closed
        if params["kind"] == "tool_completed" and not closed:
            closed = True
            editor.close(workspace / "a.txt")

    daemon.on_progress = close_after_the_read
    result = await daemon.run(prompt="read, then edit")
    read, edited = finished(daemon, result["runId"])
    assert (read["kind"], edited["kind"], edited["via"]) == (
        "tool_completed", "tool_completed", "disk"
    )
    assert editor.edits == []
    assert (workspace / "a.txt").read_text() == "beta\n"


async def test_write_file_refuses_unread_and_changed_files_and_reports_its_diff(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    write = Call("write_file", {"path": "a.txt", "content": "omega\n"})
    fake_llm.script([
        Reply("", [write]),  # never read: refused
        Reply("", [Call("read_file", {"path": "a.txt"})]),
        Reply("", [Call("bash", {"command": "echo changed >> a.txt"})]),
        Reply("", [write]),  # changed by bash since the read: refused
        Reply("", [Call("read_file", {"path": "a.txt"})]),
        Reply("", [write]),  # read again: written
        Reply("ok"),
    ])
    daemon = await daemon_for(start, fake_llm, workspace)
    result = await daemon.run(prompt="rewrite a.txt")
    calls = finished(daemon, result["runId"])
    writes = [n for n in calls if n["tool"] == "write_file"]
    assert [n["kind"] for n in writes] == ["tool_failed", "tool_failed", "tool_completed"]
    assert "you have not read it in this session" in writes[0]["output"]
    assert "has changed since you last read or wrote it" in writes[1]["output"]
    done = writes[2]
    assert (done["path"], done["via"], done["added"], done["removed"]) == ("a.txt", "disk", 1, 2)
    assert done["diff"] == (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1 @@\n-alpha\n-changed\n+omega\n"
    )
    assert (workspace / "a.txt").read_text() == "omega\n"


async def test_write_file_refuses_a_buffer_the_user_changed_after_the_read(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("read_file", {"path": "a.txt"})]),
        Reply("", [Call("write_file", {"path": "a.txt", "content": "omega\n"})],
              first_byte_delay=0.5),  # the user types meanwhile
        Reply("ok"),
    ])
    daemon = await daemon_for(start, fake_llm, workspace)
    editor = Editor(daemon)
    editor.open(workspace / "a.txt", "alpha\n")

    def type_after_the_read(params: dict[str, Any]) -> None:
        if params["kind"] == "tool_completed" and params["tool"] == "read_file":
            editor.type(workspace / "a.txt", 0, "mine\n")

    daemon.on_progress = type_after_the_read
    result = await daemon.run(prompt="rewrite a.txt")
    _, write = finished(daemon, result["runId"])
    assert write["kind"] == "tool_failed"
    assert "has changed since you last read or wrote it" in write["output"]
    assert editor.edits == []
    assert editor.text(workspace / "a.txt") == "mine\nalpha\n"


async def test_a_long_change_reports_a_capped_diff(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    content = "".join(f"new {i}\n" for i in range(1000))
    fake_llm.script([
        Reply("", [Call("write_file", {"path": "long.txt", "content": content})]),
        Reply("ok"),
    ])
    daemon = await daemon_for(start, fake_llm, workspace)
    result = await daemon.run(prompt="write")
    (done,) = finished(daemon, result["runId"])
    assert (done["added"], done["removed"], done["diffTruncated"]) == (1000, 0, True)
    assert len(done["diff"].splitlines()) == 400
    assert done["diff"].startswith("--- /dev/null\n+++ b/long.txt\n")


async def test_an_attached_selection_is_read_from_the_unsaved_buffer(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("seen")])
    daemon = await daemon_for(start, fake_llm, workspace)
    editor = Editor(daemon)
    editor.open(workspace / "a.txt", "alpha\n")
    editor.type(workspace / "a.txt", 1, "typed, not saved\n")
    selection = {"uri": (workspace / "a.txt").as_uri(), "kind": "selection",
                 "range": {"start": {"line": 1, "character": 0},
                           "end": {"line": 2, "character": 0}}}
    await daemon.run(prompt="what is this?", context=[selection])
    sent = fake_llm.requests[-1].messages[-1]["content"]
    assert 'lines="2-2"' in sent and "typed, not saved" in sent
    assert (workspace / "a.txt").read_text() == "alpha\n"
