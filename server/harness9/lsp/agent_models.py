"""`agent/models`, `agent/setModel` and `agent/commands` on the wire."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from harness9.lsp.lsp_errors import wire_errors
from harness9.lsp.params import ModelsParams, SetModelParams
from harness9.service.agent_service import AgentService
from harness9.service.commands.catalog import available
from harness9.service.config.model_choice import ModelChoice
from harness9.service.config.models import current_model, effective_provider
from harness9.service.config.settings import RunSettings


async def list_models(
    service: AgentService, params: ModelsParams, settings: RunSettings
) -> dict[str, Any]:
    """The `agent/models` result."""
    chosen = None
    if params.session_id is not None:
        with wire_errors():
            chosen = service.sessions.view(params.session_id)[0].model
    listing = await service.models.listing(settings, params.provider, params.refresh)
    current = current_model(settings, chosen)
    return {
        "models": [model.as_wire() for model in listing.models],
        "current": current.as_wire() if current is not None else None,
        "errors": [{"provider": provider, "kind": error.kind, "message": error.message}
                   for provider, error in listing.errors],
    }


def set_model(
    service: AgentService, params: SetModelParams, settings: RunSettings
) -> dict[str, Any]:
    """The `agent/setModel` result: the session's model as stored."""
    with wire_errors():
        stored = service.sessions.view(params.session_id)[0].model
        provider = params.provider or (stored.provider if stored is not None else None) or (
            effective_provider(settings, os.environ))
        if provider is None:
            raise JsonRpcInvalidParams(message="provider: no provider is configured; name one "
                                       "(openai, anthropic or replay)")
        choice = ModelChoice(provider, params.model, params.reasoning_effort)
        service.sessions.set_model(params.session_id, choice)
    return choice.as_wire()


async def list_commands(root: str) -> dict[str, Any]:
    """The `agent/commands` result (the command folders are read off the event loop)."""
    commands = await asyncio.to_thread(available, root)
    return {"commands": [command.as_wire() for command in commands]}
