"""Loading what the first prompt needs while the user is still typing it.

A daemon answers `initialize` (and ACP's `session/new`) without the engine, the tools or a
provider's SDK: importing them takes most of a second. Right after, `start_warm_up` imports them
in a thread of its own, and probes the OS sandbox (a bwrap process), so the first prompt finds
them ready; the garbage collector's full collections wait meanwhile (`hold_collection`). It
imports the same top module the first request does (`harness9.service.agent_service`), so a
request arriving meanwhile waits for that import to finish instead of racing it. Work that can
wait (another service's model list) awaits `warmed()`, so it does not take the CPU from the
first prompt. The SDK clients' TLS context is made meanwhile, in a thread of its own (`tls`).

`HARNESS9_WARM_UP=0` turns it off (the test suite's daemons, which mostly never prompt, use it
to spare the CPU).
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import os
import threading
import time
from collections.abc import Mapping

from harness9.provider import collector, tls

_log = logging.getLogger("harness9.warm_up")

SDK_MODULES = {"openai": "openai", "anthropic": "anthropic"}  # provider → its SDK's module
_done = threading.Event()  # set when warming up ended (or never started)
HOLD_AT_MOST = 60.0
_holding: list[bool] = []  # one entry while start-up holds full collections
_holding_lock = threading.Lock()


def wanted(env: Mapping[str, str] | None = None) -> bool:
    """Whether warming up is on (`HARNESS9_WARM_UP` is not `0`)."""
    return (os.environ if env is None else env).get("HARNESS9_WARM_UP", "1").strip() != "0"


def start_warm_up(provider: str | None) -> None:
    """Import the engine, the tools and `provider`'s SDK (or the default provider's) in a
    daemon thread, unless warming up is off."""
    if wanted():
        threading.Thread(target=warm_up, args=(provider,), name="harness9-warm-up",
                         daemon=True).start()
    else:
        _end()


def hold_collection() -> None:
    """Hold off the garbage collector's full collections until warming up ends (or is found
    to be off), after `HOLD_AT_MOST` seconds in any case (a client that never initializes).

    Importing the daemon, the SDKs and their schemas makes hundreds of thousands of objects
    that live as long as the process; the two full collections this set off on the way took
    about 170 ms of the start. Young objects are still collected (stopping the collector
    altogether left 9 MB more in use). When the hold ends, what is loaded is set apart from the
    collector for good and full collections resume (`collector`).
    """
    with _holding_lock:
        collector.hold()
        _holding.append(True)
    timer = threading.Timer(HOLD_AT_MOST, _resume)
    timer.daemon = True
    timer.start()


def _resume() -> None:
    with _holding_lock:
        if _holding:
            _holding.clear()
            collector.release()


def _end() -> None:
    gc.freeze()  # also when nothing held collections (warming up is off)
    _resume()
    _done.set()


async def warmed(timeout: float = 30.0) -> None:
    """Return once warming up has ended (at once when it is off or already over; after
    `timeout` seconds at most)."""
    if not _done.is_set():
        await asyncio.to_thread(_done.wait, timeout)


def warm_up(provider: str | None) -> None:
    """`start_warm_up`'s work, in the calling thread, unless warming up is off; a failure is
    only logged (the first prompt then imports, and reports, as it would have)."""
    try:
        if wanted():
            _warm_up(provider)
    finally:
        _end()


def _warm_up(provider: str | None) -> None:
    started = time.monotonic()
    tls.start()  # the certificate store loads beside the imports
    try:
        importlib.import_module("harness9.service.agent_service")
        from harness9.provider.factory import default_provider_name
        from harness9.service.config.credentials import provider_environment

        name = provider or default_provider_name(provider_environment())
        sdk = SDK_MODULES.get(name or "")
        if sdk is not None:
            importlib.import_module(sdk)
            importlib.import_module(f"harness9.provider.{name}")
        from harness9.process.sandbox import availability

        # Probed once, with a process: the first bash call would wait for it on the event loop.
        sandbox = availability().mechanism.value
        from harness9.process.launcher import LAUNCHER

        LAUNCHER.ensure_started()  # the process every command starts from
    except Exception as exc:  # whatever it is, the first prompt meets it again and says so
        _log.debug("warm-up stopped: %s", exc)
        return
    _log.debug("warmed up in %.0f ms (provider SDK: %s, sandbox: %s)",
               (time.monotonic() - started) * 1000, sdk or "none", sandbox)
