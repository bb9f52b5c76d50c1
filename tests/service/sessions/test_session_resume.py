"""Stored sessions through the service: a new daemon (a new service on the same state
directory) continues a session exactly where the last one left it."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from harness9.schema import Message, Role, ToolCall
from harness9.service.agent_service import AgentService
from harness9.service.config.settings import RunSettings
from harness9.service.service_errors import RunError, UnknownSession
from harness9.service.sessions.session_store import SessionStore
from harness9.service.state import state_dir, workspace_key
from tests.fakellm import Call, FakeLLM, Reply
from tests.service.test_runs import Asker, Recorder, request

pytestmark = pytest.mark.timeout(30)


def _two_runs_script() -> list[Reply]:
    weird = "line\u2028separator, nul \x00 and \u00e9"
    return [Reply("", [Call("bash", {"command": f"printf '%s' '{weird}'"}, id="c1")]),
            Reply(f"first {weird}"), Reply("second")]


async def test_a_resumed_session_sends_the_same_request_as_an_unbroken_one(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script(_two_runs_script())
    service = AgentService()
    first = await service.turns.run(request(tmp_path), Recorder().wire)
    await service.turns.run(request(tmp_path, "again", first.ids.session_id), Recorder().wire)
    unbroken = fake.requests[-1].body["messages"]
    service.close()

    fake.script(_two_runs_script())
    one = AgentService()
    first = await one.turns.run(request(tmp_path), Recorder().wire)
    one.close()  # the daemon ends; a new one on the same state directory takes over
    two = AgentService()
    await two.turns.run(request(tmp_path, "again", first.ids.session_id), Recorder().wire)
    assert fake.requests[-1].body["messages"] == unbroken
    assert "\u2028" in json.dumps(unbroken, ensure_ascii=False)


async def test_a_session_running_in_another_daemon_is_busy(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("one"), Reply("slow", first_byte_delay=1.0)])
    first = AgentService()
    outcome = await first.turns.run(request(tmp_path), Recorder().wire)
    session_id = outcome.ids.session_id
    running = asyncio.create_task(
        first.turns.run(request(tmp_path, "more", session_id), Recorder().wire))
    while fake.requests[-1].body["messages"][-1]["content"] != "more":
        await asyncio.sleep(0.01)
    other = AgentService()
    with pytest.raises(RunError) as busy:
        await other.turns.run(request(tmp_path, "x", session_id), Recorder().wire)
    assert busy.value.kind == "busy" and "another harness9 daemon" in busy.value.message
    with pytest.raises(RunError):
        other.sessions.delete(session_id)
    # Reading it for a view needs no lock.
    view, skipped = other.sessions.view(session_id)
    assert [m.content for m in view.history][-1] == "one" and skipped == 0
    assert (await running).result.text == "slow"
    first.close()
    other.close()


async def test_an_idle_session_is_taken_over_and_each_daemon_sees_the_others_turns(
    fake: FakeLLM, tmp_path: Path
) -> None:
    # A window closed while its daemon lives on (a remote editor keeps its extension host):
    # the new window's daemon continues the session, and the old one, used again, too.
    fake.script([Reply("one"), Reply("two"), Reply("three")])
    old, new = AgentService(), AgentService()
    session_id = (await old.turns.run(request(tmp_path, "a"), Recorder().wire)).ids.session_id
    await asyncio.sleep(0)  # the run's end lets the idle session go
    await new.turns.run(request(tmp_path, "b", session_id), Recorder().wire)
    await asyncio.sleep(0)
    await old.turns.run(request(tmp_path, "c", session_id), Recorder().wire)
    sent = [m["content"] for m in fake.requests[-1].body["messages"] if m["role"] == "user"]
    assert sent == ["a", "b", "c"]  # the old daemon read the new one's turn again
    view, _ = new.sessions.view(session_id)
    assert [m.content for m in view.history][-2:] == ["c", "three"]
    old.close()
    new.close()


async def test_a_torn_last_line_is_skipped_and_the_next_turn_is_not_lost(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("one"), Reply("two"), Reply("three")])
    service = AgentService()
    outcome = await service.turns.run(request(tmp_path), Recorder().wire)
    session_id = outcome.ids.session_id
    service.close()
    log = state_dir() / "sessions" / workspace_key(str(tmp_path)) / f"{session_id}.jsonl"
    with log.open("ab") as handle:
        handle.write(b'{"type":"message","message":{"role":"us')  # died mid-write
    again = AgentService()
    await again.turns.run(request(tmp_path, "next", session_id), Recorder().wire)
    again.close()
    third = AgentService()
    view, skipped = third.sessions.view(session_id)
    assert skipped == 1
    assert [m.content for m in view.history][-2:] == ["next", "two"]
    await third.turns.run(request(tmp_path, "last", session_id), Recorder().wire)
    assert fake.requests[-1].messages[-1]["content"] == "last"
    assert len(fake.requests[-1].messages) == 6  # system, one, two exchanges, last


async def test_listing_view_and_delete(fake: FakeLLM, tmp_path: Path) -> None:
    fake.script([Reply("", [Call("bash", {"command": "true"})], usage=(50, 5)),
                 Reply("done", usage=(70, 3)), Reply("other", usage=(10, 1))])
    service = AgentService()
    first = await service.turns.run(request(tmp_path, "fix the pager\nplease"), Recorder().wire)
    second = await service.turns.run(request(tmp_path, "hello"), Recorder().wire)
    listed = service.sessions.stored(str(tmp_path))
    assert [m.session_id for m in listed] == [second.ids.session_id, first.ids.session_id]
    meta = listed[1]
    assert (meta.title, meta.runs, meta.turns) == ("fix the pager", 1, 2)
    assert (meta.input_tokens, meta.output_tokens, meta.context_tokens) == (120, 8, 70)
    assert service.sessions.stored(str(tmp_path / "elsewhere")) == []
    view, _ = service.sessions.view(first.ids.session_id)
    assert [r["status"] for r in view.runs] == ["completed"]
    assert service.sessions.delete(first.ids.session_id) is True
    assert service.sessions.delete(first.ids.session_id) is False
    assert [m.session_id for m in service.sessions.stored(str(tmp_path))] == [
        second.ids.session_id]
    with pytest.raises(UnknownSession):
        service.sessions.view(first.ids.session_id)
    folder = state_dir() / "sessions" / workspace_key(str(tmp_path))
    assert not any(p.name.startswith(first.ids.session_id) for p in folder.iterdir())


async def test_session_approvals_and_checkpoints_outlive_the_daemon(
    fake: FakeLLM, tmp_path: Path
) -> None:
    (tmp_path / "f.txt").write_text("one\n")
    same = Reply("", [Call("bash", {"command": "echo two > f.txt"})])
    fake.script([same, Reply("done"), same, Reply("again")])
    from harness9.tools.approvals.step import Answer

    asker = Asker(Answer.ALLOW_SESSION)
    first = AgentService()
    outcome = await first.turns.run(request(tmp_path, approvals_mode="ask"),
                                    Recorder(asker).wire)
    checkpoints = [c.checkpoint_id for c in first.checkpoints.listing(outcome.ids.session_id)]
    assert checkpoints and len(asker.asked) == 1
    first.close()
    second = AgentService()
    await second.turns.run(
        request(tmp_path, "again", outcome.ids.session_id, approvals_mode="ask"),
        Recorder(Asker()).wire)  # asking again would fail: no answers left
    kept = [c.checkpoint_id for c in second.checkpoints.listing(outcome.ids.session_id)]
    assert kept[: len(checkpoints)] == checkpoints
    restored = await second.checkpoints.restore(outcome.ids.session_id, checkpoints[0])
    assert "f.txt" in restored.paths and (tmp_path / "f.txt").read_text() == "one\n"


def test_unknown_ids_never_reach_the_file_system(tmp_path: Path) -> None:
    service = AgentService()
    for bad in ("../../etc/passwd", "*", "", "s-" + "a" * 80):
        with pytest.raises(UnknownSession):
            service.sessions.view(bad)
    assert not os.path.exists(state_dir() / "sessions")


async def test_idle_stored_sessions_are_let_go_and_come_back(
    fake: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness9.service.sessions import session_store

    monkeypatch.setattr(session_store, "HELD", 2)
    fake.script([Reply(f"answer {n}") for n in range(5)])
    service = AgentService()
    ids = [(await service.turns.run(request(tmp_path, f"p{n}"), Recorder().wire)).ids.session_id
           for n in range(4)]
    assert service.sessions.get(ids[0]) is None and service.sessions.get(ids[3]) is not None
    other = AgentService()  # the released session's lock is free for another daemon
    assert other.sessions.known(ids[0]).history[-1].content == "answer 0"
    with pytest.raises(RunError):
        other.sessions.known(ids[3])  # still held by the first
    other.close()
    await service.turns.run(request(tmp_path, "again", ids[0]), Recorder().wire)
    assert fake.requests[-1].messages[-2]["content"] == "answer 0"


async def test_an_unwritable_state_directory_keeps_sessions_in_memory(
    fake: FakeLLM, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "state"
    blocked.write_text("a file where the state folder should be")
    fake.script([Reply("one"), Reply("two")])
    service = AgentService(blocked)
    first = await service.turns.run(request(tmp_path), Recorder().wire)
    second = await service.turns.run(request(tmp_path, "again", first.ids.session_id),
                                     Recorder().wire)
    assert second.result.text == "two" and len(fake.requests[-1].messages) == 4
    assert "kept in memory only" in caplog.text
    assert service.sessions.stored(str(tmp_path)) == []
    view, _ = service.sessions.view(first.ids.session_id)
    assert [r["prompt"] for r in view.runs] == ["go", "again"]


async def test_what_the_session_read_outlives_the_daemon_unless_the_file_changed(
    fake: FakeLLM, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "b.txt").write_text("two\n")
    fake.script([
        Reply("", [Call("read_file", {"path": "a.txt"}, id="r1"),
                   Call("read_file", {"path": "b.txt"}, id="r2")]),
        Reply("read"),
        Reply("", [Call("write_file", {"path": "a.txt", "content": "ONE\n"}, id="w1"),
                   Call("write_file", {"path": "b.txt", "content": "TWO\n"}, id="w2")]),
        Reply("written"),
    ])
    one = AgentService()
    first = await one.turns.run(request(tmp_path), Recorder().wire)
    one.close()
    (tmp_path / "b.txt").write_text("changed by the user\n")  # while no daemon ran
    two = AgentService()
    await two.turns.run(request(tmp_path, "write", first.ids.session_id), Recorder().wire)
    results = {m["tool_call_id"]: m["content"] for m in fake.requests[-1].messages
               if m["role"] == "tool"}
    assert not results["w1"].startswith("Error"), results["w1"]
    assert "has changed since you last read" in results["w2"]
    assert (tmp_path / "a.txt").read_text() == "ONE\n"
    assert (tmp_path / "b.txt").read_text() == "changed by the user\n"


async def test_nested_instructions_are_added_once_across_restarts_and_again_after_a_compaction(
    fake: FakeLLM, tmp_path: Path
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "AGENTS.md").write_text("pkg rules")
    for name in "abc":
        (tmp_path / "pkg" / f"{name}.py").write_text(f"{name} = 1\n")

    def read(name: str) -> Reply:
        return Reply("", [Call("read_file", {"path": f"pkg/{name}.py"}, id=name)])

    def result(call_id: str) -> str:
        return next(m["content"] for r in fake.requests for m in r.messages
                    if m["role"] == "tool" and m["tool_call_id"] == call_id)

    fake.script([read("a"), Reply("one " * 500), read("b"), Reply("two"),
                 Reply("the summary"), read("c"), Reply("three")])
    one = AgentService()
    first = await one.turns.run(request(tmp_path), Recorder().wire)
    one.close()
    two = AgentService()
    session_id = first.ids.session_id
    await two.turns.run(request(tmp_path, "more", session_id), Recorder().wire)
    done = await two.sessions.compact(session_id, RunSettings(provider="openai"))
    assert done.method == "summary"
    await two.turns.run(request(tmp_path, "after", session_id), Recorder().wire)
    assert "pkg rules" in result("a")
    assert result("b") == "b = 1\n"  # the restarted daemon knew it was there already
    assert "pkg rules" in result("c")  # the summary replaced it: added again


async def test_a_session_with_no_turn_yet_is_kept_and_its_mode_outlives_the_daemon(
    fake: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness9.service.sessions import session_store

    monkeypatch.setattr(session_store, "HELD", 2)
    (tmp_path / "b.txt").write_text("b\n")
    service = AgentService()
    empty = service.sessions.create(str(tmp_path))  # as an ACP client's session/new makes it
    service.sessions.set_approval_mode(empty.id, "read-only")
    assert service.sessions.stored(str(tmp_path)) == []  # nothing to list before a turn
    fake.script([Reply(f"answer {n}") for n in range(4)])
    for n in range(4):  # more sessions than a daemon holds
        await service.turns.run(request(tmp_path, f"p{n}"), Recorder().wire)
    write = Call("write_file", {"path": "b.txt", "content": "x"}, id="w")
    fake.script([Reply("", [write]), Reply("refused")])
    await service.turns.run(request(tmp_path, "write b", empty.id), Recorder().wire)
    assert (tmp_path / "b.txt").read_text() == "b\n"  # read-only, though the settings say yolo
    service.close()
    again = AgentService()
    assert again.sessions.known(empty.id).approval_mode == "read-only"


def test_a_stored_call_without_its_result_is_answered_when_the_session_is_read(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    session = store.create(str(tmp_path))
    call = ToolCall(id="t2", name="bash", arguments='{"command": "ls"}')
    session.history += [Message.user("go"), Message(Role.ASSISTANT, "", (call,))]
    store.save(session)
    store.close()
    again = SessionStore(tmp_path).open(session.id)
    assert again is not None
    assert [m.tool_call_id for m in again.history] == [None, None, "t2"]
    assert again.history[2].is_error


def test_sessions_never_prompted_hold_no_descriptor_and_leave_no_file(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(300):
        store.create(str(tmp_path / "ws"))
    assert len(os.listdir("/proc/self/fd")) - before < 5
    assert [p for p in tmp_path.rglob("*") if not p.is_dir()] == []
    store.close()


def test_a_line_nested_too_deep_is_a_damaged_line_and_leaves_the_session_free(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    session = store.create(str(tmp_path))
    session.history.append(Message.user("go"))
    store.save(session)
    store.close()
    stored = next((tmp_path / "sessions").rglob(f"{session.id}.jsonl"))
    with stored.open("a") as log:
        log.write('{"type": "message", "message": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    again = SessionStore(tmp_path)
    reopened = again.open(session.id)
    assert reopened is not None and [m.content for m in reopened.history] == ["go"]
    assert again.read(session.id) is not None
    assert again.delete(session.id) is True  # the lock was not left behind


async def test_a_session_never_prompted_leaves_no_file(fake: FakeLLM, tmp_path: Path) -> None:
    service = AgentService()
    session = service.sessions.create(str(tmp_path))
    # It opens the session, as a client's choice does.
    service.sessions.set_approval_mode(session.id, "read-only")
    service.sessions.known(session.id)
    await asyncio.sleep(0)
    folder = state_dir() / "sessions" / workspace_key(str(tmp_path))
    assert not list(folder.glob(f"{session.id}.*"))
    service.close()


async def test_continuing_a_stored_session_appends_only_the_new_messages(
    fake: FakeLLM, tmp_path: Path
) -> None:
    # Each message of a session is written once: continuing it in a new daemon must not write
    # the loaded history again (a file growing by the whole history every run).
    fake.script([Reply("", [Call("bash", {"command": "echo one"}, id="c1")]), Reply("first"),
                 Reply("", [Call("bash", {"command": "echo two"}, id="c2")]), Reply("second")])
    one = AgentService()
    first = await one.turns.run(request(tmp_path), Recorder().wire)
    one.close()
    two = AgentService()
    await two.turns.run(request(tmp_path, "again", first.ids.session_id), Recorder().wire)
    history = two.sessions.get(first.ids.session_id).history  # type: ignore[union-attr]
    two.close()
    log = state_dir() / "sessions" / workspace_key(str(tmp_path)) / \
        f"{first.ids.session_id}.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["type"] for r in records if r["type"] not in ("message", "run", "call")] == []
    assert sum(r["type"] == "message" for r in records) == len(history) == 9
