"""Standard LSP work-done progress (`$/progress`) for a run, cancellable from the client."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from harness9.engine.events import ChildEvent, Event, ToolFinished, ToolStarted
from harness9.lsp.transport import output_congested
from harness9.schema import ToolCall, ToolResult

_log = logging.getLogger(__name__)
_CREATE_TIMEOUT = 5.0
_RETRY_SECONDS = 0.05  # how often a held report looks whether the client reads again


def describe_call(call: ToolCall, limit: int = 60) -> str:
    """`bash: go test ./...` — the tool and its first string argument, shortened."""
    try:
        args: Any = json.loads(call.arguments)
    except json.JSONDecodeError:
        args = {}
    detail = next((v for v in args.values() if isinstance(v, str)), "") if isinstance(
        args, dict
    ) else ""
    detail = detail.splitlines()[0] if detail else ""
    if len(detail) > limit:
        detail = detail[: limit - 1] + "…"
    return f"{call.name}: {detail}" if detail else call.name


def result_mark(result: ToolResult) -> str:
    """`✓`, or `✗` for a failed call, with how its command ended when it exited non-zero or
    was killed (a completed call for the model, a failed one for the user)."""
    ended = result.exit
    if ended is not None and ended.failed:
        return f"✗ exit {ended.code}" if ended.code is not None else f"✗ {ended.signal}"
    return "✗" if result.is_error else "✓"


class WorkDoneProgress:
    """Begin/report/end on one token; the client's cancel on that token cancels `task`.

    While the client lags behind our output (`congested()`), reports are held and only the
    newest is sent once it reads again: each report replaces the one before anyway.
    """

    def __init__(
        self,
        ls: LanguageServer,
        token: str | int,
        task: asyncio.Task[Any],
        congested: Callable[[], bool] = output_congested,
    ) -> None:
        self._ls = ls
        self._token = token
        self._congested = congested
        self._held: str | None = None
        self._retry: asyncio.TimerHandle | None = None
        loop = asyncio.get_running_loop()
        future: Future[Any] = ls.work_done_progress.tokens[token]
        future.add_done_callback(lambda _f: loop.call_soon_threadsafe(task.cancel))

    @classmethod
    async def open(
        cls,
        ls: LanguageServer,
        token: str | int | None,
        task: asyncio.Task[Any],
        prompt: str,
        congested: Callable[[], bool] = output_congested,
    ) -> WorkDoneProgress | None:
        """Use the client's token, else create one when the client supports it, else None."""
        if token is None:
            token = await _create_token(ls)
            if token is None:
                return None
        ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="harness9", message=prompt.splitlines()[0][:80], cancellable=True
            ),
        )
        return cls(ls, token, task, congested)

    def __call__(self, event: Event) -> None:
        message = _row(event)
        if message is not None:
            self._report(message)

    def _report(self, message: str) -> None:
        if self._congested():
            self._held = message
            if self._retry is None:
                loop = asyncio.get_running_loop()
                self._retry = loop.call_later(_RETRY_SECONDS, self._send_held)
            return
        self._held = None
        self._ls.work_done_progress.report(
            self._token, types.WorkDoneProgressReport(message=message)
        )

    def _send_held(self) -> None:
        self._retry = None
        if self._held is not None:
            self._report(self._held)

    def end(self, status: str) -> None:
        """Close the progress with the run's status and forget the token (a held report too)."""
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        self._held = None
        self._ls.work_done_progress.end(self._token, types.WorkDoneProgressEnd(message=status))
        self._ls.work_done_progress.tokens.pop(self._token, None)


def _row(event: Event) -> str | None:
    """The report for a tool's start or end (a child agent's under its name), else None."""
    if isinstance(event, ChildEvent):
        inner = _row(event.event)
        return None if inner is None else f"↳ {event.agent} · {inner}"
    if isinstance(event, ToolStarted):
        return f"turn {event.turn} · {describe_call(event.call)}"
    if isinstance(event, ToolFinished):
        took = f"{event.result.duration_ms:.0f} ms"
        return f"turn {event.turn} · {event.call.name} {result_mark(event.result)} {took}"
    return None


async def _create_token(ls: LanguageServer) -> str | None:
    caps = ls.client_capabilities
    if not (caps and caps.window and caps.window.work_done_progress):
        return None
    token = f"harness9-{uuid.uuid4().hex}"
    try:
        # Shielded: a run cancelled while the client has not answered must not leave pygls a
        # cancelled future to trip over when the answer arrives.
        create = asyncio.ensure_future(ls.work_done_progress.create_async(token))
        await asyncio.wait_for(asyncio.shield(create), _CREATE_TIMEOUT)
    except (JsonRpcException, TimeoutError) as exc:
        _log.warning("work-done progress unavailable: %s", exc)
        return None
    return token
