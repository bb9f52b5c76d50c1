"""Models and slash commands over the wire: agent/models, agent/setModel, agent/commands, and
prompts that invoke commands (built in, the workspace's and the user's own)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, Fail, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path, **extra: str) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test", **extra}
    return await start(root, env=env)


async def test_models_lists_each_configured_service_and_the_one_in_use(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.models = ["gpt-5.4-mini", "gpt-4o", "text-embedding-3-small", "claude-opus-4-6"]
    daemon = await daemon_on(start, fake_llm, workspace,
                             HARNESS9_MODELS="local-coder,anthropic:claude-extra")
    answer = await daemon.request("agent/models", {})
    listed = [(m["provider"], m["id"]) for m in answer["models"]]
    # openai: the configured model first (the service does not list it), its list sorted,
    # embeddings left out, then HARNESS9_MODELS; anthropic: its list and its extra.
    assert listed[:4] == [("openai", "gpt-test"), ("openai", "claude-opus-4-6"),
                          ("openai", "gpt-4o"), ("openai", "gpt-5.4-mini")]
    assert ("openai", "local-coder") in listed
    assert ("openai", "text-embedding-3-small") not in listed
    assert ("anthropic", "claude-extra") in listed and ("anthropic", "claude-opus-4-6") in listed
    gpt5 = next(m for m in answer["models"] if m["id"] == "gpt-5.4-mini")
    assert (gpt5["contextWindow"], gpt5["images"], gpt5["reasoning"]) == (400_000, True, True)
    assert "contextWindow" not in next(m for m in answer["models"] if m["id"] == "gpt-test")
    assert answer["current"] == {"provider": "openai", "model": "gpt-test"}
    assert answer["errors"] == []
    wires = sorted(r.wire for r in fake_llm.listings)
    assert wires == ["anthropic", "openai"]
    await daemon.request("agent/models", {"provider": "openai"})
    assert len(fake_llm.listings) == 2  # kept for the daemon's life
    await daemon.request("agent/models", {"provider": "openai", "refresh": True})
    assert len(fake_llm.listings) == 3


async def test_a_failing_service_is_named_and_the_others_still_listed(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.models = ["gpt-4o"]
    fake_llm.models_failure = Fail(401, "invalid x-api-key")
    daemon = await daemon_on(start, fake_llm, workspace)
    answer = await daemon.request("agent/models", {})
    assert {e["provider"] for e in answer["errors"]} == {"openai", "anthropic"}
    assert all(e["kind"] == "auth" for e in answer["errors"])
    # Each still offers its configured model.
    assert [(m["provider"], m["id"]) for m in answer["models"]] == [
        ("openai", "gpt-test"), ("anthropic", "claude-sonnet-4-6")]


async def test_set_model_moves_the_session_and_its_next_runs(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("first"), Reply("second"), Reply("third"), Reply("fourth")])
    daemon = await daemon_on(start, fake_llm, workspace)
    first = await daemon.run(prompt="hello")
    session = first["sessionId"]
    stored = await daemon.request("agent/setModel", {
        "sessionId": session, "model": "claude-opus-4-6", "provider": "anthropic",
        "reasoningEffort": "low"})
    assert stored == {"provider": "anthropic", "model": "claude-opus-4-6",
                      "reasoningEffort": "low"}
    second = await daemon.run(prompt="again", sessionId=session)
    sent = fake_llm.requests[1]
    assert (sent.wire, sent.body["model"]) == ("anthropic", "claude-opus-4-6")
    assert sent.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    started = next(p for p in daemon.of_run(second["runId"]) if p["kind"] == "run_started")
    assert (started["model"], started["reasoningEffort"]) == ("claude-opus-4-6", "low")
    # A run's own model wins for that run, and the session keeps its choice.
    await daemon.run(prompt="once", sessionId=session, provider="openai", model="gpt-once")
    assert (fake_llm.requests[2].wire, fake_llm.requests[2].body["model"]) == (
        "openai", "gpt-once")
    await daemon.run(prompt="back", sessionId=session)
    assert fake_llm.requests[3].body["model"] == "claude-opus-4-6"
    shown = await daemon.request("agent/session", {"sessionId": session})
    assert shown["model"]["model"] == "claude-opus-4-6"
    models = await daemon.request("agent/models", {"sessionId": session})
    assert models["current"]["model"] == "claude-opus-4-6"


async def test_set_model_survives_a_restart(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("first"), Reply("after the restart")])
    daemon = await daemon_on(start, fake_llm, workspace)
    session = (await daemon.run(prompt="hello"))["sessionId"]
    await daemon.request("agent/setModel", {"sessionId": session, "model": "gpt-kept"})
    await daemon.client.shutdown_session()  # the session is free for the next daemon
    again = await daemon_on(start, fake_llm, workspace)
    await again.run(prompt="go on", sessionId=session)
    assert fake_llm.requests[1].body["model"] == "gpt-kept"


async def test_set_model_and_models_refuse_bad_params(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon = await daemon_on(start, fake_llm, workspace)
    for params, field in [({"model": "x"}, "sessionId"),
                          ({"sessionId": "s-1", "model": "x", "reasoningEffort": "max"},
                           "reasoningEffort"),
                          ({"sessionId": "s-1"}, "model"),
                          ({"sessionId": "s-1", "model": "x", "provider": "gemini"},
                           "provider")]:
        with pytest.raises(JsonRpcException) as caught:
            await daemon.request("agent/setModel", params)
        assert caught.value.code == -32602 and field in caught.value.message, params
    with pytest.raises(JsonRpcException) as caught:
        await daemon.request("agent/models", {"provider": "gemini"})
    assert caught.value.code == -32602 and "provider" in caught.value.message


def write_command(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


async def test_commands_lists_builtins_workspace_and_user_commands(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    write_command(workspace / ".harness9" / "commands", "review",
                  "---\ndescription: Review a file\nargument-hint: <path>\n---\n"
                  "Review $ARGUMENTS for bugs.\n")
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "harness9" / "commands"
    write_command(user, "review", "the user's review, hidden by the workspace's")
    write_command(user, "standup", "Summarize what changed since yesterday.")
    write_command(user, "help", "cannot replace a built-in")
    daemon = await daemon_on(start, fake_llm, workspace)
    answer = await daemon.request("agent/commands", {})
    by_name = {c["name"]: c for c in answer["commands"]}
    assert {"help", "compact", "clear", "resume", "undo", "model", "approvals", "plan",
            "init"} <= by_name.keys()
    assert by_name["review"] == {"name": "review", "description": "Review a file",
                                 "argumentHint": "<path>", "source": "workspace"}
    assert by_name["standup"]["source"] == "user"
    assert by_name["standup"]["description"] == "Summarize what changed since yesterday."
    assert by_name["help"]["source"] == "builtin"
    assert [c["name"] for c in answer["commands"]] == sorted(by_name)


async def test_a_custom_command_runs_as_its_prompt(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    write_command(workspace / ".harness9" / "commands", "review",
                  "---\ndescription: Review a file\n---\nReview $ARGUMENTS for bugs, "
                  "first $1.\n")
    fake_llm.script([Reply("looks fine")])
    daemon = await daemon_on(start, fake_llm, workspace)
    result = await daemon.run(prompt="/review app.py util.py")
    assert result["text"] == "looks fine"
    users = [m for m in fake_llm.requests[0].messages if m["role"] == "user"]
    assert users[-1]["content"] == "Review app.py util.py for bugs, first app.py."
    assert fake_llm.requests[0].body["model"] == "gpt-test"
    write_command(workspace / ".harness9" / "commands", "quick",
                  "---\nmodel: gpt-small\n---\nAnswer briefly:")
    fake_llm.script([Reply("brief")])
    await daemon.run(prompt="/quick what is 2+2", sessionId=result["sessionId"])
    sent = fake_llm.requests[1]
    assert sent.body["model"] == "gpt-small"
    assert sent.messages[-1]["content"] == "Answer briefly:\n\nwhat is 2+2"


async def test_builtins_act_without_the_model(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.models = ["gpt-4o"]
    daemon = await daemon_on(start, fake_llm, workspace)
    result = await daemon.run(prompt="/help")
    assert result["command"] == "help" and result["status"] == "completed"
    assert "/compact" in result["text"] and "/review" not in result["text"]
    kinds = [p["kind"] for p in daemon.of_run(result["runId"])]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished" and "command" in kinds
    streamed = "".join(p["text"] for p in daemon.of_run(result["runId"])
                       if p["kind"] == "text_delta")
    assert streamed == result["text"]
    chosen = await daemon.run(prompt="/model gpt-4o high", sessionId=result["sessionId"])
    assert chosen["model"] == {"provider": "openai", "model": "gpt-4o",
                               "reasoningEffort": "high"}
    listed = await daemon.run(prompt="/model", sessionId=result["sessionId"])
    assert "* openai:gpt-4o" in listed["text"]
    mode = await daemon.run(prompt="/approvals ask", sessionId=result["sessionId"])
    assert mode["mode"] == "ask"
    unknown = await daemon.run(prompt="/nosuch thing")
    assert unknown["status"] == "error" and "/help" in unknown["text"]
    assert fake_llm.requests == []  # none of them asked the model
    fake_llm.script([Reply("a path, not a command"), Reply("sent as it is")])
    await daemon.run(prompt="/usr/bin/env is missing")
    await daemon.run(prompt=" /help me with this")  # a leading space sends it as it is
    assert len(fake_llm.requests) == 2


async def test_clear_and_resume_answer_with_the_session_to_continue(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("remembered")])
    daemon = await daemon_on(start, fake_llm, workspace)
    first = await daemon.run(prompt="remember 42")
    await daemon.run(prompt="/approvals ask", sessionId=first["sessionId"])
    await daemon.run(prompt="/model gpt-4o high", sessionId=first["sessionId"])
    cleared = await daemon.run(prompt="/clear", sessionId=first["sessionId"])
    assert cleared["command"] == "clear" and cleared["sessionId"] != first["sessionId"]
    assert "kept: approval mode ask, model openai:gpt-4o" in cleared["text"]
    # What the user chose for the session holds in the one that replaces it.
    mode = await daemon.run(prompt="/approvals", sessionId=cleared["sessionId"])
    assert mode["text"].startswith("Approval mode: ask"), mode["text"]
    listed = await daemon.run(prompt="/model", sessionId=cleared["sessionId"])
    assert "In use: openai:gpt-4o, reasoning effort high." in listed["text"]
    listing = await daemon.run(prompt="/resume", sessionId=cleared["sessionId"])
    assert first["sessionId"] in listing["text"]
    resumed = await daemon.run(prompt=f"/resume {first['sessionId']}",
                               sessionId=cleared["sessionId"])
    assert resumed["sessionId"] == first["sessionId"]


async def test_undo_restores_the_last_change_and_compact_summarizes(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("write_file", {"path": "fresh.txt", "content": "after\n"})]),
        Reply("written"),
        Reply("Summary: fresh.txt was written."),
    ])
    daemon = await daemon_on(start, fake_llm, workspace, HARNESS9_APPROVALS="yolo")
    first = await daemon.run(prompt="write fresh.txt")
    assert (workspace / "fresh.txt").read_text() == "after\n"
    compacted = await daemon.run(prompt="/compact", sessionId=first["sessionId"])
    assert compacted["command"] == "compact" and compacted["status"] == "completed"
    undone = await daemon.run(prompt="/undo", sessionId=first["sessionId"])
    assert undone["restored"]["files"] == ["fresh.txt"]
    # Short ids, as `harness9 restore` lists them: a 40-hex id says nothing to a reader.
    assert undone["restored"]["checkpointId"][:12] in undone["text"], undone["text"]
    assert undone["restored"]["undo"][:12] in undone["text"], undone["text"]
    assert not re.search(r"[0-9a-f]{13}", undone["text"]), undone["text"]
    assert not (workspace / "fresh.txt").exists()
    nothing = await daemon.run(prompt="/undo", sessionId=first["sessionId"])
    assert nothing["status"] == "error" and "Nothing to undo" in nothing["text"]


def _plan(*statuses: str) -> Call:
    items = [{"text": f"step {i}", "status": status} for i, status in enumerate(statuses, 1)]
    return Call("update_plan", {"items": items})


async def test_undo_takes_the_plan_back_with_the_conversation(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("write_file", {"path": "one.txt", "content": "1\n"}),
                   _plan("done", "in_progress", "pending")]),
        Reply("", [Call("write_file", {"path": "two.txt", "content": "2\n"}),
                   _plan("done", "done", "done")]),
        Reply("all done"),
    ])
    daemon = await daemon_on(start, fake_llm, workspace, HARNESS9_APPROVALS="yolo")
    first = await daemon.run(prompt="do the three steps")
    shown = await daemon.request("agent/session", {"sessionId": first["sessionId"]})
    assert [i["status"] for i in shown["plan"]["items"]] == ["done"] * 3
    undone = await daemon.run(prompt="/undo", sessionId=first["sessionId"])
    assert undone["text"].endswith("The plan went back too: 1 of 3 steps done."), undone["text"]
    assert (workspace / "one.txt").exists() and not (workspace / "two.txt").exists()
    shown = await daemon.request("agent/session", {"sessionId": first["sessionId"]})
    # The plan as it stood at the checkpoint, not "3 of 3 done" for work that was taken back.
    assert [i["status"] for i in shown["plan"]["items"]] == ["done", "in_progress", "pending"]


async def test_plan_and_init_run_the_model(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("the plan"), Reply("AGENTS.md written")])
    daemon = await daemon_on(start, fake_llm, workspace)
    await daemon.run(prompt="/plan add a cache")
    planned = fake_llm.requests[0]
    assert "Plan mode" in str(planned.messages[-1]["content"])
    assert {t["function"]["name"] for t in planned.body["tools"]} >= {"update_plan"}
    assert "write_file" not in {t["function"]["name"] for t in planned.body["tools"]}
    await daemon.run(prompt="/init")
    assert "AGENTS.md" in str(fake_llm.requests[1].messages[-1]["content"])
