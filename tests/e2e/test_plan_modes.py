"""Plan mode and the session's mode through the daemon: a steer left over from a planning run
plans too, `executePlan` leaves only `plan`, and commands of a run that may change nothing run
in the read-only sandbox, whatever `writableRoots` says."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from harness9.process.sandbox import Mechanism, availability
from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)
bubblewrap = pytest.mark.skipif(availability().mechanism is not Mechanism.BWRAP,
                                reason="bubblewrap does not work here")
# The machine's defaults: the sandbox on, the approval mode it implies (auto).
MACHINE_DEFAULTS = {"HARNESS9_SANDBOX": "", "HARNESS9_APPROVALS": ""}


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path,
                    env: dict[str, str] | None = None) -> Daemon:
    return await start(root, env={**fake.env(), "HARNESS9_PROVIDER": "openai", **(env or {})})


def offered(fake: FakeLLM, index: int) -> list[str]:
    return [tool["function"]["name"] for tool in fake.requests[index].body.get("tools", [])]


def failed(daemon: Daemon, run_id: str) -> list[dict[str, Any]]:
    return [n for n in daemon.of_run(run_id) if n["kind"] == "tool_failed"]


async def test_a_steer_left_over_from_a_planning_run_plans_too(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("read_file", {"path": "a.txt"})]),
                     Reply("", [Call("write_file", {"path": "x.txt", "content": "x"})]),
                     Reply("planned")])
    daemon = await daemon_on(start, fake_llm, workspace)
    running = asyncio.ensure_future(daemon.run(prompt="plan it", plan=True, maxTurns=1))
    await daemon.wait_for(lambda p: p["kind"] == "tool_started")
    run_id = daemon.progress[-1]["runId"]
    answer = await daemon.request("agent/steer", {"runId": run_id, "prompt": "and write x"})
    assert answer["delivered"] == "next"
    await running
    await daemon.wait_for(lambda p: p["runId"] == answer["runId"]
                          and p["kind"] == "run_finished")
    assert "write_file" not in offered(fake_llm, 1) and "update_plan" in offered(fake_llm, 1)
    assert [n["reason"] for n in failed(daemon, answer["runId"])] == ["unknown_tool"]
    assert not (workspace / "x.txt").exists()


async def test_execute_plan_keeps_the_session_read_only(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("hello"), Reply("a plan"),
                     Reply("", [Call("write_file", {"path": "x.txt", "content": "x"})]),
                     Reply("could not")])
    daemon = await daemon_on(start, fake_llm, workspace)
    session_id = (await daemon.run(prompt="hello"))["sessionId"]
    mode = await daemon.run(prompt="/approvals read-only", sessionId=session_id)
    assert mode["mode"] == "read-only"
    await daemon.run(prompt="plan it", sessionId=session_id, plan=True)
    went = await daemon.run(sessionId=session_id, executePlan=True)
    assert not (workspace / "x.txt").exists()
    [denied] = failed(daemon, went["runId"])
    assert denied["reason"] == "denied"
    shown = await daemon.run(prompt="/approvals", sessionId=session_id)
    assert "Approval mode: read-only" in shown["text"]


@bubblewrap
@pytest.mark.parametrize("settings", [
    {"plan": True},
    {"approvals": {"mode": "read-only", "allow": ["bash"]}},
    {"sandbox": {"mode": "read-only"}},
], ids=["plan", "read-only approvals", "read-only sandbox"])
async def test_commands_that_may_change_nothing_ignore_writable_roots(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path,
    settings: dict[str, Any],
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    # Python writes the files: the approval step sees no redirection to ask about.
    write = (f"python3 -c \"open('{extra}/out.txt', 'w'); open('in.txt', 'w')\"")
    fake_llm.script([Reply("", [Call("bash", {"command": write})]), Reply("done")])
    daemon = await daemon_on(start, fake_llm, workspace, MACHINE_DEFAULTS)
    sandbox = {"writableRoots": [str(extra)], **settings.pop("sandbox", {})}
    result = await daemon.run(prompt="look", sandbox=sandbox, **settings)
    [completed] = [n for n in daemon.of_run(result["runId"]) if n["kind"] == "tool_completed"]
    assert completed["sandbox"] == "bwrap"
    assert not (extra / "out.txt").exists() and not (workspace / "in.txt").exists()
