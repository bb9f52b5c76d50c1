"""File I/O through the client: when `initialize` offers `fs.readTextFile` / `fs.writeTextFile`,
the file tools read and write through `fs/read_text_file` / `fs/write_text_file`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import ClientCapabilities, FileSystemCapabilities

from tests.acp.agent import AcpAgent, StartAgent, capabilities, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Reply


def tool_outputs(fake: FakeLLM) -> dict[str, str]:
    """What the model was told of each call, by call id (from its last request)."""
    return {m["tool_call_id"]: m["content"]
            for m in fake.requests[-1].messages if m.get("role") == "tool"}


async def run(agent: AcpAgent, workspace: Path, fake: FakeLLM, *calls: Call) -> str:
    """One prompt whose first turn makes `calls` (then the model says "done"); the session."""
    fake.script([Reply("", list(calls)), Reply("done")])
    session = await agent.new_session(workspace)
    assert (await agent.prompt(session, "work")).stop_reason == "end_turn"
    return session


def final(agent: AcpAgent, session: str, call_id: str) -> dict[str, Any]:
    return agent.client.tool_updates(session, call_id)[-1]


async def test_read_file_sees_the_clients_unsaved_text(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm), fs=True)
    a = str(workspace / "a.txt")
    agent.client.buffers[a] = "alpha, edited but not saved\n"
    await run(agent, workspace, fake_llm, Call("read_file", {"path": "a.txt"}, id="r"))
    seen = tool_outputs(fake_llm)["r"]
    assert seen.startswith("alpha, edited but not saved\n")
    assert "changes not saved to the file on disk" in seen
    assert agent.client.reads == [a]


async def test_the_offer_counts_also_when_the_sdk_answers_initialize(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm), initialize=False)
    with pytest.raises(RequestError):  # not answered early: the SDK answers what follows
        await agent.conn._conn.send_request("initialize", {"clientCapabilities": {}})
    await agent.conn.initialize(protocol_version=1, client_capabilities=capabilities(True))
    agent.client.buffers[str(workspace / "a.txt")] = "from the buffer\n"
    await run(agent, workspace, fake_llm, Call("read_file", {"path": "a.txt"}, id="r"))
    assert tool_outputs(fake_llm)["r"].startswith("from the buffer\n")


async def test_edits_match_the_clients_text_and_land_in_the_client_not_on_disk(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm), fs=True)
    a, b = str(workspace / "a.txt"), str(workspace / "new" / "b.txt")
    agent.client.buffers[a] = "alpha\nunsaved line\n"
    await run(
        agent, workspace, fake_llm,
        # `  unsaved line` matches the buffer's line only at the indentation level
        Call("edit_file", {"path": "a.txt", "source_text": "  unsaved line",
                           "target_text": "  saved? no"}, id="e"),
        Call("write_file", {"path": "new/b.txt", "content": "bee\n"}, id="w"),
    )
    assert sorted(agent.client.writes) == [(a, "alpha\nsaved? no\n"), (b, "bee\n")]
    assert (workspace / "a.txt").read_text() == "alpha\n"  # nothing written behind the client
    assert not (workspace / "new" / "b.txt").exists()
    outputs = tool_outputs(fake_llm)
    assert "not yet saved to disk" in outputs["e"] and "not yet saved to disk" in outputs["w"]
    edit_end = final(agent, session := agent.client.updates[0][0], "e")
    assert edit_end["status"] == "completed"
    diff = next(c for c in edit_end["content"] if c["type"] == "diff")
    assert diff == {"type": "diff", "path": a, "oldText": "alpha\nunsaved line\n",
                    "newText": "alpha\nsaved? no\n"}
    new = next(c for c in final(agent, session, "w")["content"] if c["type"] == "diff")
    assert new["newText"] == "bee\n" and "oldText" not in new


async def test_an_edit_through_the_client_reads_the_file_once(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm), fs=True)
    a = str(workspace / "a.txt")
    await run(agent, workspace, fake_llm, Call(
        "edit_file", {"path": "a.txt", "source_text": "alpha", "target_text": "beta"}, id="e"))
    assert agent.client.reads == [a]
    assert agent.client.writes == [(a, "beta\n")]


async def test_a_client_that_saves_its_writes_lets_bash_see_them(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm), fs=True)
    agent.client.saves = True
    fake_llm.script([
        Reply("", [Call("write_file", {"path": "c.txt", "content": "written\n"}, id="w")]),
        Reply("", [Call("bash", {"command": "cat c.txt"}, id="b")]),
        Reply("done"),
    ])
    session = await agent.new_session(workspace)
    await agent.prompt(session, "work")
    outputs = tool_outputs(fake_llm)
    assert "not yet saved" not in outputs["w"]
    assert "written" in outputs["b"]
    assert agent.client.writes == [(str(workspace / "c.txt"), "written\n")]


async def test_a_bom_the_clients_text_leaves_out_is_no_unsaved_change(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace / "a.txt").write_bytes(b"\xef\xbb\xbfalpha\n")
    agent = await start(env=openai_env(fake_llm), fs=True)
    a = str(workspace / "a.txt")
    agent.client.buffers[a] = "alpha\n"  # editors keep the BOM out of the buffer's text
    await run(agent, workspace, fake_llm, Call("read_file", {"path": "a.txt"}, id="r"))
    assert tool_outputs(fake_llm)["r"] == "alpha\n"
    (workspace / "a.txt").write_bytes(b"\xef\xbb\xbfbeta\n")  # as saving "beta" keeps it
    agent.client.buffers[a] = "beta\n"
    await run(agent, workspace, fake_llm, Call(
        "edit_file", {"path": "a.txt", "source_text": "beta", "target_text": "beta"}, id="e"))
    assert "not yet saved" not in tool_outputs(fake_llm)["e"]


async def test_a_client_error_is_a_failed_call_the_model_reads(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm), fs=True)
    agent.client.fs_error = "the buffer is read-only"
    session = await run(
        agent, workspace, fake_llm,
        Call("read_file", {"path": "a.txt"}, id="r"),
        Call("write_file", {"path": "d.txt", "content": "x"}, id="w"),
    )
    outputs = tool_outputs(fake_llm)
    assert "the editor could not read a.txt" in outputs["r"]
    assert "the buffer is read-only" in outputs["r"]
    assert "the editor could not write d.txt" in outputs["w"]
    assert "nothing was changed" in outputs["w"]
    assert final(agent, session, "r")["status"] == "failed"
    assert final(agent, session, "w")["status"] == "failed"
    assert not (workspace / "d.txt").exists()


async def test_the_stale_guard_sees_changes_made_in_the_client(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm), fs=True)
    a = str(workspace / "a.txt")

    def user_types(path: str) -> None:  # right after the agent read the file
        agent.client.buffers[path] = "alpha\nthe user's new line\n"
        agent.client.after_read = None

    agent.client.after_read = user_types
    fake_llm.script([
        Reply("", [Call("read_file", {"path": "a.txt"}, id="r")]),
        Reply("", [Call("write_file", {"path": "a.txt", "content": "replaced\n"}, id="w")]),
        Reply("done"),
    ])
    session = await agent.new_session(workspace)
    await agent.prompt(session, "work")
    assert "has changed since you last read" in tool_outputs(fake_llm)["w"]
    assert agent.client.writes == []
    assert agent.client.buffers[a] == "alpha\nthe user's new line\n"
    assert final(agent, session, "w")["status"] == "failed"


async def test_paths_outside_the_workspace_never_reach_the_client(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace.parent / "secret.txt").write_text("secret\n")
    agent = await start(env=openai_env(fake_llm), fs=True)
    await run(
        agent, workspace, fake_llm,
        Call("read_file", {"path": "../secret.txt"}, id="r"),
        Call("write_file", {"path": "../evil.txt", "content": "x"}, id="w"),
    )
    outputs = tool_outputs(fake_llm)
    assert "outside" in outputs["r"] and "outside" in outputs["w"]
    assert agent.client.reads == [] and agent.client.writes == []


async def test_without_the_offer_the_tools_use_the_disk(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm))
    agent.client.buffers[str(workspace / "a.txt")] = "never asked for\n"
    await run(agent, workspace, fake_llm,
              Call("edit_file", {"path": "a.txt", "source_text": "alpha", "target_text": "beta"}))
    assert agent.client.reads == [] and agent.client.writes == []
    assert (workspace / "a.txt").read_text() == "beta\n"


def test_the_offer_is_read_from_wire_json_and_from_the_sdks_model() -> None:
    from harness9.acp.files import FsOffer

    wire = {"fs": {"readTextFile": True, "writeTextFile": False}, "terminal": True}
    assert FsOffer.of(wire) == FsOffer(read=True, write=False)
    model = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True,
                                                         write_text_file=True))
    assert FsOffer.of(model) == FsOffer(read=True, write=True)
    assert not FsOffer.of(None).any and not FsOffer.of({}).any
