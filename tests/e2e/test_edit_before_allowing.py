"""Edit before allowing, end to end: the user answers a file call's question with their own text
(`content`), which the daemon writes through the tool's own write path and tells the model of."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


def answer_with(daemon: Daemon, *answers: dict[str, Any],
                before: Callable[[], None] = lambda: None) -> list[dict[str, Any]]:
    """Answers `agent/requestApproval` from `answers` (after `before`); returns what was asked."""
    asked: list[dict[str, Any]] = []

    @daemon.client.feature("agent/requestApproval")
    async def _ask(ls: Any, params: Any) -> dict[str, Any]:
        asked.append(dict(params))
        before()
        await asyncio.sleep(0)
        return answers[len(asked) - 1]

    return asked


async def asking(start: StartDaemon, fake: FakeLLM, root: Path) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_APPROVALS": "ask"}
    return await start(root, env=env, approval_requests=True)


def events(daemon: Daemon, run_id: str, kind: str) -> list[dict[str, Any]]:
    return [n for n in daemon.of_run(run_id) if n["kind"] == kind]


def tool_results(fake: FakeLLM, request: int) -> list[str]:
    """The tool results the model was sent with its `request`-th request."""
    messages = fake.requests[request].body["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


async def test_the_daemon_announces_that_it_takes_the_users_text(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    daemon = await asking(start, fake_llm, workspace)
    ours = daemon.initialized.capabilities.experimental["harness9"]
    assert ours["approvalContent"] is True


async def test_an_edit_allowed_with_the_users_text_writes_it_and_tells_the_model(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace / "app.py").write_text("x = 1\ny = 2\n")
    fake_llm.script([
        Reply("", [Call("edit_file", {"path": "app.py", "source_text": "x = 1",
                                      "target_text": "x = 10"})]),
        Reply("ok"),
    ])
    daemon = await asking(start, fake_llm, workspace)
    answer_with(daemon, {"decision": "allow_once", "content": "x = 10  # checked\ny = 2\n"})
    result = await daemon.run(prompt="go")
    assert (workspace / "app.py").read_text() == "x = 10  # checked\ny = 2\n"
    done = events(daemon, result["runId"], "tool_completed")[0]
    assert done["diff"] == (
        "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 10  # checked\n y = 2\n"
    )
    assert tool_results(fake_llm, 1) == [
        "Edited app.py\n"
        "The user changed your edit before allowing it: app.py now holds their text, not "
        "yours. How it differs from what you proposed (your text on the - side, theirs on "
        "the + side):\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-x = 10\n"
        "+x = 10  # checked\n y = 2\n"
    ]
    assert done["output"] == tool_results(fake_llm, 1)[0]


async def test_a_new_file_gets_the_users_text_and_an_unchanged_text_is_a_plain_allow(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("write_file", {"path": "notes/a.md", "content": "# A\n"}),
                   Call("write_file", {"path": "b.md", "content": "# B\n"})]),
        Reply("ok"),
    ])
    daemon = await asking(start, fake_llm, workspace)
    answer_with(daemon, {"decision": "allow_once", "content": "# A, by the user\n"},
                {"decision": "allow_once", "content": "# B\n"})
    await daemon.run(prompt="go")
    assert (workspace / "notes" / "a.md").read_text() == "# A, by the user\n"
    assert (workspace / "b.md").read_text() == "# B\n"
    first, second = tool_results(fake_llm, 1)
    assert first.startswith("Wrote 17 bytes to notes/a.md\nThe user changed your edit before "
                            "allowing it: notes/a.md now holds their text")
    assert first.endswith("@@ -1 +1 @@\n-# A\n+# A, by the user\n")
    assert second == "Wrote 4 bytes to b.md"


async def test_a_file_changed_while_the_user_edited_gets_neither_text(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    target = workspace / "app.py"
    target.write_text("x = 1\n")
    fake_llm.script([
        Reply("", [Call("edit_file", {"path": "app.py", "source_text": "x = 1",
                                      "target_text": "x = 2"})]),
        Reply("ok"),
    ])
    daemon = await asking(start, fake_llm, workspace)
    answer_with(daemon, {"decision": "allow_once", "content": "x = 3\n"},
                before=lambda: target.write_text("x = 1\nz = 0\n"))
    result = await daemon.run(prompt="go")
    assert target.read_text() == "x = 1\nz = 0\n"
    failed = events(daemon, result["runId"], "tool_failed")
    assert [(f["reason"], f["output"]) for f in failed] == [(
        "error",
        "Error: app.py changed while the user was editing your change, so neither your text "
        "nor theirs was written. Read it again and retry",
    )]


async def test_text_sent_for_a_command_refuses_it(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "touch ran.txt"})]), Reply("ok")])
    daemon = await asking(start, fake_llm, workspace)
    answer_with(daemon, {"decision": "allow_once", "content": "touch other.txt"})
    result = await daemon.run(prompt="go")
    assert not (workspace / "ran.txt").exists()
    failed = events(daemon, result["runId"], "tool_failed")
    assert [f["reason"] for f in failed] == ["rejected"]
    assert "only with their own changes to it, which this call cannot take" in json.dumps(
        fake_llm.requests[1].body
    )
