"""Checkpoints end to end: snapshots around tool batches, what bash changed, and restores."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from harness9.lsp.lifecycle import METHODS, PROGRESS_KINDS
from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(30)


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path, **kw: Any) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    return await start(root, env=env, **kw)


def of_kind(daemon: Daemon, run_id: str, kind: str) -> list[dict[str, Any]]:
    return [n for n in daemon.of_run(run_id) if n["kind"] == kind]


def bash(command: str) -> Reply:
    return Reply("", [Call("bash", {"command": command})])


THREE_TURNS = [
    bash("printf 'one\\r\\n' > a.txt; printf '\\000\\001\\002' > blob.bin"),
    bash("printf 'two\\n' > a.txt; echo new > b.txt; rm blob.bin"),
    bash("printf 'three\\n' > a.txt; rm b.txt; echo late > c.txt"),
    Reply("done"),
]


async def test_a_three_turn_run_sends_a_checkpoint_before_and_after_each_batch(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon, result = await three_turns(start, fake_llm, workspace)
    notes = of_kind(daemon, result["runId"], "checkpoint")
    assert [(n["turn"], sorted(n["files"])) for n in notes] == [
        (1, []),
        (1, ["a.txt", "blob.bin"]),
        (2, ["a.txt", "b.txt", "blob.bin"]),
        (3, ["a.txt", "b.txt", "c.txt"]),
    ]
    kinds = [n["kind"] for n in daemon.of_run(result["runId"])]
    # The first checkpoint comes before the first tool starts; later ones after the results.
    assert kinds.index("checkpoint") < kinds.index("tool_started")
    assert kinds[kinds.index("observation") + 1] == "checkpoint"
    listed = await daemon.request("agent/checkpoints", {"sessionId": result["sessionId"]})
    entries = listed["checkpoints"]
    assert [e["checkpointId"] for e in entries] == [n["checkpointId"] for n in notes]
    assert {e["runId"] for e in entries} == {result["runId"]}
    assert [e["turn"] for e in entries] == [1, 1, 2, 3]
    assert entries[1]["files"] == sorted(notes[1]["files"])
    assert entries[0]["createdAt"].endswith("Z") and "T" in entries[0]["createdAt"]
    assert {"agent/checkpoints", "agent/restore"} <= set(METHODS)
    assert {"checkpoint", "checkpoints_off"} <= set(PROGRESS_KINDS)


async def test_bash_reports_the_files_it_created_modified_deleted_and_renamed(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace / "gone.txt").write_text("bye\n")
    (workspace / "old.txt").write_text("moving\n")
    fake_llm.script([
        bash("echo hi > new.txt; echo more >> a.txt; rm gone.txt; mv old.txt renamed.txt"),
        Reply("ok"),
    ])
    daemon = await daemon_on(start, fake_llm, workspace)
    result = await daemon.run(prompt="go")
    (done,) = of_kind(daemon, result["runId"], "tool_completed")
    assert sorted(done["changedFiles"], key=lambda f: f["path"]) == [
        {"path": "a.txt", "status": "modified"},
        {"path": "gone.txt", "status": "deleted"},
        {"path": "new.txt", "status": "added"},
        {"path": "old.txt", "status": "deleted"},
        {"path": "renamed.txt", "status": "added"},
    ]
    assert "changedFilesSharedWith" not in done


async def test_parallel_bash_calls_say_their_changes_cannot_be_told_apart(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("bash", {"command": "sleep 0.3; echo 1 > one.txt"}, id="c1"),
                   Call("bash", {"command": "sleep 0.3; echo 2 > two.txt"}, id="c2")]),
        Reply("ok"),
    ])
    daemon = await daemon_on(start, fake_llm, workspace)
    result = await daemon.run(prompt="go")
    done = {n["toolCallId"]: n for n in of_kind(daemon, result["runId"], "tool_completed")}
    assert done["c1"]["changedFilesSharedWith"] == ["c2"]
    assert done["c2"]["changedFilesSharedWith"] == ["c1"]
    for note in done.values():
        assert {f["path"] for f in note["changedFiles"]} <= {"one.txt", "two.txt"}


async def test_restore_brings_back_the_files_and_cuts_the_history(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon, result = await three_turns(start, fake_llm, workspace)
    sid = result["sessionId"]
    turn2 = next(n for n in of_kind(daemon, result["runId"], "checkpoint") if n["turn"] == 2)
    assert (workspace / "c.txt").exists()
    answer = await restore(daemon, sid, turn2["checkpointId"])
    assert sorted(answer["restored"]) == ["a.txt", "b.txt", "c.txt"]
    assert (workspace / "a.txt").read_bytes() == b"two\n"
    assert (workspace / "b.txt").read_bytes() == b"new\n"
    assert not (workspace / "c.txt").exists() and not (workspace / "blob.bin").exists()
    listed = await daemon.request("agent/checkpoints", {"sessionId": sid})
    assert listed["checkpoints"][-2]["checkpointId"] == turn2["checkpointId"]
    assert listed["checkpoints"][-1]["undoes"] == turn2["checkpointId"]  # the restore's own

    fake_llm.script([Reply("continued")])
    await daemon.run(prompt="next", sessionId=sid)
    sent = json.dumps(fake_llm.requests[-1].messages)
    assert "printf 'two" in sent and "next" in sent
    assert "printf 'three" not in sent  # turn 3 is gone from the history
    last_two = fake_llm.requests[-1].messages[-2:]
    assert last_two[0]["role"] == "tool" and last_two[1] == {"role": "user", "content": "next"}


async def three_turns(
    start: StartDaemon, fake: FakeLLM, workspace: Path
) -> tuple[Daemon, dict[str, Any]]:
    """A daemon on `workspace` that has run the three-turn script: it and the run's result."""
    fake.script(THREE_TURNS)
    daemon = await daemon_on(start, fake, workspace)
    return daemon, await daemon.run(prompt="go")


