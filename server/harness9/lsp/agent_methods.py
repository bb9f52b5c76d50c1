"""The `agent/*` requests: each handler checks its params on its first lines (a bad one is the
-32602 answer naming the field) and hands over to the service, loading what it needs on first
use so that `initialize` is answered sooner."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pygls.exceptions import JsonRpcInvalidParams

from harness9.lsp.params import (
    ParamsError,
    bind_context,
    parse_cancel_params,
    parse_changed_since_params,
    parse_checkpoints_params,
    parse_commands_params,
    parse_models_params,
    parse_restore_params,
    parse_run_params,
    parse_session_id,
    parse_sessions_params,
    parse_set_model_params,
    parse_steer_params,
    parse_unqueue_params,
)
from harness9.service.config.settings import from_environment, resolve

if TYPE_CHECKING:
    from harness9.lsp.server import Harness9Server

_P = TypeVar("_P")


def parsed_params(parse: Callable[[Any], _P], raw: Any) -> _P:
    """Params converted by `parse`; a `ParamsError` becomes the -32602 answer naming the field."""
    try:
        return parse(raw)
    except ParamsError as exc:
        raise JsonRpcInvalidParams(message=str(exc)) from None


async def agent_run(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Run the agent loop on one prompt; answers when the loop ends."""
    ls.require_initialized()
    params = parsed_params(parse_run_params, raw)
    if params.session_id is not None:
        ls.check_session(params.session_id)
    root = ls.resolve_root(params.workspace_folder)
    context = parsed_params(lambda items: bind_context(items, root), params.context)
    settings = resolve(from_environment(os.environ), ls.client_settings, params.overrides)
    # The engine, tools and SDK adapters load on the first run, not at start-up: the editor's
    # `initialize` is answered sooner, and the first run pays about a tenth of a second.
    from harness9.lsp.agent_run import execute_run

    return await execute_run(ls, ls.service, params, settings, root, context)


