"""A session's modes and config options as they go on the wire, built without the ACP SDK.

The SDK's schema takes most of a second to import; the answer to a client's first `session/new`
is built from these dicts before it has loaded (`early_session`), and the agent validates the
same dicts into the SDK's types for every later answer and update: one source for both.
"""

from __future__ import annotations

from typing import Any

from harness9.provider.model_catalog import ModelInfo
from harness9.service.config.model_choice import ModelChoice
from harness9.service.config.settings import REASONING_EFFORTS, RunSettings

# The approval modes, chosen per session with `session/set_mode`: (id, name, description).
MODES = (
    ("ask", "Ask", "Reads run; edits and commands ask first"),
    ("auto", "Auto", "Reads, edits and sandboxed commands run; leaving the sandbox asks"),
    ("auto-edit", "Auto-edit", "Reads and file edits run; commands ask first"),
    ("yolo", "Yolo", "Everything runs without asking"),
    ("read-only", "Read-only", "Reads run; edits and commands are refused"),
    ("plan", "Plan", "The agent investigates and writes a plan; nothing is changed"),
)
MODEL_OPTION = "model"
EFFORT_OPTION = "reasoning_effort"
DEFAULT_EFFORT = "default"


def default_mode(settings: RunSettings) -> str:
    """The approval mode the settings give."""
    return settings.approval_policy().mode


def mode_state(current: str) -> dict[str, Any]:
    """The `modes` of a `session/new` or `session/load` answer."""
    return {"currentModeId": current,
            "availableModes": [{"id": i, "name": n, "description": d} for i, n, d in MODES]}


def model_value(provider: str, model: str) -> str:
    """An option value naming a model of a provider."""
    return f"{provider}:{model}"


def config_options(models: list[ModelInfo], current: ModelChoice | None) -> list[dict[str, Any]]:
    """The session's config options: its model among `models`, and its reasoning effort."""
    choices = [_choice(model_value(m.provider, m.id), m.name or m.id, m.provider)
               for m in models]
    value = model_value(current.provider, current.model) if current is not None else ""
    if current is not None and all(c["value"] != value for c in choices):
        choices.insert(0, _choice(value, current.model, current.provider))
    efforts = [_choice(DEFAULT_EFFORT, "Default", "The model's own default")]
    efforts += [_choice(e, e.title()) for e in REASONING_EFFORTS]
    effort = current.reasoning_effort if current is not None else None
    return [
        {"id": MODEL_OPTION, "name": "Model", "category": "model", "type": "select",
         "currentValue": value, "options": choices},
        {"id": EFFORT_OPTION, "name": "Reasoning effort", "category": "thought_level",
         "type": "select", "currentValue": effort or DEFAULT_EFFORT, "options": efforts},
    ]


def _choice(value: str, name: str, description: str | None = None) -> dict[str, Any]:
    choice = {"value": value, "name": name}
    if description is not None:
        choice["description"] = description
    return choice
