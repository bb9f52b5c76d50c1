"""The `update_plan` tool: the model keeps its plan for the work where the user can see it.

It changes nothing in the workspace; its result carries the plan, which the engine reports
and the session keeps (so it survives a restart and goes back to the model after compaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness9.schema import Message, Plan, PlanItem, PlanStatus, ToolDefinition, ToolError, ToolKind
from harness9.tools.contract import ToolOutput, parse_arguments, string_property, tool_definition

MAX_ITEMS = 50
MAX_TEXT = 500  # characters of one step

_DESCRIPTION = """\
Record your plan for the task, shown to the user as a checklist that updates as you work.
Use it for work of three steps or more: make the plan before you start, and call it again \
each time a step starts or is done (send the whole list every time). Keep exactly one step \
`in_progress` while you work and mark steps `done` as soon as they are. Steps are short \
imperative phrases (\"Add a test for the parser\"). Skip it for simple one- or two-step tasks. \
It changes no files."""

_ITEMS = {
    "type": "array",
    "description": "The whole plan, in order",
    "maxItems": MAX_ITEMS,
    "items": {
        "type": "object",
        "properties": {
            "text": string_property("The step, a short imperative phrase"),
            "status": {"type": "string", "enum": [s.value for s in PlanStatus]},
        },
        "required": ["text", "status"],
    },
}


class UpdatePlanTool:
    """Records the model's plan (a checklist) without touching the workspace."""

    name = "update_plan"

    def definition(self) -> ToolDefinition:
        """The description and JSON Schema offered to the model."""
        return tool_definition(
            self.name,
            _DESCRIPTION,
            {"items": _ITEMS, "note": string_property("Optional: what changed and why")},
            ["items"],
            kind=ToolKind.THINK,
        )

    async def execute(self, arguments: str) -> ToolOutput:
        """Validate the plan and report it back in a line the model can check."""
        plan = plan_of(parse_arguments(arguments))
        done = sum(item.status is PlanStatus.DONE for item in plan.items)
        text = f"Plan updated: {len(plan.items)} steps, {done} done."
        working = [item.text for item in plan.items if item.status is PlanStatus.IN_PROGRESS]
        if len(working) > 1:
            text += f" Note: {len(working)} steps are in progress; keep exactly one."
        elif not working and done < len(plan.items):
            text += " No step is in progress: mark the one you work on next."
        return ToolOutput(text, len(text.encode()), plan=plan)


def plan_of(args: dict[str, Any]) -> Plan:
    """The plan in `update_plan`'s arguments; `ToolError` naming what is wrong."""
    raw = args.get("items")
    if not isinstance(raw, list) or not raw:
        raise ToolError("Error: items must be a non-empty list of {text, status}")
    if len(raw) > MAX_ITEMS:
        raise ToolError(f"Error: a plan has at most {MAX_ITEMS} steps, got {len(raw)}")
    items = tuple(_item(index, entry) for index, entry in enumerate(raw))
    note = args.get("note")
    if note is not None and not isinstance(note, str):
        raise ToolError("Error: note must be a string")
    return Plan(items, note.strip() or None if isinstance(note, str) else None)


def plans_in(messages: Sequence[Message]) -> list[Plan]:
    """The plans the `update_plan` calls in `messages` wrote, oldest first (a call whose
    arguments were refused wrote none)."""
    plans = []
    for message in messages:
        for call in message.tool_calls:
            if call.name == UpdatePlanTool.name:
                try:
                    plans.append(plan_of(parse_arguments(call.arguments)))
                except ToolError:
                    continue
    return plans


def _item(index: int, entry: Any) -> PlanItem:
    if not isinstance(entry, dict):
        raise ToolError(f"Error: items[{index}] must be an object {{text, status}}")
    text, status = entry.get("text"), entry.get("status", "pending")
    if not isinstance(text, str) or not text.strip():
        raise ToolError(f"Error: items[{index}].text must be a non-empty string")
    try:
        return PlanItem(text.strip()[:MAX_TEXT], PlanStatus(status))
    except ValueError:
        allowed = ", ".join(s.value for s in PlanStatus)
        raise ToolError(f"Error: items[{index}].status must be one of {allowed}, got {status!r}"
                        ) from None