async def restore(daemon: Daemon, session_id: str, checkpoint_id: str) -> dict[str, Any]:
    """`agent/restore` of one checkpoint of the session."""
    params = {"sessionId": session_id, "checkpointId": checkpoint_id}
    return dict(await daemon.request("agent/restore", params))


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


async def test_a_restore_can_be_undone(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon, result = await three_turns(start, fake_llm, workspace)
    sid = result["sessionId"]
    after_run = files_of(workspace)
    first = of_kind(daemon, result["runId"], "checkpoint")[0]
    await restore(daemon, sid, first["checkpointId"])
    assert files_of(workspace) != after_run
    listed = (await daemon.request("agent/checkpoints", {"sessionId": sid}))["checkpoints"]
    undo = listed[-1]
    assert undo["undoes"] == first["checkpointId"]
    await restore(daemon, sid, undo["checkpointId"])
    assert files_of(workspace) == after_run


async def test_restoring_a_runs_first_checkpoint_drops_its_prompt(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script(THREE_TURNS)
    daemon = await daemon_on(start, fake_llm, workspace)
    result = await daemon.run(prompt="the first prompt")
    sid = result["sessionId"]
    first = of_kind(daemon, result["runId"], "checkpoint")[0]
    await restore(daemon, sid, first["checkpointId"])
    assert (workspace / "a.txt").read_bytes() == b"alpha\n"
    assert os.listdir(workspace) == ["a.txt"]
    fake_llm.script([Reply("fresh")])
    await daemon.run(prompt="again", sessionId=sid)
    sent = fake_llm.requests[-1].messages
    assert "the first prompt" not in json.dumps(sent)
    assert [m["role"] for m in sent] == ["system", "user"]


async def test_restore_is_refused_while_the_session_runs_and_checks_its_params(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([bash("echo 1 > x.txt"), Reply("first"),
                     bash("sleep 1"), Reply("second")])
    daemon = await daemon_on(start, fake_llm, workspace)
    first = await daemon.run(prompt="one")
    sid = first["sessionId"]
    checkpoint = of_kind(daemon, first["runId"], "checkpoint")[0]["checkpointId"]
    running = asyncio.ensure_future(daemon.run(prompt="two", sessionId=sid))
    await daemon.wait_for(lambda n: n["kind"] == "tool_started" and n["runId"] != first["runId"])
    with pytest.raises(JsonRpcException) as busy:
        await daemon.request("agent/restore", {"sessionId": sid, "checkpointId": checkpoint})
    assert busy.value.code == -32803 and busy.value.data["kind"] == "busy"
    await running
    assert (workspace / "x.txt").exists()  # nothing was restored
    for params, field in [({"checkpointId": checkpoint}, "sessionId"),
                          ({"sessionId": sid}, "checkpointId"),
                          ({"sessionId": "s-nope", "checkpointId": checkpoint}, "sessionId"),
                          ({"sessionId": sid, "checkpointId": "f" * 40}, "checkpointId")]:
        with pytest.raises(JsonRpcException) as bad:
            await daemon.request("agent/restore", params)
        assert bad.value.code == -32602 and field in str(bad.value)
    with pytest.raises(JsonRpcException) as bad:
        await daemon.request("agent/checkpoints", {})
    assert bad.value.code == -32602 and "sessionId" in str(bad.value)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


async def test_a_workspace_that_is_a_git_repository_is_left_alone(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    git(workspace, "init", "-q")
    git(workspace, "-c", "user.email=u@x", "-c", "user.name=u", "commit", "-q",
        "--allow-empty", "-m", "start")
    (workspace / "staged.txt").write_text("staged\n")
    git(workspace, "add", "staged.txt")
    status = git(workspace, "status", "--porcelain")
    index = (workspace / ".git" / "index").read_bytes()
    head = git(workspace, "rev-parse", "HEAD")
    fake_llm.script([bash("echo x > made.txt"), Reply("ok")])
    daemon = await daemon_on(start, fake_llm, workspace)
    result = await daemon.run(prompt="go")
    first = of_kind(daemon, result["runId"], "checkpoint")[0]["checkpointId"]
    await daemon.request("agent/restore", {"sessionId": result["sessionId"],
                                           "checkpointId": first})
    assert git(workspace, "status", "--porcelain") == status
    assert (workspace / ".git" / "index").read_bytes() == index
    assert git(workspace, "rev-parse", "HEAD") == head
    assert "harness9" not in git(workspace, "for-each-ref")


async def test_without_checkpoints_nothing_is_snapshotted(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([bash("echo x > made.txt"), Reply("ok")])
    daemon = await daemon_on(start, fake_llm, workspace, init={"checkpoints": False})
    result = await daemon.run(prompt="go")
    assert not of_kind(daemon, result["runId"], "checkpoint")
    (done,) = of_kind(daemon, result["runId"], "tool_completed")
    assert "changedFiles" not in done
    listed = await daemon.request("agent/checkpoints", {"sessionId": result["sessionId"]})
    assert listed["checkpoints"] == []


async def test_without_git_the_run_goes_on_and_the_user_is_told_once(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"  # bash, but no git
    bin_dir.mkdir()
    (bin_dir / "bash").symlink_to("/bin/bash")
    fake_llm.script([bash("echo x > made.txt"), Reply("one"), bash("echo y > more.txt"),
                     Reply("two")])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "PATH": str(bin_dir)}
    daemon = await start(workspace, env=env)
    first = await daemon.run(prompt="go")
    second = await daemon.run(prompt="again")
    assert (first["text"], second["text"]) == ("one", "two")
    assert (workspace / "made.txt").exists() and (workspace / "more.txt").exists()
    (off,) = [n for n in daemon.progress if n["kind"] == "checkpoints_off"]
    assert off["runId"] == first["runId"] and "git is not installed" in off["message"]
    assert not [n for n in daemon.progress if n["kind"] == "checkpoint"]
    warnings = [m for m in daemon.client.messages if "git is not installed" in m.message]
    assert len(warnings) == 1 and warnings[0].type == 2


def tree_of(root: Path) -> dict[str, bytes]:
    """Every entry under `root`: a file's bytes, a link's text (`->` first), a folder's `/`."""
    found = {}
    for folder, names, files in os.walk(root):
        for name in names + files:
            path = Path(folder) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[key] = b"-> " + os.readlink(path).encode()
            else:
                found[key] = b"/" if path.is_dir() else path.read_bytes()
    return found


async def test_a_restore_follows_no_link_and_leaves_the_outside_alone(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "one.txt").write_text("outside\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / "one.txt").write_text("one\n")
    before, outside_before = tree_of(workspace), tree_of(outside)
    fake_llm.script([
        bash(f"echo changed > a.txt; rm -r sub; ln -s {outside} sub; ln -s a.txt lnk; "
             f"ln -s {outside}/one.txt out"),
        Reply("done"),
    ])
    daemon = await daemon_on(start, fake_llm, workspace)
    result = await daemon.run(prompt="go")
    first = of_kind(daemon, result["runId"], "checkpoint")[0]["checkpointId"]
    answer = await restore(daemon, result["sessionId"], first)
    assert sorted(answer["restored"]) == ["a.txt", "lnk", "out", "sub", "sub/one.txt"]
    assert tree_of(workspace) == before
    assert tree_of(outside) == outside_before


async def test_a_restore_that_would_overwrite_what_no_checkpoint_holds_changes_nothing(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        bash("echo changed > a.txt; echo 'a.txt' > .gitignore"),
        Reply("done"),
        bash("rm a.txt; echo later > b.txt"),
        Reply("done"),
    ])
    daemon = await daemon_on(start, fake_llm, workspace)
    first = await daemon.run(prompt="go")
    second = await daemon.run(prompt="again", sessionId=first["sessionId"])
    (workspace / "a.txt").write_text("the user's, ignored now\n")  # after the last checkpoint
    before = tree_of(workspace)
    checkpoint = of_kind(daemon, first["runId"], "checkpoint")[0]["checkpointId"]
    with pytest.raises(JsonRpcException) as refused:
        await restore(daemon, second["sessionId"], checkpoint)
    assert refused.value.code == -32803 and refused.value.data["kind"] == "conflict"
    assert "a.txt is in the way" in str(refused.value)
    assert tree_of(workspace) == before
    listed = await daemon.request("agent/checkpoints", {"sessionId": first["sessionId"]})
    assert not [c for c in listed["checkpoints"] if "undoes" in c]  # the session is as it was


async def test_restore_is_refused_while_another_session_of_the_workspace_runs(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([bash("echo 1 > x.txt"), Reply("first"),
                     bash("sleep 1; echo other > other.txt"), Reply("second")])
    daemon = await daemon_on(start, fake_llm, workspace)
    first = await daemon.run(prompt="one")
    checkpoint = of_kind(daemon, first["runId"], "checkpoint")[0]["checkpointId"]
    other = asyncio.ensure_future(daemon.run(prompt="two"))  # a new session, same workspace
    await daemon.wait_for(lambda n: n["kind"] == "tool_started" and n["runId"] != first["runId"])
    with pytest.raises(JsonRpcException) as busy:
        await restore(daemon, first["sessionId"], checkpoint)
    assert busy.value.code == -32803 and busy.value.data["kind"] == "busy"
    assert "running" in str(busy.value)
    assert (await other)["sessionId"] != first["sessionId"]
    assert (workspace / "x.txt").exists() and (workspace / "other.txt").exists()
    await restore(daemon, first["sessionId"], checkpoint)  # once it has ended
    assert not (workspace / "x.txt").exists()
