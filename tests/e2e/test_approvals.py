"""Approvals end to end: the daemon asks the editor before a tool call runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.raw import Spawn, spawn
from tests.fakellm import Call, FakeLLM, Reply

__all__ = ["spawn"]  # the fixture
pytestmark = pytest.mark.timeout(60)
ASK = {"HARNESS9_APPROVALS": "ask"}


class Editor:
    """Answers `agent/requestApproval` from a list, recording what it was asked."""

    def __init__(self, daemon: Daemon, *answers: dict[str, Any], delay: float = 0) -> None:
        self.asked: list[dict[str, Any]] = []
        self.answers = list(answers)

        @daemon.client.feature("agent/requestApproval")
        async def _ask(ls: Any, params: Any) -> dict[str, Any]:
            self.asked.append(dict(params))
            await asyncio.sleep(delay)
            return self.answers.pop(0)


async def asking_daemon(start: StartDaemon, fake: FakeLLM, root: Path, **kw: Any) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", **ASK, **kw.pop("env", {})}
    return await start(root, env=env, approval_requests=True, **kw)


def kinds(daemon: Daemon, run_id: str, *wanted: str) -> list[dict[str, Any]]:
    return [n for n in daemon.of_run(run_id) if n["kind"] in wanted]


async def test_the_editor_is_asked_with_the_diff_and_its_answers_hold(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("edit_file", {"path": "a.txt", "source_text": "alpha",
                                      "target_text": "beta"}),
                   Call("bash", {"command": "echo hi > planted.txt"})]),
        Reply("ok"),
    ])
    daemon = await asking_daemon(start, fake_llm, workspace)
    editor = Editor(daemon, {"decision": "allow_once"},
                    {"decision": "reject", "message": "no files in the root, please"})
    result = await daemon.run(prompt="go")
    edit, bash = editor.asked
    assert (edit["tool"], edit["title"], edit["path"], edit["turn"]) == (
        "edit_file", "edit_file: a.txt", "a.txt", 1
    )
    assert (edit["toolKind"], bash["toolKind"]) == ("edit", "execute")
    assert edit["diff"] == "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+beta\n"
    assert [o["id"] for o in edit["options"]] == ["allow_once", "allow_session", "reject"]
    assert (bash["title"], bash["arguments"]) == (
        "bash: echo hi > planted.txt", {"command": "echo hi > planted.txt"}
    )
    assert "diff" not in bash and edit["runId"] == result["runId"]
    assert (workspace / "a.txt").read_text() == "beta\n"
    assert not (workspace / "planted.txt").exists()
    resolved = kinds(daemon, result["runId"], "approval_resolved")
    assert [(n["tool"], n["decision"], n["by"]) for n in resolved] == [
        ("edit_file", "allow_once", "user"), ("bash", "reject", "user")
    ]
    requested = kinds(daemon, result["runId"], "approval_requested")
    assert [n["toolKind"] for n in requested] == ["edit", "execute"]
    failed = kinds(daemon, result["runId"], "tool_failed")
    # the user's reason, for the clients' rows
    assert [(n["tool"], n["reason"], n["message"]) for n in failed] == [
        ("bash", "rejected", "no files in the root, please")
    ]
    second_request = json.dumps(fake_llm.requests[1].body)
    assert "the user rejected this bash call: no files in the root, please" in second_request


CALL_KINDS = ("approval_requested", "approval_resolved", "tool_started", "tool_completed",
              "tool_failed")


async def test_a_call_asked_about_starts_only_once_allowed(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("edit_file", {"path": "a.txt", "source_text": "alpha",
                                      "target_text": "beta"}, id="c-edit"),
                   Call("bash", {"command": "echo hi"}, id="c-bash")]),
        Reply("ok"),
    ])
    daemon = await asking_daemon(start, fake_llm, workspace)
    Editor(daemon, {"decision": "allow_once"}, {"decision": "reject"})
    result = await daemon.run(prompt="go")
    notes = kinds(daemon, result["runId"], *CALL_KINDS)

    def of(call_id: str) -> list[str]:
        return [n["kind"] for n in notes if n["toolCallId"] == call_id]

    assert of("c-edit") == ["approval_requested", "approval_resolved", "tool_started",
                            "tool_completed"]
    assert of("c-bash") == ["approval_requested", "approval_resolved", "tool_failed"]
    failed = [n for n in notes if n["kind"] == "tool_failed"]
    assert [n["toolCallId"] for n in failed] == ["c-bash"]
    assert "message" not in failed[0]  # rejected with no reason given: no message
    # the question announces the call whole: a client can show its row from it
    asked = [n for n in notes if n["kind"] == "approval_requested"]
    assert [(n["toolCallId"], n["tool"], n["toolKind"], n["arguments"]) for n in asked] == [
        ("c-edit", "edit_file", "edit",
         {"path": "a.txt", "source_text": "alpha", "target_text": "beta"}),
        ("c-bash", "bash", "execute", {"command": "echo hi"}),
    ]
    assert all(n["turn"] == 1 for n in notes)


async def test_a_stock_client_is_asked_with_show_message_request(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "echo one"})]),
                     Reply("", [Call("bash", {"command": "echo two"})]), Reply("ok")])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", **ASK}
    daemon = await start(workspace, env=env)
    questions: list[types.ShowMessageRequestParams] = []
    answers = iter([types.MessageActionItem(title="Allow once"), None])  # then dismissed

    @daemon.client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def _show(ls: Any, params: types.ShowMessageRequestParams) -> Any:
        questions.append(params)
        return next(answers)

    result = await daemon.run(prompt="go")
    assert [q.message for q in questions] == [
        "harness9 asks to run bash: echo one", "harness9 asks to run bash: echo two"
    ]
    assert questions[0].type == types.MessageType.Warning
    assert [a.title for a in questions[0].actions or []] == [
        "Allow once", "Allow for this session", "Reject"
    ]
    outcomes = kinds(daemon, result["runId"], "tool_completed", "tool_failed")
    assert [(n["kind"], n.get("reason")) for n in outcomes] == [
        ("tool_completed", None), ("tool_failed", "rejected")
    ]


@pytest.mark.parametrize("answer", [{"title": 5}, "Allow once", [], {"title": "Allow twice"}])
async def test_a_malformed_show_message_request_answer_is_a_rejection(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, answer: Any
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "echo one"})]), Reply("ok")])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", **ASK}
    daemon = await start(workspace, env=env)

    @daemon.client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def _show(ls: Any, params: types.ShowMessageRequestParams) -> Any:
        return answer

    result = await asyncio.wait_for(daemon.run(prompt="go"), 20)
    outcomes = kinds(daemon, result["runId"], "tool_completed", "tool_failed")
    assert [(n["kind"], n.get("reason")) for n in outcomes] == [("tool_failed", "rejected")]
    assert result["status"] == "completed"


async def test_allow_for_the_session_is_not_asked_again_in_the_next_run(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    same = Reply("", [Call("bash", {"command": "echo same"})])
    fake_llm.script([same, Reply("ok"), same, Reply("ok again")])
    daemon = await asking_daemon(start, fake_llm, workspace)
    editor = Editor(daemon, {"decision": "allow_session"})
    first = await daemon.run(prompt="one")
    second = await daemon.run(prompt="two", sessionId=first["sessionId"])
    assert len(editor.asked) == 1
    resolved = kinds(daemon, second["runId"], "approval_resolved")
    assert [(n["decision"], n["by"]) for n in resolved] == [("allow", "session")]
    assert kinds(daemon, second["runId"], "tool_completed")[0]["output"].strip() == "same"


async def test_deny_rules_and_read_only_refuse_without_asking(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("bash", {"command": "ls && rm -rf ."}),
                   Call("write_file", {"path": "b.txt", "content": "x"}),
                   Call("read_file", {"path": "a.txt"})]),
        Reply("ok"),
    ])
    daemon = await asking_daemon(start, fake_llm, workspace)
    editor = Editor(daemon)  # any question fails: nothing is left to answer
    approvals = {"mode": "read-only", "deny": ["bash(rm *)"]}
    result = await daemon.run(prompt="go", approvals=approvals)
    assert editor.asked == []
    resolved = kinds(daemon, result["runId"], "approval_resolved")
    assert [(n["tool"], n["decision"], n["by"], n.get("rule")) for n in resolved] == [
        ("bash", "deny", "rule", "bash(rm *)"), ("write_file", "deny", "mode", None)
    ]
    failed = kinds(daemon, result["runId"], "tool_failed")
    assert [(n["reason"], n["message"]) for n in failed] == [
        ("denied", "deny rule bash(rm *)"), ("denied", "read-only mode: only read_file may run")
    ]
    # a denied call never started: the read that was allowed is the only start
    assert [n["tool"] for n in kinds(daemon, result["runId"], "tool_started")] == ["read_file"]
    assert (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()


async def test_calls_that_need_no_asking_run_while_a_question_waits(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("bash", {"command": "sleep 0.3; echo slow"}),
                   Call("read_file", {"path": "a.txt"})]),
        Reply("ok"),
    ])
    daemon = await asking_daemon(start, fake_llm, workspace, init={"toolTimeoutMs": 800})
    Editor(daemon, {"decision": "allow_once"}, delay=1.2)  # longer than the tool timeout
    result = await daemon.run(prompt="go")
    notes = daemon.of_run(result["runId"])
    order = [(n["kind"], n.get("tool")) for n in notes
             if n["kind"] in ("tool_completed", "approval_resolved")]
    assert order == [("tool_completed", "read_file"), ("approval_resolved", "bash"),
                     ("tool_completed", "bash")]
    bash = next(n for n in notes if n["kind"] == "tool_completed" and n["tool"] == "bash")
    assert bash["output"].strip() == "slow"  # the waiting did not count against its timeout


async def test_cancelling_while_a_question_is_pending_withdraws_it(
    spawn: Spawn, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "touch planted"})]), Reply("next")])
    daemon = spawn({**fake_llm.env(), "HARNESS9_PROVIDER": "openai", **ASK})
    daemon.send({"id": 1, "method": "initialize", "params": {
        "rootUri": workspace.as_uri(),
        "capabilities": {"experimental": {"harness9": {"approvalRequests": True}}}}})
    daemon.until_id(1)
    daemon.send({"method": "initialized", "params": {}})
    daemon.send({"id": 2, "method": "agent/run", "params": {"prompt": "go"}})
    question = daemon.receive()
    while question.get("method") != "agent/requestApproval":
        question = daemon.receive()
    session_id = question["params"]["sessionId"]
    daemon.send({"method": "$/cancelRequest", "params": {"id": 2}})
    seen: list[dict[str, Any]] = []
    while True:
        message = daemon.receive()
        seen.append(message)
        if message.get("id") == 2:
            break
    withdrawn = [m for m in seen if m.get("method") == "$/cancelRequest"]
    assert [m["params"]["id"] for m in withdrawn] == [question["id"]]
    finished = [m["params"] for m in seen if m.get("method") == "agent/progress"
                and m["params"]["kind"] == "run_finished"]
    assert [f["status"] for f in finished] == ["cancelled"]
    assert seen[-1]["error"]["code"] == -32800
    assert not (workspace / "planted").exists()
    # The session takes the next prompt (and the late answer to the old question is ignored).
    daemon.send({"id": question["id"], "result": {"decision": "allow_once"}})
    daemon.send({"id": 3, "method": "agent/run", "params": {"prompt": "again",
                                                            "sessionId": session_id}})
    _, answer = daemon.until_id(3)
    assert answer["result"]["text"] == "next"
    assert not (workspace / "planted").exists()
    # Shown again, the call says it never ran (not that it was stopped while running).
    daemon.send({"id": 4, "method": "agent/session", "params": {"sessionId": session_id}})
    _, shown = daemon.until_id(4)
    [call] = [c for m in shown["result"]["messages"] for c in m.get("toolCalls", ())]
    assert call["outcome"]["status"] == "cancelled" and call["outcome"]["started"] is False
    assert call["outcome"]["asked"] is True and "approval" not in call["outcome"]
    daemon.close()


async def test_the_question_shows_the_whole_command_escaped_and_why(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    hidden = "echo tests pass\r; touch planted"
    fake_llm.script([
        Reply("", [Call("bash", {"command": hidden}),
                   Call("write_file", {"path": ".git/config", "content": "[core]\n"})]),
        Reply("ok"),
    ])
    # auto-edit and an allow rule would let any write run: one to .git/ is asked all the same.
    daemon = await asking_daemon(start, fake_llm, workspace)
    editor = Editor(daemon, {"decision": "reject"}, {"decision": "reject"})
    approvals = {"mode": "auto-edit", "allow": ["write_file(**)"]}
    result = await daemon.run(prompt="go", approvals=approvals)
    bash, write = editor.asked
    assert bash["title"] == "bash: echo tests pass\\r; touch planted"
    assert bash["arguments"] == {"command": hidden} and "reason" not in bash
    assert write["title"] == "write_file: .git/config"
    assert write["reason"] == "writes .git/config, which controls what git runs"
    requested = kinds(daemon, result["runId"], "approval_requested")
    assert [(n["title"], n["arguments"], n.get("reason")) for n in requested] == [
        (bash["title"], {"command": hidden}, None),
        (write["title"], {"path": ".git/config", "content": "[core]\n"}, write["reason"]),
    ]
    assert not (workspace / "planted").exists() and not (workspace / ".git").exists()


async def test_a_stock_client_sees_the_escaped_command_and_why(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    long = "npm test -- " + "--reporter=dot " * 12 + "\u2028; touch planted"
    fake_llm.script([Reply("", [Call("bash", {"command": "npm test\x1c; touch planted"}),
                                Call("bash", {"command": long}),
                                Call("edit_file", {"path": ".vscode/settings.json",
                                                   "source_text": "a", "target_text": "b"})]),
                     Reply("ok")])
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text("a\n")
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_APPROVALS": "auto-edit"}
    daemon = await start(workspace, env=env)
    questions: list[str] = []

    @daemon.client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def _show(ls: Any, params: types.ShowMessageRequestParams) -> Any:
        questions.append(params.message)
        return None  # dismissed: a rejection

    await daemon.run(prompt="go")
    short, cut, edit = questions
    assert short == "harness9 asks to run bash: npm test\\x1c; touch planted"
    title, _, whole = cut.partition("; the whole command: ")
    assert title.endswith("…") and whole == long.replace("\u2028", "\\u2028")
    assert edit == ("harness9 asks to run edit_file: .vscode/settings.json: it writes "
                    ".vscode/settings.json, which configures the editor, and can make it "
                    "start programs (2 changed lines)")
    assert all(question.isprintable() for question in questions)
    assert not (workspace / "planted").exists()


async def test_a_session_shown_again_tells_each_call_as_it_went_live(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    # What a chat restored after a reload needs: each call's outcome as the live events told it
    # (an edit's counts and diff, the approval, a rejection that is not a failure).
    (workspace / "a.txt").write_text("alpha\n")
    fake_llm.script([
        Reply("", [Call("edit_file", {"path": "a.txt", "source_text": "alpha",
                                      "target_text": "beta"}),
                   Call("bash", {"command": "echo hi > planted.txt"}),
                   Call("read_file", {"path": "missing.txt"})]),
        Reply("ok"),
    ])
    live = await asking_daemon(start, fake_llm, workspace)
    Editor(live, {"decision": "allow_session"}, {"decision": "reject", "message": "not now"})
    result = await live.run(prompt="go")
    ended = {n["toolCallId"]: n for n in kinds(live, result["runId"], "tool_completed",
                                                "tool_failed")}
    resolved = {n["toolCallId"]: n for n in kinds(live, result["runId"], "approval_resolved")}
    await live.client.shutdown_session()

    again = await asking_daemon(start, fake_llm, workspace)  # a reload: a new daemon
    shown = await again.request("agent/session", {"sessionId": result["sessionId"]})
    calls = [c for m in shown["messages"] for c in m.get("toolCalls", ())]
    assert len(calls) == 3
    for call in calls:
        event = ended[call["id"]]
        told = {k: v for k, v in event.items()
                if k not in ("kind", "toolCallId", "tool", "toolKind", "output", "reason",
                             "runId", "sessionId", "seq")}
        outcome = dict(call["outcome"])
        status = outcome.pop("status")
        assert outcome.pop("started", True) is (status != "rejected")  # refused: never ran
        assert status == event.get("reason", "completed")
        approval = outcome.pop("approval", None)
        if call["id"] in resolved:
            assert approval == {k: resolved[call["id"]][k] for k in ("decision", "by")}
        else:
            assert approval is None
        assert outcome == told
    edit, bash, read = calls
    assert (edit["outcome"]["added"], edit["outcome"]["removed"]) == (1, 1)
    assert "+beta" in edit["outcome"]["diff"]
    assert edit["outcome"]["approval"]["decision"] == "allow_session"
    assert bash["outcome"]["status"] == "rejected"  # not "failed": the user said no
    assert bash["outcome"]["message"] == "not now"  # the reason, shown again too
    assert read["outcome"]["status"] == "error"
