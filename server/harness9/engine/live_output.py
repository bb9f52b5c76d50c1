"""The live output of one running tool call, as `ToolOutputShown` events a user can keep up with.

A tool reports its output through the `OUTPUT_SINK` the engine sets for the call; this turns
those bytes into text (UTF-8, a character split between two reads kept whole) and into events:
the first piece at once, then at most one every `INTERVAL` seconds with everything since, and at
most `CAP` bytes of text per call in all, the piece that reaches the cap marked `truncated`.
When the call ends, what is still pending goes out at once, so the events carry all the output
up to the cap. With one piece per 1/8 s plus that last one, no second holds more than ten.
What the model receives is the tool's result, which none of this touches.
"""

from __future__ import annotations

import asyncio
import codecs
import time

from harness9.engine.events import EventBus, ToolOutputShown
from harness9.schema import ToolCall

INTERVAL = 0.125
CAP = 64 * 1024


class LiveOutput:
    """Coalesces one call's output into `ToolOutputShown` events on `bus`."""

    def __init__(
        self, bus: EventBus, turn: int, call: ToolCall, *, interval: float = INTERVAL,
        cap: int = CAP,
    ) -> None:
        self._bus = bus
        self._turn = turn
        self._call = call
        self._interval = interval
        self._room = cap
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = ""
        self._full = False  # the cap is reached: nothing more is taken
        self._done = False  # the truncated piece went out, or the call ended
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def feed(self, data: bytes) -> None:
        """Take a piece of the call's output (the tool's sink)."""
        if self._full or self._done or not data:
            return
        self._take(self._decoder.decode(data))
        if self._timer is not None:
            return
        wait = self._last + self._interval - time.monotonic()
        if wait <= 0:
            self._flush()
        else:
            self._timer = asyncio.get_running_loop().call_later(wait, self._on_timer)

    def close(self) -> None:
        """The call ended: send what is pending (and the decoder's last bytes) now."""
        if self._done:
            return
        if not self._full:
            self._take(self._decoder.decode(b"", final=True))
        self._flush()
        self._done = True

    def _take(self, text: str) -> None:
        encoded = text.encode("utf-8")
        if len(encoded) > self._room:
            # Cut on a character boundary: "ignore" drops a character the cut split.
            text = encoded[: self._room].decode("utf-8", "ignore")
            encoded = text.encode("utf-8")
            self._full = True
        self._room -= len(encoded)
        self._pending += text

    def _on_timer(self) -> None:
        self._timer = None
        if not self._done:
            self._flush()

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._done or not (self._pending or self._full):
            return
        text, self._pending = self._pending, ""
        self._last = time.monotonic()
        self._bus.emit(ToolOutputShown(self._turn, self._call, text, truncated=self._full))
        if self._full:
            self._done = True
