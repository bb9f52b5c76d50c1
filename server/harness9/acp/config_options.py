"""Session config options: the model (category `model`, what clients build their model picker
from) and the reasoning effort (category `thought_level`), set with `session/set_config_option`
and stored with the session like `agent/setModel`. Slash commands go to the client as
`available_commands_update`."""

from __future__ import annotations

from collections.abc import Sequence

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    UnstructuredCommandInput,
)

from harness9.acp import session_wire
from harness9.acp.session_wire import DEFAULT_EFFORT, EFFORT_OPTION, MODEL_OPTION
from harness9.provider.model_catalog import ModelInfo
from harness9.service.commands.catalog import Command
from harness9.service.config.model_choice import ModelChoice
from harness9.service.config.settings import REASONING_EFFORTS

# Commands that move the client to another session: an ACP client does that with its own UI.
NOT_OFFERED = frozenset({"clear", "resume"})


def options(
    models: list[ModelInfo], current: ModelChoice | None
) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
    """The session's config options: its model among `models`, and its reasoning effort."""
    return [SessionConfigOptionSelect.model_validate(option)
            for option in session_wire.config_options(models, current)]


def chosen(
    config_id: str, value: str, current: ModelChoice | None, services: Sequence[str]
) -> ModelChoice:
    """The session's model after setting option `config_id` to `value`; `ValueError` naming
    what is wrong. Any model of a configured service (`services`) is taken, listed yet or
    not: the service itself says whether it has the model when the session's next prompt
    uses it."""
    if config_id == MODEL_OPTION:
        provider, colon, model = value.partition(":")
        if not colon or not provider or not model:
            raise ValueError(f"value must be provider:model, got {value!r}")
        if provider not in services:
            raise ValueError(f"{provider} is not a configured service: choose a model of "
                             f"{', '.join(services) or 'a service whose API key is set'}")
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
