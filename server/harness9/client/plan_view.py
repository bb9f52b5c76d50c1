"""The agent's plan (`plan` progress, from its `update_plan` tool) as a checklist."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text

from harness9.visible_text import visible

MARKS = {"done": ("✓", "green"), "in_progress": ("▸", "bold cyan"), "pending": ("○", "dim")}


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One step of the plan."""

    text: str
    status: str  # pending | in_progress | done (another value reads as pending)


@dataclass(frozen=True, slots=True)
class Plan:
    """The plan as the model last wrote it."""

    items: tuple[PlanItem, ...]
    note: str | None = None

    @classmethod
    def from_progress(cls, params: dict[str, Any]) -> Plan:
        """The plan of a `plan` notification (or of `agent/session`'s `plan`)."""
        raw = params.get("items")
        items = tuple(
            PlanItem(visible(str(item.get("text", ""))), str(item.get("status", "pending")))
            for item in (raw if isinstance(raw, list) else [])
            if isinstance(item, dict)
        )
        note = params.get("note")
        return cls(items, visible(note) if isinstance(note, str) and note.strip() else None)

    @property
    def done(self) -> int:
        """How many steps are done."""
        return sum(item.status == "done" for item in self.items)

    @property
    def current(self) -> PlanItem | None:
        """The step in progress, if any."""
        return next((item for item in self.items if item.status == "in_progress"), None)


def checklist(plan: Plan) -> Text:
    """The whole plan: a heading with the count, one line per step, the note."""
    text = Text.assemble(("plan", "bold"), (f" · {plan.done}/{len(plan.items)} done", "dim"))
    for item in plan.items:
        mark, style = MARKS.get(item.status, MARKS["pending"])
        text_style = {"done": "dim", "in_progress": "bold"}.get(item.status, "")
        text.append_text(Text.assemble("\n  ", (mark, style), " ", (item.text, text_style)))
    if plan.note:
        text.append(f"\n  {plan.note}", style="italic dim")
    return text


def compact(plan: Plan) -> Text:
    """One line for a plan update: the count and the step now in progress."""
    line = Text.assemble(("plan", "bold"), (f" · {plan.done}/{len(plan.items)} done", "dim"))
    current = plan.current
    if current is not None:
        line.append(f" · ▸ {current.text}", style="cyan")
    elif plan.items and plan.done == len(plan.items):
        line.append(" · all done", style="green")
    return line
