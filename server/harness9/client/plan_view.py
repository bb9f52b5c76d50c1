"""The agent's plan (`plan` progress, from its `update_plan` tool) drawn as a checklist."""

from __future__ import annotations

from rich.text import Text

from harness9.client.plan import Plan

MARKS = {"done": ("✓", "green"), "in_progress": ("▸", "bold cyan"), "pending": ("○", "dim")}


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
