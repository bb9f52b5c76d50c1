"""Loading what lives as long as the process without the garbage collector walking it.

The daemon, the provider SDKs and their schemas are hundreds of thousands of objects made by
imports and kept to the end. A full collection walks every object the collector tracks: one set
off in the middle of an SDK's import walks the part already loaded (up to 65 ms for Anthropic's,
with the interpreter's lock held, so the event loop and a streamed answer stall) and frees
nothing. While any hold is on, full collections wait (young objects are still collected); when
the last hold ends, what was loaded is set apart from the collector for good (`gc.freeze`) and
full collections resume with the thresholds they had.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_NEVER = 1 << 30  # a full collection after this many middle ones: not while held
_lock = threading.Lock()
_holds = 0
_thresholds: tuple[int, int, int] = gc.get_threshold()


def hold() -> None:
    """Hold off full collections until a matching `release` (holds nest, across threads)."""
    global _holds, _thresholds
    with _lock:
        if _holds == 0:
            _thresholds = gc.get_threshold()
            gc.set_threshold(_thresholds[0], _thresholds[1], _NEVER)
        _holds += 1


def release() -> None:
    """End one hold; the last sets what was loaded apart and resumes full collections."""
    global _holds
    with _lock:
        if _holds == 0:
            return
        _holds -= 1
        if _holds == 0:
            gc.freeze()
            gc.set_threshold(*_thresholds)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """`hold` for the block, then `release`."""
    hold()
    try:
        yield
    finally:
        release()
