"""In ACP the client lends no language servers: the daemon runs its own (real `ruff server`),
found on PATH by default or as `languageServers` says, and `languageServers: {}` turns them
off."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Reply

pytestmark = pytest.mark.timeout(90)

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
NEW_PROBLEM = ("New problems in app.py after this edit, as the language servers report them:\n"
               "<editor-diagnostics>\n"
               "app.py:4:7: error: Undefined name `undefined_name` (Ruff F821)\n"
               "</editor-diagnostics>")


def only_ruff_on_path(workspace: Path) -> str:
    """A PATH on which the one well-known language server is ruff (in the workspace: the
    sandbox shows its servers no other folder of /tmp)."""
    if RUFF is None:
        pytest.fail("ruff is one of the test tools (pip install -e .[test])")
    folder = workspace / ".bin"
    folder.mkdir(exist_ok=True)
    (folder / "ruff").symlink_to(RUFF)
    return f"{folder}:/usr/bin:/bin"


def break_it(fake: FakeLLM, workspace: Path) -> None:
    (workspace / "app.py").write_text("import os\n\nvalue = 1\nprint(value)\n")
    fake.script([
        Reply("", [Call("edit_file", {"path": "app.py", "source_text": "print(value)",
                                      "target_text": "print(undefined_name)"})]),
        Reply("done"),
    ])


def edit_result(fake: FakeLLM) -> str:
    return str([m for m in fake.requests[-1].messages if m["role"] == "tool"][-1]["content"])


async def test_ruff_on_path_reports_the_problem_an_edit_brings(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    break_it(fake_llm, workspace)
    agent = await start(env=openai_env(fake_llm, PATH=only_ruff_on_path(workspace)))
    session = await agent.new_session(workspace)
    answer = await agent.prompt(session, "break it")
    assert answer.stop_reason == "end_turn"
    assert edit_result(fake_llm).endswith(NEW_PROBLEM)
    offered = {t["function"]["name"] for t in fake_llm.requests[0].body["tools"]}
    assert {"diagnostics", "find_definition", "hover"} <= offered
    # The call's update carries the result the model read.
    shown = [str(u.get("content")) for u in agent.client.of(session)
             if u["sessionUpdate"] == "tool_call_update"]
    assert any("Undefined name `undefined_name`" in text for text in shown)


async def test_the_setting_names_the_servers_and_an_empty_one_turns_them_off(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    break_it(fake_llm, workspace)
    env = openai_env(fake_llm, PATH=only_ruff_on_path(workspace))
    agent = await start(env=env, settings={"languageServers": {}})
    session = await agent.new_session(workspace)
    await agent.prompt(session, "break it")
    assert "problems" not in edit_result(fake_llm)
    assert "diagnostics" not in {t["function"]["name"]
                                 for t in fake_llm.requests[0].body["tools"]}
    assert RUFF is not None
    named = {"lint": {"command": [RUFF, "server"], "languages": ["python"]}}
    break_it(fake_llm, workspace)
    agent = await start(env={**env, "PATH": os.defpath}, settings={"languageServers": named})
    session = await agent.new_session(workspace)
    await agent.prompt(session, "break it")
    assert edit_result(fake_llm).endswith(NEW_PROBLEM)
