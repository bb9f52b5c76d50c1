"""`agent/run`: from validated params to a finished engine run and its JSON-RPC answer."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pygls.lsp.server import LanguageServer

from harness9.engine import AgentEngine, EventBus, RunResult
from harness9.engine.events import Event, RunFinished, ToolFinished, ToolStarted
from harness9.engine.log import BlockLogger, format_event
from harness9.engine.prompt import default_system_prompt
from harness9.lsp.errors import request_failed
from harness9.lsp.params import RunParams
from harness9.lsp.progress import ProgressPublisher, wire_usage
from harness9.lsp.sessions import Session, SessionStore, new_id
from harness9.lsp.settings import RunSettings
from harness9.lsp.workdone import WorkDoneProgress
from harness9.provider.errors import ConfigError, ProviderError
from harness9.provider.factory import ProviderSettings, create_provider, default_provider_name
from harness9.provider.limits import RequestLimits
from harness9.schema import Usage
from harness9.tools import default_registry

block_log = logging.getLogger("harness9.engine")


@dataclass(frozen=True, slots=True)
class RunRequest:
    """Everything a run needs, resolved by the server from params, settings and workspace."""

    params: RunParams
    settings: RunSettings
    root: str
    session: Session


class _Observers:
    """The run's event subscribers: notifications, `$/progress`, stderr log, window log."""

    def __init__(self, ls: LanguageServer, run_id: str, session_id: str) -> None:
        self.ls = ls
        self.progress = ProgressPublisher(
            lambda params: ls.protocol.notify("agent/progress", params), run_id, session_id
        )
        self.work: WorkDoneProgress | None = None
        self.finished = False
        self.bus = EventBus(BlockLogger(block_log), self._window_log, self.progress, self._track)

    def _window_log(self, event: Event) -> None:
        if isinstance(event, ToolStarted | ToolFinished):
            text = format_event(event, time.time())
            if text is not None:
                params = types.LogMessageParams(type=types.MessageType.Info, message=text)
                self.ls.window_log_message(params)

    def _track(self, event: Event) -> None:
        if self.work is not None:
            self.work(event)
        if isinstance(event, RunFinished):
            self.finished = True

    def close(self, status: str, error: dict[str, Any] | None = None) -> None:
        """Make sure `run_finished` went out (also for runs that failed before the engine ran)."""
        if not self.finished:
            self.bus.emit(RunFinished(status, 0, 0, Usage(), 0, error=error))
        self.progress.flush()
        if self.work is not None:
            self.work.end(status)
            self.work = None


async def execute_run(
    ls: LanguageServer, store: SessionStore, request: RunRequest
) -> dict[str, Any]:
    """Run the agent for `request` and return the `agent/run` result, or raise its error."""
    session = request.session
    run_id = new_id("r")
    ids = {"runId": run_id, "sessionId": session.id}
    task: asyncio.Task[Any] = asyncio.current_task()  # type: ignore[assignment]
    run = store.start(session, run_id, task)
    observers = _Observers(ls, run_id, session.id)
    try:
        observers.work = await WorkDoneProgress.open(
            ls, request.params.work_done_token, task, request.params.prompt
        )
        engine = _engine(request, observers.bus)
        result = await engine.run(request.params.prompt, session.history)
        observers.close(result.status)
        return _result(ids, result)
    except asyncio.CancelledError:
        observers.close("cancelled")
        raise JsonRpcRequestCancelled(message="the run was cancelled", data=ids) from None
    except ProviderError as exc:
        error = _provider_error(exc)
        observers.close("error", error)
        raise request_failed(exc.message, {**error, **ids}) from None
    except Exception as exc:
        block_log.exception("run %s failed", run_id)
        message = f"internal error: {type(exc).__name__}: {exc}"
        observers.close("error", {"kind": "internal", "message": message})
        raise request_failed(message, {"kind": "internal", **ids}) from None
    finally:
        store.finish(session, run)


def _engine(request: RunRequest, bus: EventBus) -> AgentEngine:
    settings = request.settings
    provider = create_provider(_provider_settings(settings))
    return AgentEngine(
        provider,
        default_registry(request.root),
        max_turns=settings.max_turns,
        tool_timeout=settings.tool_timeout_ms / 1000,
        thinking=settings.thinking,
        stream=settings.stream,
        bus=bus,
        workspace_root=request.root,
        system_prompt=default_system_prompt(request.root),
        max_parallel_tools=settings.max_parallel_tools,
    )


def _provider_settings(settings: RunSettings) -> ProviderSettings:
    name = settings.provider or default_provider_name(os.environ)
    if name is None:
        raise ConfigError(
            "no LLM provider is configured: set OPENAI_API_KEY and OPENAI_BASE_URL, or "
            "ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL (HARNESS9_PROVIDER and HARNESS9_MODEL "
            "choose between them), or use the provider \"replay\" with a script"
        )
    limits = RequestLimits(
        connect=settings.connect_timeout_ms / 1000,
        first_byte=settings.first_byte_timeout_ms / 1000,
        stream_idle=settings.stream_idle_timeout_ms / 1000,
    )
    return ProviderSettings(
        provider=name, model=settings.model, replay_file=settings.replay_file, limits=limits
    )


def _provider_error(exc: ProviderError) -> dict[str, Any]:
    error: dict[str, Any] = {"kind": exc.kind, "message": exc.message}
    if exc.status is not None:
        error["status"] = exc.status
    return error


def _result(ids: dict[str, str], result: RunResult) -> dict[str, Any]:
    return {
        **ids,
        "status": result.status,
        "text": result.text,
        "turns": result.turns,
        "toolCalls": result.tool_calls,
        "usage": wire_usage(result.usage),
    }
