"""Session config options: the model (category `model`, what clients build their model picker
from) and the reasoning effort (category `thought_level`), set with `session/set_config_option`
and stored with the session like `agent/setModel`. Slash commands go to the client as
`available_commands_update`."""

from __future__ import annotations

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    UnstructuredCommandInput,
)

from harness9.provider.model_catalog import ModelInfo
from harness9.service.commands import Command
from harness9.service.model_choice import ModelChoice
from harness9.service.settings import REASONING_EFFORTS

MODEL_OPTION = "model"
EFFORT_OPTION = "reasoning_effort"
DEFAULT_EFFORT = "default"
# Commands that move the client to another session: an ACP client does that with its own UI.
NOT_OFFERED = frozenset({"clear", "resume"})


def model_value(provider: str, model: str) -> str:
    """An option value naming a model of a provider."""
    return f"{provider}:{model}"


def options(
    models: list[ModelInfo], current: ModelChoice | None
) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
    """The session's config options: its model among `models`, and its reasoning effort."""
    choices = [SessionConfigSelectOption(value=model_value(m.provider, m.id),
                                         name=m.name or m.id, description=m.provider)
               for m in models]
    value = model_value(current.provider, current.model) if current is not None else ""
    if current is not None and all(c.value != value for c in choices):
        choices.insert(0, SessionConfigSelectOption(value=value, name=current.model,
                                                    description=current.provider))
    efforts = [SessionConfigSelectOption(value=DEFAULT_EFFORT, name="Default",
                                         description="The model's own default")]
    efforts += [SessionConfigSelectOption(value=e, name=e.title()) for e in REASONING_EFFORTS]
    effort = current.reasoning_effort if current is not None else None
    return [
        SessionConfigOptionSelect(id=MODEL_OPTION, name="Model", category="model",
                                  type="select", current_value=value, options=choices),
        SessionConfigOptionSelect(id=EFFORT_OPTION, name="Reasoning effort",
                                  category="thought_level", type="select",
                                  current_value=effort or DEFAULT_EFFORT, options=efforts),
    ]


def chosen(config_id: str, value: str, current: ModelChoice | None) -> ModelChoice:
    """The session's model after setting option `config_id` to `value`; `ValueError` naming
    what is wrong."""
    if config_id == MODEL_OPTION:
        provider, colon, model = value.partition(":")
        if not colon or not provider or not model:
            raise ValueError(f"value must be provider:model, got {value!r}")
        effort = current.reasoning_effort if current is not None else None
        return ModelChoice(provider, model, effort)
    if config_id == EFFORT_OPTION:
        if current is None:
            raise ValueError("no model is configured to set the reasoning effort of")
        if value != DEFAULT_EFFORT and value not in REASONING_EFFORTS:
            raise ValueError(f"value must be one of default, {', '.join(REASONING_EFFORTS)}")
        effort = None if value == DEFAULT_EFFORT else value
        return ModelChoice(current.provider, current.model, effort)
    raise ValueError(f"unknown option {config_id!r}")


def commands_update(commands: list[Command]) -> AvailableCommandsUpdate:
    """The `available_commands_update` of the commands an ACP client can use."""
    offered = [
        AvailableCommand(
            name=c.name, description=c.description,
            input=AvailableCommandInput(UnstructuredCommandInput(hint=c.argument_hint))
            if c.argument_hint else None,
        )
        for c in commands if c.name not in NOT_OFFERED
    ]
    return AvailableCommandsUpdate(session_update="available_commands_update",
                                   available_commands=offered)
