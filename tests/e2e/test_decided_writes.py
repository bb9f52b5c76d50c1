"""A write goes where it was decided, end to end: the daemon asks the editor about an edit,
and a link swapped in while the question is open is not written through."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


async def test_a_link_swapped_in_while_the_question_is_open_is_not_written_through(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    config = "[core]\n\tbare = false\n"
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text(config)
    (workspace / "a.txt").write_text("bare = false\n")
    fake_llm.script([
        Reply("", [Call("edit_file", {"path": "a.txt", "source_text": "bare = false",
                                      "target_text": "fsmonitor = ./evil.sh"})]),
        Reply("ok"),
    ])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_APPROVALS": "ask"}
    daemon = await start(workspace, env=env, approval_requests=True)
    asked: list[dict[str, Any]] = []

    @daemon.client.feature("agent/requestApproval")
    def _ask(ls: Any, params: Any) -> dict[str, Any]:
        asked.append(dict(params))
        # While the user reads the question, a command of the same turn swaps the file.
        (workspace / "a.txt").unlink()
        (workspace / "a.txt").symlink_to(workspace / ".git" / "config")
        return {"decision": "allow_once"}

    result = await daemon.run(prompt="go")
    assert [(a["path"], "reason" in a) for a in asked] == [("a.txt", False)]
    [failed] = [n for n in daemon.of_run(result["runId"]) if n["kind"] == "tool_failed"]
    assert failed["reason"] == "error"
    assert "a.txt was replaced by a symbolic link after this call was decided" in json.dumps(
        fake_llm.requests[1].body)
    assert (workspace / ".git" / "config").read_text() == config
