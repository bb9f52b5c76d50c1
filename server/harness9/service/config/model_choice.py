"""The model a session runs on, as the user chose it (`agent/setModel`, `/model`, ACP's picker)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from harness9.service.config.settings import RunSettings


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """A provider, its model, and the reasoning effort (None: the settings')."""

    provider: str
    model: str
    reasoning_effort: str | None = None

    def as_wire(self) -> dict[str, Any]:
        """`{provider, model, reasoningEffort?}`, as stored and as the wire shows it."""
        wire: dict[str, Any] = {"provider": self.provider, "model": self.model}
        if self.reasoning_effort is not None:
            wire["reasoningEffort"] = self.reasoning_effort
        return wire

    @staticmethod
    def from_wire(raw: Any) -> ModelChoice | None:
        """The choice a stored record holds; None when it holds none or is damaged."""
        if not isinstance(raw, dict):
            return None
        provider, model = raw.get("provider"), raw.get("model")
        effort = raw.get("reasoningEffort")
        if not isinstance(provider, str) or not isinstance(model, str) or not model:
            return None
        return ModelChoice(provider, model, effort if isinstance(effort, str) else None)

    def applied(self, settings: RunSettings) -> RunSettings:
        """`settings` running on this model (an effort of None keeps the settings' effort)."""
        effort = self.reasoning_effort or settings.reasoning_effort
        return replace(settings, provider=self.provider, model=self.model,
                       reasoning_effort=effort)
