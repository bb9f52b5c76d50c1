"""The client's lines on their way to the ACP SDK, with what the SDK cannot take answered here.

The SDK's receive loop takes every JSON line for an object: a line holding an array (a JSON-RPC
batch, which ACP does not have), a number or a string would end the connection. Such a line is
answered -32600 here and never reaches the SDK; a line that is not JSON is answered -32700. A
line that starts with `{` passes straight through, unparsed, so the common path costs a scan for
the line's end and nothing more.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Literal

MAX_HELD = 1024 * 1024  # a line that starts wrong is held up to this much, then refused whole
_BLANK = b" \t\r"


class LineGuard(asyncio.StreamReaderProtocol):
    """A `StreamReaderProtocol` that feeds its reader only lines the SDK can take; `answer`
    writes one JSON-RPC message back to the client."""

    def __init__(self, reader: asyncio.StreamReader, answer: Callable[[bytes], None]) -> None:
        super().__init__(reader)
        self._answer = answer
        self._mode: Literal["start", "pass", "hold", "drop"] = "start"
        self._held = bytearray()

    def data_received(self, data: bytes) -> None:
        """Pass the chunk on line by line, holding back a line that does not start with `{`."""
        self.feed(data)

    def feed(self, data: bytes) -> None:
        """What `data_received` does (also for bytes read before the protocol existed)."""
        pos = 0
        while pos < len(data):
            if self._mode == "start":
                self._mode = "hold"
            end = data.find(b"\n", pos)
            stop = len(data) if end < 0 else end + 1
            piece = data[pos:stop]
            if self._mode == "pass":
                super().data_received(piece)
            elif self._mode == "hold":
                self._hold(piece, whole=end >= 0)
            if end >= 0:
                self._mode = "start"
            pos = stop

    def _hold(self, piece: bytes, *, whole: bool) -> None:
        """Hold the line's start until its first character says what it is: an object (or a
        blank line) passes on, anything else is judged once whole."""
        self._held += piece
        first = bytes(self._held.lstrip(_BLANK)[:1])
        if first in (b"{", b"\n"):
            super().data_received(bytes(self._held))
            self._held.clear()
            self._mode = "pass"
        elif whole:
            self._judge(bytes(self._held))
            self._held.clear()
        elif len(self._held) > MAX_HELD:
            self._held.clear()
            self._mode = "drop"
            self._refuse(-32600, "Invalid Request: a message must be a JSON object")

    def _judge(self, line: bytes) -> None:
        """Answer a whole line that does not start an object (the SDK would stop on it)."""
        try:
            value = json.loads(line)
        except ValueError:
            self._refuse(-32700, "Parse error: the line is not JSON")
            return
        if isinstance(value, list):
            self._refuse(-32600, "Invalid Request: batches are not supported; send one "
                                 "JSON object per line")
        else:
            self._refuse(-32600, "Invalid Request: a message must be a JSON object")

    def _refuse(self, code: int, message: str) -> None:
        error = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
        self._answer(json.dumps(error).encode() + b"\n")
