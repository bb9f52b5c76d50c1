"""Requests the protocol has made stable but the ACP SDK does not route yet, answered from their
raw parameters on the SDK's own router (so they share its connection, ids and error answers)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from acp import AgentSideConnection
from acp.router import MessageRouter, Route

_log = logging.getLogger(__name__)

RawHandler = Callable[[Any], Awaitable[Any]]


def add_raw_requests(conn: AgentSideConnection, handlers: dict[str, RawHandler]) -> bool:
    """Route each method of `handlers` (a request's raw params → its result) on `conn`; False
    (logged) when this SDK keeps its router elsewhere, and the methods stay unknown."""
    router = getattr(getattr(conn, "_conn", None), "_handler", None)
    if not isinstance(router, MessageRouter):
        _log.warning("this ACP SDK's router cannot take more methods: %s stay unanswered",
                     ", ".join(handlers))
        return False
    for method, handler in handlers.items():
        router.add_route(Route(method=method, func=handler, kind="request"))
    return True
