"""The agent's plan (`plan` progress, from its `update_plan` tool), as data: no drawing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness9.visible_text import visible


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
