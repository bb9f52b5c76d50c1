"""The model's plan: its steps and their status (`update_plan`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class PlanStatus(StrEnum):
    """Where one step of a plan stands."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One step of the model's plan."""

    text: str
    status: PlanStatus = PlanStatus.PENDING


_PLAN_MARKS = {PlanStatus.PENDING: "[ ]", PlanStatus.IN_PROGRESS: "[>]", PlanStatus.DONE: "[x]"}


@dataclass(frozen=True, slots=True)
class Plan:
    """The model's plan for the work: its steps in order, and an optional note."""

    items: tuple[PlanItem, ...]
    note: str | None = None

    def checklist(self) -> str:
        """The plan as a text checklist (`[x]` done, `[>]` in progress, `[ ]` pending)."""
        lines = [f"{_PLAN_MARKS[item.status]} {item.text}" for item in self.items]
        if self.note:
            lines.append(f"Note: {self.note}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """The plan as JSON (the wire's and the session file's form)."""
        fields: dict[str, Any] = {
            "items": [{"text": i.text, "status": i.status.value} for i in self.items]
        }
        if self.note:
            fields["note"] = self.note
        return fields

    @classmethod
    def from_dict(cls, raw: Any) -> Plan | None:
        """The plan stored as `as_dict` wrote it; None when `raw` is not one."""
        if not isinstance(raw, dict) or not isinstance(raw.get("items"), list):
            return None
        items = []
        for item in raw["items"]:
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                return None
            try:
                items.append(PlanItem(item["text"], PlanStatus(item.get("status", "pending"))))
            except ValueError:
                return None
        note = raw.get("note")
        return cls(tuple(items), note if isinstance(note, str) else None)
