"""The service without any front-end: runs on sessions, events, errors, cancel, approvals."""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from harness9.engine.events import ApprovalResolved, Event, RunFinished
from harness9.service.agent_service import AgentService
from harness9.service.config.settings import RunSettings
from harness9.service.run_request import RunContext, RunRequest, RunWiring
from harness9.service.service_errors import RunCancelled, RunError, UnknownSession
from harness9.tools.approvals.step import Answer, ApprovalAnswer, ApprovalRequest, Approver
from tests.fakellm import Call, FakeLLM, Hang, Reply

pytestmark = pytest.mark.timeout(30)


class Recorder:
    """A front-end in miniature: keeps the events and the context of each run."""

    def __init__(self, approver: Approver | None = None) -> None:
        self.events: list[Event] = []
        self.contexts: list[RunContext] = []
        self.approver = approver

    async def wire(self, context: RunContext) -> RunWiring:
        self.contexts.append(context)
        return RunWiring([self.events.append], self.approver)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


def request(root: Path, prompt: str = "go", session_id: str | None = None,
            **settings: object) -> RunRequest:
    base = RunSettings(provider="openai", approvals_mode="yolo")
    return RunRequest(prompt, str(root), replace(base, **settings), session_id)


async def test_a_run_continues_its_session_and_reports_every_step(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("", [Call("bash", {"command": "echo hi"})]), Reply("first"),
                 Reply("second")])
    service, front = AgentService(), Recorder()
    first = await service.turns.run(request(tmp_path), front.wire)
    second = await service.turns.run(request(tmp_path, "again", first.ids.session_id), front.wire)
    assert (first.result.text, second.result.text) == ("first", "second")
    assert second.ids.session_id == first.ids.session_id != second.ids.run_id
    assert front.kinds().count("run_finished") == 2
    assert "tool_finished" in front.kinds()
    # The second run sent the whole conversation: system, prompt, tool call, result, answer.
    assert len(fake.requests[2].messages) == 6


async def test_unknown_and_busy_sessions_are_refused(fake: FakeLLM, tmp_path: Path) -> None:
    fake.script([Hang()])
    service, front = AgentService(), Recorder()
    with pytest.raises(UnknownSession):
        await service.turns.run(request(tmp_path, session_id="s-nope"), front.wire)
    running = asyncio.create_task(service.turns.run(request(tmp_path), front.wire))
    while not front.contexts:
        await asyncio.sleep(0.01)
    session_id = front.contexts[0].ids.session_id
    with pytest.raises(RunError) as busy:
        await service.turns.run(replace(request(tmp_path, session_id=session_id), queue=False),
                                front.wire)
    assert busy.value.kind == "busy" and busy.value.data["sessionId"] == session_id
    assert await service.cancel(None, session_id) is True
    with pytest.raises(RunCancelled):
        await running
    finished = [e for e in front.events if isinstance(e, RunFinished)]
    assert [e.status for e in finished] == ["cancelled"]
    assert await service.cancel(None, session_id) is False  # nothing runs any more


async def test_failures_are_classified_and_still_end_with_run_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    service, front = AgentService(), Recorder()
    with pytest.raises(RunError) as failed:
        await service.turns.run(request(tmp_path), front.wire)
    assert failed.value.kind == "config" and "OPENAI_API_KEY" in failed.value.message
    finished = [e for e in front.events if isinstance(e, RunFinished)]
    assert [(e.status, (e.error or {}).get("kind")) for e in finished] == [("error", "config")]


class Asker:
    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def ask(self, question: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(question)
        return ApprovalAnswer(self.answers.pop(0))


async def test_allow_for_the_session_lasts_across_runs_of_the_session(
    fake: FakeLLM, tmp_path: Path
) -> None:
    same = Reply("", [Call("bash", {"command": "echo same"})])
    fake.script([same, Reply("one"), same, Reply("two")])
    asker = Asker(Answer.ALLOW_SESSION)
    service, front = AgentService(), Recorder(asker)
    first = await service.turns.run(request(tmp_path, approvals_mode="ask"), front.wire)
    await service.turns.run(request(tmp_path, "again", first.ids.session_id, approvals_mode="ask"),
                            front.wire)
    assert [q.title for q in asker.asked] == ["bash: echo same"]
    resolved = [(e.decision, e.by) for e in front.events if isinstance(e, ApprovalResolved)]
    assert resolved == [("allow_session", "user"), ("allow", "session")]


async def test_without_an_approver_a_question_is_a_rejection(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("", [Call("bash", {"command": "touch planted"})]), Reply("ok")])
    service, front = AgentService(), Recorder(None)
    await service.turns.run(request(tmp_path, approvals_mode="ask"), front.wire)
    assert not (tmp_path / "planted").exists()
    assert "nobody could be asked" in str(fake.requests[1].body)


@pytest.mark.parametrize("checkpoints", [True, False])
async def test_a_deleted_workspace_folder_is_a_classified_error_and_the_session_goes_on(
    fake: FakeLLM, tmp_path: Path, checkpoints: bool
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    fake.script([Reply("", [Call("bash", {"command": "echo hi"})]), Reply("first"),
                 Reply("", [Call("read_file", {"path": "a.txt"})]), Reply("back")])
    service, front = AgentService(), Recorder()
    first = await service.turns.run(request(root, checkpoints=checkpoints), front.wire)
    session_id = first.ids.session_id
    shutil.rmtree(root)
    with pytest.raises(RunError) as gone:
        await service.turns.run(request(root, "again", session_id, checkpoints=checkpoints),
                                front.wire)
    assert gone.value.kind == "config"
    assert gone.value.message == f"the workspace folder no longer exists: {root}"
    finished = [e for e in front.events if isinstance(e, RunFinished)]
    assert finished[-1].status == "error" and finished[-1].error is not None
    assert finished[-1].error["kind"] == "config"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    third = await service.turns.run(request(root, "and now", session_id, checkpoints=checkpoints),
                                    front.wire)
    assert third.result.text == "back"
    assert fake.rejected == []
