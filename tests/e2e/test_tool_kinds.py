"""The tools of a run, told the same way everywhere: `agent/tools` lists what the model is
offered, in its order, and a session shown again gives each call the kind it ran with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.editor import Editor
from tests.e2e.test_editor_language import LIB, USE, Server
from tests.e2e.test_editor_problems import Checker
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


async def editor_daemon(start: StartDaemon, fake: FakeLLM, root: Path, tmp_path: Path,
                        **env: str) -> Daemon:
    """A daemon whose client has problems and language servers (definition, rename)."""
    (root / "lib.py").write_text(LIB)
    (root / "use.py").write_text(USE)
    daemon = await start(root, env={**fake.env(), "HARNESS9_PROVIDER": "openai",
                                    "HARNESS9_MODEL": "gpt-test", **env},
                         diagnostics=True, language=["definition", "rename"])
    editor = Editor(daemon)
    editor.open(root / "use.py", USE)
    Server(daemon, root, tmp_path / "site" / "other.py")
    Checker(daemon, editor, root)
    return daemon


def offered(fake: FakeLLM, request: int) -> list[str]:
    return [t["function"]["name"] for t in fake.requests[request].body["tools"]]


async def listed(daemon: Daemon) -> list[str]:
    return [t["name"] for t in (await daemon.request("agent/tools", {}))["tools"]]


async def test_a_session_shown_again_gives_each_call_the_kind_it_ran_with(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    at = {"path": "use.py", "line": 2, "symbol": "helper"}
    fake_llm.script([
        Reply("", [Call("diagnostics", {}), Call("find_definition", at),
                   Call("rename_symbol", {**at, "newName": "assist"})]),
        Reply("done"),
    ])
    daemon = await editor_daemon(start, fake_llm, workspace, tmp_path)
    ran = await daemon.run(prompt="look around, then rename")
    live = {p["toolCallId"]: p["toolKind"] for p in daemon.of_run(ran["runId"])
            if p["kind"] == "tool_started"}
    assert sorted(live.values()) == ["edit", "read", "read"]

    def kinds(shown: dict[str, Any]) -> dict[str, str]:
        calls = [c for m in shown["messages"] for c in m.get("toolCalls", [])]
        return {c.get("wireId") or c["id"]: c["kind"] for c in calls}

    shown = await daemon.request("agent/session", {"sessionId": ran["sessionId"]})
    assert kinds(shown) == live
    assert all("kind" not in c["outcome"] for m in shown["messages"]
               for c in m.get("toolCalls", []))
    # Another daemon, whose client has neither problems nor language servers, reads it back.
    plain = await start(workspace, env=fake_llm.env())
    again = await plain.request("agent/session", {"sessionId": ran["sessionId"]})
    assert kinds(again) == live


async def test_agent_tools_lists_what_the_model_is_offered_in_its_order(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.script([Reply("ok")])
    daemon = await editor_daemon(start, fake_llm, workspace, tmp_path)
    await daemon.run(prompt="hi")
    assert await listed(daemon) == offered(fake_llm, 0)
    assert offered(fake_llm, 0)[-4:] == ["find_definition", "rename_symbol", "diagnostics",
                                         "task"]


async def test_in_plan_mode_agent_tools_lists_plan_modes_tools(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.script([Reply("a plan")])
    daemon = await editor_daemon(start, fake_llm, workspace, tmp_path,
                                 HARNESS9_APPROVALS="plan")
    await daemon.run(prompt="plan it")
    assert "write_file" not in offered(fake_llm, 0)
    assert await listed(daemon) == offered(fake_llm, 0)
