"""Requests from the daemon to the editor, awaited from a run (approval questions, edits).

A request whose awaiting task is cancelled, or that is not answered in time, is withdrawn
from the editor with `$/cancelRequest`, and its late answer is dropped quietly.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol

_ids = itertools.count(1)


async def ask_client(
    protocol: LanguageServerProtocol,
    method: str,
    params: Any,
    prefix: str,
    timeout: float | None = None,
) -> Any:
    """Send `method` to the client and return its answer; `TimeoutError` after `timeout`
    seconds (None: no limit), raising the client's error as pygls does."""
    msg_id = f"{prefix}-{next(_ids)}"
    future = protocol.send_request(method, params, msg_id=msg_id)
    try:
        async with asyncio.timeout(timeout):
            return await asyncio.wrap_future(future)
    except (asyncio.CancelledError, TimeoutError):
        protocol._request_futures.pop(msg_id, None)
        protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        raise


def field_of(value: Any, name: str) -> Any:
    """A field of a client's answer as it sent it (None when the answer is no object)."""
    return value.get(name) if isinstance(value, dict) else None
