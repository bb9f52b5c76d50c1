"""A machine where no OS sandbox works: the daemon says so once, with why and what to do, and
commands are asked about (approval mode ask), running unsandboxed when allowed."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.daemon import StartDaemon
from tests.e2e.test_approvals import Editor, kinds
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


def path_without_bwrap(folder: Path) -> str:
    """A PATH with every program of the machine's PATH but bubblewrap (links in `folder`)."""
    folder.mkdir()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            link = folder / name
            if name != "bwrap" and not link.exists():
                link.symlink_to(Path(directory) / name)
    assert shutil.which("bwrap", path=str(folder)) is None
    return str(folder)


async def test_without_a_sandbox_the_user_is_warned_once_and_commands_ask(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_SANDBOX": "",
           "HARNESS9_APPROVALS": "", "HARNESS9_LANDLOCK": "0",
           "PATH": path_without_bwrap(tmp_path / "bin")}
    fake_llm.script([Reply("", [Call("bash", {"command": "echo ran > out.txt"})]),
                     Reply("done")])
    daemon = await start(workspace, env=env, approval_requests=True)
    async with asyncio.timeout(10):
        while not daemon.client.messages:
            await asyncio.sleep(0.02)
    [warning] = daemon.client.messages
    assert warning.type == 2  # Warning
    assert "without an OS sandbox" in warning.message
    assert "bubblewrap is not installed (apt install bubblewrap)" in warning.message
    assert "HARNESS9_LANDLOCK=0" in warning.message and "harness9 doctor" in warning.message
    editor = Editor(daemon, {"decision": "allow_once"})
    result = await daemon.run(prompt="run it")
    [asked] = editor.asked  # the default mode is ask: the command is asked about
    assert asked["tool"] == "bash"
    [completed] = kinds(daemon, result["runId"], "tool_completed")
    assert completed["sandbox"] == "none"
    assert (workspace / "out.txt").read_text() == "ran\n"
    assert len(daemon.client.messages) == 1  # said once, not per run
