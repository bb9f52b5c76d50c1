"""What is known of model families: context window, image input, reasoning effort.

The services' model lists name their models and little else, so the rest comes from this table,
by model-name prefix (the longest matching prefix wins). Unknown models get `None` for each,
which the wire leaves out; the context window then falls back to the engine's default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Family:
    """What a model family offers."""

    context_window: int
    images: bool
    reasoning: bool


# Model-name prefix → family. Anthropic's Claude 3 models before 3.7 have no extended thinking.
FAMILIES: dict[str, Family] = {
    "gpt-3.5-turbo": Family(16_385, False, False),
    "gpt-4": Family(8_192, False, False),
    "gpt-4-turbo": Family(128_000, True, False),
    "gpt-4o": Family(128_000, True, False),
    "gpt-4.1": Family(1_047_576, True, False),
    "gpt-5": Family(400_000, True, True),
    "o1": Family(200_000, True, True),
    "o3": Family(200_000, True, True),
    "o4-mini": Family(200_000, True, True),
    "claude-": Family(200_000, True, True),
    "claude-3-": Family(200_000, True, False),
    "claude-3-7": Family(200_000, True, True),
    "deepseek": Family(128_000, False, False),
    "deepseek-reasoner": Family(128_000, False, True),
}


def family_of(model: str) -> Family | None:
    """The family of `model` (also behind a router prefix such as `openrouter/…/`), or None."""
    name = model.lower().rsplit("/", 1)[-1]
    matches = [prefix for prefix in FAMILIES if name.startswith(prefix)]
    return FAMILIES[max(matches, key=len)] if matches else None


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """One model a service offers, with what is known of it."""

    provider: str
    id: str
    name: str | None = None

    @property
    def family(self) -> Family | None:
        """What the table knows of this model."""
        return family_of(self.id)

    def as_wire(self) -> dict[str, Any]:
        """The model as `agent/models` lists it (unknown facts left out)."""
        wire: dict[str, Any] = {"provider": self.provider, "id": self.id}
        if self.name and self.name != self.id:
            wire["name"] = self.name
        family = self.family
        if family is not None:
            wire.update(contextWindow=family.context_window, images=family.images,
                        reasoning=family.reasoning)
        return wire