async def agent_steer(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Give a running run a message before its next model call; answered once delivered, or
    once it has become the session's next run."""
    ls.require_initialized()
    params = parsed_params(parse_steer_params, raw)
    from harness9.lsp.agent_steer import steer, steer_root

    root = steer_root(ls, params.run_id)
    context = parsed_params(lambda items: bind_context(items, root), params.context)
    return await steer(ls, params, root, context)


def agent_queue(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """The prompts queued on a session, next first."""
    ls.require_initialized()
    session_id = parsed_params(lambda r: parse_session_id(r, "agent/queue"), raw)
    ls.check_session(session_id)
    from harness9.lsp.agent_steer import queued

    return queued(ls, session_id)


def agent_unqueue(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Remove a queued prompt (its agent/run ends cancelled)."""
    ls.require_initialized()
    params = parsed_params(parse_unqueue_params, raw)
    ls.check_session(params.session_id)
    from harness9.lsp.agent_steer import unqueue

    return unqueue(ls, params.session_id, params.queue_id)


async def agent_models(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """The models the configured services offer, and the one in use."""
    ls.require_initialized()
    params = parsed_params(parse_models_params, raw)
    if params.session_id is not None:
        ls.check_session(params.session_id)
    settings = resolve(from_environment(os.environ), ls.client_settings)
    from harness9.lsp.agent_models import list_models

    return await list_models(ls.service, params, settings)


def agent_set_model(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """The model of a session's next runs, stored with it."""
    ls.require_initialized()
    params = parsed_params(parse_set_model_params, raw)
    ls.check_session(params.session_id)
    settings = resolve(from_environment(os.environ), ls.client_settings)
    from harness9.lsp.agent_models import set_model

    return set_model(ls.service, params, settings)


async def agent_commands(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """The slash commands: built in, the workspace's and the user's."""
    ls.require_initialized()
    session_id, folder = parsed_params(parse_commands_params, raw)
    if session_id is not None:
        ls.check_session(session_id)
    from harness9.lsp.agent_models import list_commands

    return await list_commands(ls.resolve_root(folder))


async def agent_agents(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """The agents a `task` call may run: built in, the workspace's and the user's."""
    ls.require_initialized()
    _, folder = parsed_params(parse_commands_params, raw)
    return {"agents": await ls.service.agents(ls.resolve_root(folder))}


async def agent_cancel(ls: Harness9Server, raw: Any) -> dict[str, bool]:
    """Cancel a run; answered only after the run's last notification and its -32800 answer."""
    ls.require_initialized()
    params = parsed_params(parse_cancel_params, raw)
    return {"cancelled": await ls.service.cancel(params.run_id, params.session_id)}


def agent_checkpoints(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """A session's checkpoints, oldest first."""
    ls.require_initialized()
    session_id = parsed_params(parse_checkpoints_params, raw)
    ls.check_session(session_id)
    from harness9.lsp.agent_checkpoints import (
        list_checkpoints,  # loaded on demand, as for agent/run
    )

    return list_checkpoints(ls.service, session_id)


async def agent_restore(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Put the workspace and the session's history back to a checkpoint."""
    ls.require_initialized()
    params = parsed_params(parse_restore_params, raw)
    ls.check_session(params.session_id)
    from harness9.lsp.agent_checkpoints import restore

    return await restore(ls.service, params)


async def agent_changed_since(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """The files a restore to a checkpoint would put back, each as it was then."""
    ls.require_initialized()
    session_id, checkpoint_id = parsed_params(parse_changed_since_params, raw)
    ls.check_session(session_id)
    from harness9.lsp.agent_checkpoints import changed_since

    return await changed_since(ls.service, session_id, checkpoint_id)


def agent_sessions(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """The stored sessions of a workspace folder (default: the first), newest first."""
    ls.require_initialized()
    root = ls.resolve_root(parsed_params(parse_sessions_params, raw))
    from harness9.lsp.agent_sessions import list_sessions

    return list_sessions(ls.service, root)


def agent_session(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """What a chat view needs to show a session again."""
    ls.require_initialized()
    session_id = parsed_params(lambda r: parse_session_id(r, "agent/session"), raw)
    ls.check_session(session_id)
    from harness9.lsp.agent_sessions import show_session

    return show_session(ls.service, session_id)


def agent_delete_session(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Forget a session and remove its stored copy."""
    ls.require_initialized()
    session_id = parsed_params(lambda r: parse_session_id(r, "agent/deleteSession"), raw)
    ls.check_session(session_id)
    from harness9.lsp.agent_sessions import delete_session

    return delete_session(ls.service, session_id)


async def agent_compact(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Compact a session's conversation now."""
    ls.require_initialized()
    session_id = parsed_params(lambda r: parse_session_id(r, "agent/compact"), raw)
    ls.check_session(session_id)
    settings = resolve(from_environment(os.environ), ls.client_settings)
    from harness9.lsp.agent_sessions import compact_session

    return await compact_session(ls.service, session_id, settings)


async def agent_tools(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Exactly what the model is offered: the built-in tools and those of the MCP servers
    (starting the configured servers that are not running yet)."""
    ls.require_initialized()
    from harness9.lsp.agent_tools import list_tools  # loaded on demand, as for agent/run

    settings = resolve(from_environment(os.environ), ls.client_settings)
    return await list_tools(ls, ls.service, settings, ls.folders())


# Each method's handler, registered by `server`.
AGENT_METHODS: dict[str, Callable[..., Any]] = {
    "agent/run": agent_run,
    "agent/steer": agent_steer,
    "agent/queue": agent_queue,
    "agent/unqueue": agent_unqueue,
    "agent/models": agent_models,
    "agent/setModel": agent_set_model,
    "agent/commands": agent_commands,
    "agent/agents": agent_agents,
    "agent/cancel": agent_cancel,
    "agent/checkpoints": agent_checkpoints,
    "agent/restore": agent_restore,
    "agent/changedSince": agent_changed_since,
    "agent/sessions": agent_sessions,
    "agent/session": agent_session,
    "agent/deleteSession": agent_delete_session,
    "agent/compact": agent_compact,
    "agent/tools": agent_tools,
}
