"""A plain LSP client (no harness9 plugin: no `experimental.harness9`) drives the daemon with
standard LSP only: code actions, `workspace/executeCommand`, `$/progress`, `window/showMessage`,
`window/showDocument`, `window/showMessageRequest` and `workspace/applyEdit`."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.editor import Editor
from tests.fakellm import Call, FakeLLM, Reply
from tests.fakellm.router import Router

pytestmark = pytest.mark.timeout(60)

BROKEN = "def total(items):\n    return sum(item for item in itemz)\n"
FIXED = "def total(items):\n    return sum(item for item in items)\n"


def _capabilities(ask: bool = True) -> types.ClientCapabilities:
    window = types.WindowClientCapabilities(
        work_done_progress=True,
        show_message=types.ShowMessageRequestClientCapabilities() if ask else None,
        show_document=types.ShowDocumentClientCapabilities(support=True),
    )
    workspace = types.WorkspaceClientCapabilities(
        apply_edit=True,
        workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True))
    return types.ClientCapabilities(window=window, workspace=workspace)


async def plain_daemon(start: StartDaemon, fake: FakeLLM, root: Path, ask: bool = True,
                       approvals: str = "yolo", settings: dict[str, Any] | None = None) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test",
           "HARNESS9_APPROVALS": approvals}
    daemon = await start(None, env=env, initialize=False)
    params = types.InitializeParams(capabilities=_capabilities(ask), root_uri=root.as_uri(),
                                    initialization_options=settings)
    daemon.initialized = await daemon.client.initialize_session(params)
    return daemon


def _open(daemon: Daemon, path: Path, text: str, language: str = "python") -> tuple[Editor, str]:
    editor = Editor(daemon)
    editor.open(path, text, language)
    return editor, path.as_uri()


async def _actions(daemon: Daemon, uri: str, line: int,
                   diagnostics: list[types.Diagnostic] | None = None) -> list[Any]:
    where = types.Range(types.Position(line, 0), types.Position(line, 0))
    params = types.CodeActionParams(types.TextDocumentIdentifier(uri), where,
                                    types.CodeActionContext(diagnostics=diagnostics or []))
    return list(await _as_sent(daemon, "textDocument/codeAction", params) or [])


async def _as_sent(daemon: Daemon, method: str, params: Any) -> Any:
    """The answer's JSON as the daemon sent it (lsprotocol reads a code action that carries a
    command as a `Command`, dropping its kind)."""
    protocol = daemon.client.protocol
    msg_id = f"raw-{id(params)}"
    future = protocol.send_request(method, params, msg_id=msg_id)
    protocol._result_types.pop(msg_id, None)  # left as JSON, not structured
    return await asyncio.wrap_future(future)


async def _execute(daemon: Daemon, command: dict[str, Any]) -> dict[str, str]:
    params = types.ExecuteCommandParams(command=command["command"],
                                        arguments=command.get("arguments", []))
    return dict(await daemon.client.workspace_execute_command_async(params))


async def _finished_message(daemon: Daemon, count: int = 1) -> str:
    async with asyncio.timeout(30):
        while len(_messages(daemon)) < count:
            await asyncio.sleep(0.05)
    return _messages(daemon)[count - 1]


def _messages(daemon: Daemon) -> list[str]:
    shown = [m["message"] if isinstance(m, dict) else m.message for m in daemon.client.messages]
    return [m for m in shown if m.startswith("harness9 (")]


async def test_commands_and_code_actions_are_offered_to_plain_clients_only(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    plain = await plain_daemon(start, fake_llm, workspace)
    commands = plain.initialized.capabilities.execute_command_provider.commands
    assert sorted(commands) == ["harness9.cancel", "harness9.fix", "harness9.run",
                                "harness9.transcript"]
    assert plain.initialized.capabilities.code_action_provider is not None
    ours = await start(workspace, approval_requests=True)
    assert ours.initialized.capabilities.execute_command_provider is None
    assert ours.initialized.capabilities.code_action_provider is None


async def test_a_quick_fix_fixes_the_problem_end_to_end(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    source = workspace / "total.py"
    source.write_text(BROKEN)
    fake_llm.script([
        Reply("Fixing the name.", [Call("edit_file", {
            "path": "total.py", "source_text": "in itemz)", "target_text": "in items)"})]),
        Reply("Fixed: `itemz` was a typo of `items`.\nNothing else changed."),
    ])
    daemon = await plain_daemon(start, fake_llm, workspace)
    editor, uri = _open(daemon, source, BROKEN)
    problem = types.Diagnostic(
        range=types.Range(types.Position(1, 32), types.Position(1, 37)),
        message="Undefined name `itemz`", source="ruff", code="F821",
        severity=types.DiagnosticSeverity.Error)
    actions = await _actions(daemon, uri, 1, [problem])
    assert [a["title"] for a in actions] == ["Fix with harness9: Undefined name `itemz`"]
    assert actions[0]["kind"] == "quickfix", actions

    started = await _execute(daemon, actions[0]["command"])
    assert set(started) == {"runId", "sessionId"}
    assert daemon.wire.problems == []  # the command's answer was checked against the schema
    message = await _finished_message(daemon)
    assert message.startswith("harness9 (completed): Fixed: `itemz` was a typo of `items`.")
    assert source.read_text() == editor.text(source) == FIXED
    prompt = fake_llm.requests[0].messages[-1]["content"]
    assert "Undefined name `itemz` (ruff F821)" in str(prompt)
    assert "line 2" in str(prompt)
    # The run reported on $/progress and opened its live transcript.
    reports = [r for values in daemon.client.progress_reports.values() for r in values]
    assert any("edit_file" in str(getattr(r, "message", r)) for r in reports)
    shown = daemon.client.shown_documents
    assert len(shown) == 1
    uri = shown[0]["uri"] if isinstance(shown[0], dict) else shown[0].uri
    transcript = Path(uri.removeprefix("file://"))
    text = transcript.read_text()  # noqa: ASYNC240 (a small file, once)
    assert "Fix this problem in total.py" in text and "edit_file: total.py" in text
    assert "**completed**" in text and str(transcript) in message


async def test_an_instruction_comment_runs_and_is_removed(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    source = workspace / "util.ts"
    before = "// harness9: add a function double(n) that returns n * 2\nexport const one = 1;\n"
    source.write_text(before)
    fake_llm.script([
        Reply("Adding it.", [Call("edit_file", {
            "path": "util.ts", "source_text": "export const one = 1;\n",
            "target_text": "export const one = 1;\n"
                           "export const double = (n: number) => n * 2;\n"})]),
        Reply("Added double."),
    ])
    daemon = await plain_daemon(start, fake_llm, workspace)
    editor, uri = _open(daemon, source, before, "typescript")
    actions = await _actions(daemon, uri, 0)
    assert [a["title"] for a in actions] == [
        "harness9: add a function double(n) that returns n * 2"]
    await _execute(daemon, actions[0]["command"])
    assert (await _finished_message(daemon)).startswith("harness9 (completed): Added double.")
    prompt = str(fake_llm.requests[0].messages[-1]["content"])
    assert prompt.startswith("add a function double(n) that returns n * 2")
    async with asyncio.timeout(10):
        while source.read_text().startswith("//"):
            await asyncio.sleep(0.05)
    after = "export const one = 1;\nexport const double = (n: number) => n * 2;\n"
    assert source.read_text() == editor.text(source) == after


async def test_an_instruction_comment_stays_when_the_setting_says_so(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    source = workspace / "notes.py"
    before = "# harness9: add a constant TWO = 2\nONE = 1\n"
    source.write_text(before)
    fake_llm.script([
        Reply("", [Call("edit_file", {"path": "notes.py", "source_text": "ONE = 1\n",
                                      "target_text": "ONE = 1\nTWO = 2\n"})]),
        Reply("Added TWO."),
    ])
    daemon = await plain_daemon(start, fake_llm, workspace,
                                settings={"removeInstructionComments": False,
                                          "languageServers": {}})
    _, uri = _open(daemon, source, before)
    (action,) = await _actions(daemon, uri, 0)
    await _execute(daemon, action["command"])
    assert (await _finished_message(daemon)).startswith("harness9 (completed): Added TWO.")
    await asyncio.sleep(0.3)  # a removal would follow the closing message at once
    assert source.read_text() == before + "TWO = 2\n"


async def test_a_client_that_cannot_ask_has_its_calls_declined_saying_why(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    # No `window.showMessage`, and an error answer to the question (as released Helix gives):
    # declined, saying why, and the next question of the connection is not sent at all.
    fake_llm.script([
        Reply("Running.", [Call("bash", {"command": "echo hi > made.txt"})]),
        Reply("Again.", [Call("bash", {"command": "echo hi > again.txt"})]),
        Reply("Both were declined."),
    ])
    daemon = await plain_daemon(start, fake_llm, workspace, ask=False, approvals="ask")
    questions: list[Any] = []

    @daemon.client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def _show(ls: Any, params: Any) -> Any:
        questions.append(params)
        raise JsonRpcMethodNotFound(message="Method not found: window/showMessageRequest")

    await _execute(daemon, {"command": "harness9.run", "arguments": [{"prompt": "make it"}]})
    assert (await _finished_message(daemon)).startswith(
        "harness9 (completed): Both were declined")
    assert len(questions) == 1
    assert not (workspace / "made.txt").exists() and not (workspace / "again.txt").exists()
    for answered in fake_llm.requests[1:3]:
        assert "this editor cannot show questions" in str(answered.messages[-1]["content"])
    answer = await _execute(daemon, {"command": "harness9.transcript"})
    transcript = Path(answer["path"]).read_text()  # noqa: ASYNC240 (a small file, once)
    notes = [line for line in transcript.splitlines()
             if line.startswith("*") and "this editor cannot show questions" in line]
    assert len(notes) == 2, transcript


async def test_an_instruction_comment_stays_when_a_call_it_needed_was_declined(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    source = workspace / "count.py"
    before = "# harness9: count the Python files into count.txt\nONE = 1\n"
    source.write_text(before)
    fake_llm.script([
        Reply("Counting.", [Call("bash", {"command": "ls *.py | wc -l > count.txt"})]),
        Reply("I could not count them: the command was declined."),
    ])
    daemon = await plain_daemon(start, fake_llm, workspace, ask=False, approvals="ask")

    @daemon.client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def _show(ls: Any, params: Any) -> Any:
        raise JsonRpcMethodNotFound(message="Method not found: window/showMessageRequest")

    _, uri = _open(daemon, source, before)
    (action,) = [a for a in await _actions(daemon, uri, 0) if "count" in a["title"]]
    await _execute(daemon, action["command"])
    assert (await _finished_message(daemon)).startswith("harness9 (completed): I could not")
    await asyncio.sleep(0.3)  # a removal would follow the closing message at once
    assert source.read_text() == before and not (workspace / "count.txt").exists()
    answer = await _execute(daemon, {"command": "harness9.transcript"})
    assert "kept the instruction comment" in Path(answer["path"]).read_text()  # noqa: ASYNC240


async def test_a_client_that_asks_without_saying_so_is_asked(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    # eglot before 1.19 announces no `window.showMessage` and shows the question all the same.
    fake_llm.script([
        Reply("Running.", [Call("bash", {"command": "echo hi > made.txt"})]),
        Reply("Made it."),
    ])
    daemon = await plain_daemon(start, fake_llm, workspace, ask=False, approvals="ask")
    questions: list[Any] = []

    @daemon.client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def _show(ls: Any, params: Any) -> Any:
        questions.append(params)
        return {"title": "Allow once"}

    await _execute(daemon, {"command": "harness9.run", "arguments": [{"prompt": "make it"}]})
    assert (await _finished_message(daemon)).startswith("harness9 (completed): Made it.")
    assert [q.message for q in questions] == ["harness9 asks to run bash: echo hi > made.txt"]
    assert (workspace / "made.txt").read_text() == "hi\n"


async def test_runs_continue_the_workspace_session_until_a_new_one_is_asked(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("one"), Reply("two"), Reply("three")])
    daemon = await plain_daemon(start, fake_llm, workspace)
    run = {"command": "harness9.run", "arguments": [{"prompt": "first"}]}
    first = await _execute(daemon, run)
    await _finished_message(daemon, 1)
    second = await _execute(daemon, {**run, "arguments": [{"prompt": "second"}]})
    await _finished_message(daemon, 2)
    third = await _execute(daemon, {**run, "arguments": [{"prompt": "x", "newSession": True}]})
    await _finished_message(daemon, 3)
    assert first["sessionId"] == second["sessionId"] != third["sessionId"]
    assert len(fake_llm.requests[1].messages) > len(fake_llm.requests[2].messages)


async def test_bad_command_arguments_name_the_field(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon = await plain_daemon(start, fake_llm, workspace)
    with pytest.raises(Exception, match="prompt"):
        await _execute(daemon, {"command": "harness9.run", "arguments": [{}]})
    with pytest.raises(Exception, match="diagnostics"):
        await _execute(daemon, {"command": "harness9.fix",
                                "arguments": [{"uri": (workspace / "a.txt").as_uri()}]})


async def test_a_childs_calls_are_rows_nested_under_its_agent_in_the_transcript(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.responder = Router({
        "look": [Reply("", [Call("task", {"description": "find", "prompt": "CHILD find"},
                                 id="t1")]), Reply("Found it.")],
        "CHILD": [Reply("", [Call("read_file", {"path": "a.txt"}, id="r1")]),
                  Reply("alpha")],
    })
    daemon = await plain_daemon(start, fake_llm, workspace)
    await _execute(daemon, {"command": "harness9.run", "arguments": [{"prompt": "look"}]})
    assert (await _finished_message(daemon)).startswith("harness9 (completed): Found it.")
    answer = await _execute(daemon, {"command": "harness9.transcript"})
    transcript = Path(answer["path"]).read_text()  # noqa: ASYNC240 (a small file, once)
    rows = transcript.split("> look\n\n", 1)[1]
    assert re.match(r"- \*explore\* agent, for task `t1`:\n  - ✓ `read_file: a\.txt` · \d+ ms\n"
                    r"- ✓ `task: .*` · \d+ ms\n\nFound it\.", rows), rows
