"""Case: what the approval step costs a call that needs no asking.

The same registry runs a trivial tool with and without the approval middleware in front, for a
call the mode allows and for a bash call that allow rules cover (its command is split and every
part matched). The floor is the registry alone; the target is the step's overhead per call.
"""

from __future__ import annotations

import json
import time
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


def _registry(policy: ApprovalPolicy | None) -> Registry:
    step = [] if policy is None else [ApprovalStep(policy, _NobodyAsks(), root="/ws")]
    registry = Registry(step)
    registry.register(_Echo("read_file", ToolKind.READ))
    registry.register(_Echo("bash", ToolKind.EXECUTE))
    return registry


async def _per_call_ms(registry: Registry, call: ToolCall, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        await registry.execute(call)
    return (time.perf_counter() - started) / calls * 1000


async def run(config: Config) -> list[Row]:
    """Median per-call cost, with the step and without, over `config.reps` batches."""
    calls = config.size(20_000, 500)
    read = ToolCall(id="c", name="read_file", arguments=json.dumps({"path": "src/a.py"}))
    bash = ToolCall(id="c", name="bash", arguments=json.dumps({"command": COMMAND}))
    rules: dict[str, Any] = {"allow": ["bash(npm test*)", "bash(git status*)", "bash(head *)"]}
    floor_registry = _registry(None)
    mode_registry = _registry(ApprovalPolicy())
    rule_registry = _registry(ApprovalPolicy.from_setting(rules))
    samples: dict[str, list[float]] = {"floor": [], "mode": [], "floor_bash": [], "rules": []}
    for _ in range(config.reps):
        samples["floor"].append(await _per_call_ms(floor_registry, read, calls))
        samples["mode"].append(await _per_call_ms(mode_registry, read, calls))
        samples["floor_bash"].append(await _per_call_ms(floor_registry, bash, calls))
        samples["rules"].append(await _per_call_ms(rule_registry, bash, calls))
    return [
        margin_row("approval step, allowed by the mode", median(samples["mode"]),
                   median(samples["floor"]), "ms/call", MARGIN_MS),
        margin_row("approval step, bash chain of 3 allowed by rules", median(samples["rules"]),
                   median(samples["floor_bash"]), "ms/call", MARGIN_MS),
    ]
