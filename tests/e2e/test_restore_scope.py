"""What a restore touches: only the files its own session changed since the checkpoint, never
another session's edits on the same workspace nor what the user typed in other files; and the
files a dry run names are the files the restore then puts back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(30)


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    return await start(root, env=env)


async def two_sessions(daemon: Daemon, fake: FakeLLM, workspace: Path) -> tuple[str, str]:
    """Session A writes mine.txt; then session B writes theirs.txt, and the user types in
    theirs.txt and in a.txt (which no session touched). A's first checkpoint and A's id."""
    fake.script([
        Reply("", [Call("bash", {"command": "echo mine > mine.txt"})]), Reply("a done"),
        Reply("", [Call("write_file", {"path": "theirs.txt", "content": "theirs\n"})]),
        Reply("b done"),
    ])
    a = await daemon.run(prompt="session a")
    b = await daemon.run(prompt="session b")
    assert a["sessionId"] != b["sessionId"]
    theirs = workspace / "theirs.txt"
    theirs.write_text(theirs.read_text() + "typed by the user\n")
    (workspace / "a.txt").write_text("alpha, typed by the user\n")
    listed = await daemon.request("agent/checkpoints", {"sessionId": a["sessionId"]})
    return a["sessionId"], listed["checkpoints"][0]["checkpointId"]


async def restore(daemon: Daemon, session: str, checkpoint: str, **more: Any) -> list[str]:
    params = {"sessionId": session, "checkpointId": checkpoint, **more}
    return list((await daemon.request("agent/restore", params))["restored"])


def others_intact(workspace: Path) -> None:
    assert (workspace / "theirs.txt").read_text() == "theirs\ntyped by the user\n"
    assert (workspace / "a.txt").read_text() == "alpha, typed by the user\n"


async def test_a_restore_puts_back_only_the_files_its_own_session_changed(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon = await daemon_on(start, fake_llm, workspace)
    assert daemon.initialized.capabilities.experimental["harness9"]["restorePreview"] is True
    session, checkpoint = await two_sessions(daemon, fake_llm, workspace)

    preview = await daemon.request(
        "agent/restore", {"sessionId": session, "checkpointId": checkpoint, "dryRun": True})
    assert preview == {"restored": ["mine.txt"], "dryRun": True}
    assert (workspace / "mine.txt").exists()  # a dry run changes nothing
    listed = await daemon.request("agent/checkpoints", {"sessionId": session})
    assert not [c for c in listed["checkpoints"] if "undoes" in c]

    assert await restore(daemon, session, checkpoint, files=preview["restored"]) == ["mine.txt"]
    assert not (workspace / "mine.txt").exists()
    others_intact(workspace)

    # Undoing the restore brings back mine.txt and nothing else either.
    (workspace / "a.txt").write_text("typed again\n")
    undo = (await daemon.request("agent/checkpoints", {"sessionId": session}))["checkpoints"][-1]
    assert await restore(daemon, session, undo["checkpointId"]) == ["mine.txt"]
    assert (workspace / "mine.txt").read_text() == "mine\n"
    assert (workspace / "a.txt").read_text() == "typed again\n"


async def test_a_restore_from_a_new_daemon_still_leaves_other_sessions_alone(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    first = await daemon_on(start, fake_llm, workspace)
    session, checkpoint = await two_sessions(first, fake_llm, workspace)
    second = await daemon_on(start, fake_llm, workspace)  # reads the stored sessions
    assert await restore(second, session, checkpoint) == ["mine.txt"]
    assert not (workspace / "mine.txt").exists()
    others_intact(workspace)


async def test_files_narrow_a_restore_and_are_checked(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon = await daemon_on(start, fake_llm, workspace)
    session, checkpoint = await two_sessions(daemon, fake_llm, workspace)
    # A file the session did not change is never restored, even when asked for.
    assert await restore(daemon, session, checkpoint, files=["theirs.txt"]) == []
    others_intact(workspace)
    assert (workspace / "mine.txt").exists()
    for files in ["mine.txt", [""], [3]]:
        with pytest.raises(JsonRpcException) as bad:
            await restore(daemon, session, checkpoint, files=files)
        assert bad.value.code == -32602 and "files" in str(bad.value)
    with pytest.raises(JsonRpcException) as bad:
        await restore(daemon, session, checkpoint, dryRun="yes")
    assert bad.value.code == -32602 and "dryRun" in str(bad.value)


async def test_changed_since_gives_the_sessions_files_as_they_were_at_the_checkpoint(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("bash", {"command": "echo more >> a.txt; echo mine > mine.txt; "
                                            "printf '\\000\\001' > bin.dat"})]),
        Reply("a done"),
        Reply("", [Call("bash", {"command": "printf 'x' > bin.dat"})]), Reply("again"),
        Reply("", [Call("write_file", {"path": "theirs.txt", "content": "theirs\n"})]),
        Reply("b done"),
    ])
    daemon = await daemon_on(start, fake_llm, workspace)
    first = await daemon.run(prompt="session a")
    session = first["sessionId"]
    checkpoints = (await daemon.request("agent/checkpoints", {"sessionId": session}))
    after_first = checkpoints["checkpoints"][-1]["checkpointId"]
    await daemon.run(prompt="more", sessionId=session)
    await daemon.run(prompt="session b")
    start_of_a = checkpoints["checkpoints"][0]["checkpointId"]

    params = {"sessionId": session, "checkpointId": start_of_a}
    answer = await daemon.request("agent/changedSince", params)
    assert answer["files"] == [
        {"path": "a.txt", "existed": True, "text": "alpha\n"},
        {"path": "bin.dat", "existed": False},
        {"path": "mine.txt", "existed": False},
    ]
    params["checkpointId"] = after_first
    answer = await daemon.request("agent/changedSince", params)
    assert answer["files"] == [{"path": "bin.dat", "existed": True, "skipped": "binary"}]
    assert (workspace / "mine.txt").exists()  # nothing changed
    with pytest.raises(JsonRpcException) as bad:
        await daemon.request("agent/changedSince", {"sessionId": session})
    assert bad.value.code == -32602 and "checkpointId" in str(bad.value)
