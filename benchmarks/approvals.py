"""Case: what the approval step costs a call that needs no asking.

The same registry runs a trivial tool with and without the approval middleware in front, for a
call the mode allows, for a bash call that allow rules cover (its command is split and every
part matched; the same command again, as an agent reruns its tests, and a command never seen
before, whose split is not cached), and for an edit that auto-edit allows (its path is resolved
in a real workspace, to tell whether it writes a protected file). The floor is the registry
alone; the target is the step's overhead per call.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.core import Config, Row, margin_row, median
from harness9.schema import ToolCall, ToolDefinition, ToolKind
from harness9.tools.approvals.policy import ApprovalPolicy
from harness9.tools.approvals.step import ApprovalAnswer, ApprovalRequest, ApprovalStep
from harness9.tools.contract import tool_definition
from harness9.tools.registry import Registry

MARGIN_MS = 0.1
COMMAND = "npm test -- --watch=false && git status --porcelain | head -n 20"


class _Echo:
    """A tool that does nothing, so only the registry and the step are measured."""

    def __init__(self, name: str, kind: ToolKind) -> None:
        self.name = name
        self.kind = kind

    def definition(self) -> ToolDefinition:
        return tool_definition(self.name, "does nothing", {}, [], kind=self.kind)

    async def execute(self, arguments: str) -> str:
        return "ok"


class _NobodyAsks:
    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        raise AssertionError(f"asked about {request.title}")


def _registry(policy: ApprovalPolicy | None, root: str) -> Registry:
    step = [] if policy is None else [ApprovalStep(policy, _NobodyAsks(), root=root)]
    registry = Registry(step)
    registry.register(_Echo("read_file", ToolKind.READ))
    registry.register(_Echo("write_file", ToolKind.EDIT))
    registry.register(_Echo("bash", ToolKind.EXECUTE))
    return registry


async def _per_call_ms(registry: Registry, calls: list[ToolCall]) -> float:
    started = time.perf_counter()
    for call in calls:
        await registry.execute(call)
    return (time.perf_counter() - started) / len(calls) * 1000


def _bash(command: str) -> ToolCall:
    return ToolCall(id="c", name="bash", arguments=json.dumps({"command": command}))


async def run(config: Config) -> list[Row]:
    """Median per-call cost, with the step and without, over `config.reps` batches."""
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / "src").mkdir()
        return await _rows(config, root)


async def _rows(config: Config, root: str) -> list[Row]:
    calls = config.size(20_000, 500)
    read = [ToolCall(id="c", name="read_file", arguments=json.dumps({"path": "src/a.py"}))]
    write = [ToolCall(id="c", name="write_file",
                      arguments=json.dumps({"path": "src/a.py", "content": "x"}))]
    rules: dict[str, Any] = {"allow": ["bash(npm test*)", "bash(git status*)", "bash(head *)"]}
    floor = _registry(None, root)
    mode = _registry(ApprovalPolicy(), root)
    auto_edit = _registry(ApprovalPolicy("auto-edit"), root)
    by_rules = _registry(ApprovalPolicy.from_setting(rules), root)
    cases = {"mode": (mode, read * calls), "auto-edit": (auto_edit, write * calls),
             "rules": (by_rules, [_bash(COMMAND)] * calls)}
    samples: dict[str, list[float]] = {}
    for rep in range(config.reps):
        for name, (registry, batch) in cases.items():
            samples.setdefault(name, []).append(await _per_call_ms(registry, batch))
            samples.setdefault(f"{name} floor", []).append(await _per_call_ms(floor, batch))
        # A command never seen before: its split is not in the cache.
        fresh = [_bash(COMMAND.replace("20", f"{rep}{n}")) for n in range(calls // 4)]
        samples.setdefault("fresh", []).append(await _per_call_ms(by_rules, fresh))
        samples.setdefault("fresh floor", []).append(await _per_call_ms(floor, fresh))
    labels = {
        "mode": "approval step, allowed by the mode",
        "auto-edit": "approval step, edit allowed by auto-edit (path resolved)",
        "rules": "approval step, bash chain of 3 allowed by rules",
        "fresh": "approval step, bash chain of 3 allowed by rules, never seen before",
    }
    return [margin_row(label, median(samples[name]), median(samples[f"{name} floor"]),
                       "ms/call", MARGIN_MS) for name, label in labels.items()]
