"""Project instructions through the daemon: the system prompt, nested files, the switch."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


async def daemon_for(start: StartDaemon, fake: FakeLLM, root: Path, **kw: object) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    return await start(root, env=env, **kw)


def prepare(workspace: Path) -> Path:
    (workspace / "AGENTS.md").write_text("ROOT RULES: run make check.\n")
    (workspace / "lib").mkdir()
    (workspace / "lib" / "AGENTS.md").write_text("LIB RULES: no globals.\n")
    (workspace / "lib" / "m.py").write_text("m = 1\n")
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "harness9" / "AGENTS.md"
    user.parent.mkdir(parents=True)
    user.write_text("USER RULES: be terse.\n")
    return user


READ_M = Reply(tool_calls=[Call("read_file", {"path": "lib/m.py"})])


async def test_system_prompt_and_nested_file_once_per_session(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    user = prepare(workspace)
    fake_llm.script([READ_M, Reply("one"), READ_M, Reply("two")])
    daemon = await daemon_for(start, fake_llm, workspace)
    first = await daemon.run(prompt="look at m")
    await daemon.run(prompt="again", sessionId=first["sessionId"])
    system = fake_llm.requests[0].messages[0]
    assert system["role"] == "system"
    assert f"Instructions from the user's own file {user} (for every project):\n" \
           "USER RULES: be terse." in system["content"]
    assert "Instructions from the project's AGENTS.md (at the workspace root" in system["content"]
    assert "ROOT RULES: run make check." in system["content"]
    tool_outputs = [m["content"] for m in fake_llm.requests[-1].messages if m["role"] == "tool"]
    assert len(tool_outputs) == 2
    assert tool_outputs[0].startswith("m = 1\n\n\n[Instructions from lib/AGENTS.md, which apply "
                                      "to the files under lib/. The closest AGENTS.md")
    assert tool_outputs[0].endswith("LIB RULES: no globals.")
    assert tool_outputs[1] == "m = 1\n"
    assert sum("LIB RULES" in str(r.messages) for r in fake_llm.requests) == 3  # one copy kept


async def test_instructions_false_turns_it_off(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    prepare(workspace)
    fake_llm.script([READ_M, Reply("one"), READ_M, Reply("two")])
    daemon = await daemon_for(start, fake_llm, workspace, init={"instructions": False})
    await daemon.run(prompt="look at m")
    assert "RULES" not in str(fake_llm.requests[1].messages)
    await daemon.run(prompt="look at m", instructions=True)  # a run may turn it back on
    sent = str(fake_llm.requests[3].messages)
    assert "USER RULES" in sent and "ROOT RULES" in sent and "LIB RULES" in sent
