"""One TLS context for the SDK clients of the process, made ahead in a thread of its own.

By default each SDK client makes its own context when it is built, loading the system's
certificate store: 30 to 60 ms on the event loop, the first time in the middle of a first
prompt, between the SDK's import and its first request. Here the store is loaded once, the way
the HTTP library does for `verify=True` (`httpcore2.default_ssl_context`, which reads
`SSL_CERT_FILE` / `SSL_CERT_DIR` as it would), in a thread started as soon as the daemon warms
up: OpenSSL loads it without the interpreter's lock, so it overlaps the SDK's import. Each
client is then built on the HTTP client its SDK would have made, given that context (`http`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import ssl
import threading
from types import ModuleType
from typing import Any

_log = logging.getLogger("harness9.provider")
_lock = threading.Lock()
_made: list[concurrent.futures.Future[ssl.SSLContext]] = []  # one, once started


def start() -> concurrent.futures.Future[ssl.SSLContext]:
    """Begin making the context in a thread (once); its future."""
    with _lock:
        if not _made:
            _made.append(concurrent.futures.Future())
            threading.Thread(target=_make, args=(_made[0],), name="harness9-tls",
                             daemon=True).start()
        return _made[0]


def _make(future: concurrent.futures.Future[ssl.SSLContext]) -> None:
    try:
        import httpcore2

        future.set_result(httpcore2.default_ssl_context())
    except Exception as exc:  # the SDK then makes its own, and reports what fails there
        future.set_exception(exc)


async def context() -> ssl.SSLContext | None:
    """The shared context (made now if warming up did not start it); None when it could not
    be made."""
    try:
        return await asyncio.wrap_future(start())
    except Exception as exc:
        _log.debug("no shared TLS context: %s", exc)
        return None


def http(sdk: ModuleType, base_url: str, timeout: Any, verify: ssl.SSLContext) -> Any:
    """The HTTP client `sdk` builds for itself when given none (its own class, the same
    arguments), on the TLS context `verify`."""
    wrapper = getattr(sdk._base_client, "AsyncHttpxClientWrapper", sdk.DefaultAsyncHttpxClient)
    return wrapper(base_url=base_url, timeout=timeout, verify=verify)
