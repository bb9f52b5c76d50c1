"""LSP base-protocol framing of the client's byte stream: headers checked, sizes capped.

`FrameParser` is fed whatever bytes arrive and hands back the complete message bodies. A header
it cannot trust (no or a bad `Content-Length`, a line too long, too many lines) ends the stream:
after it nothing can tell where the next message starts. What a body contains is not its
concern; `decode_body` turns a body into JSON and says clearly why when it cannot.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_HEADER_LINE = 8192
MAX_HEADER_LINES = 32
MAX_BODY = 64 * 1024 * 1024

_LENGTH = re.compile(rb"[0-9]{1,12}")


class FrameError(Exception):
    """The stream broke the framing rules; it cannot be read any further."""


class BodyError(ValueError):
    """A well-framed body that is not a UTF-8 JSON text."""


class FrameParser:
    """Splits a byte stream into message bodies; memory stays within the caps above."""

    def __init__(self, max_body: int = MAX_BODY) -> None:
        self._max_body = max_body
        self._buffer = bytearray()
        self._headers: dict[bytes, bytes] = {}
        self._lines = 0
        self._length: int | None = None  # set while a body is being read

    def feed(self, data: bytes) -> list[bytes | FrameError]:
        """The bodies completed by `data`, in order; a `FrameError` last if the stream broke."""
        self._buffer += data
        out: list[bytes | FrameError] = []
        try:
            while (body := self._next()) is not None:
                out.append(body)
        except FrameError as exc:
            self._buffer.clear()
            out.append(exc)
        return out

    def _next(self) -> bytes | None:
        while self._length is None:
            line = self._line()
            if line is None:
                return None
            self._header(line)
        if len(self._buffer) < self._length:
            return None
        body = bytes(self._buffer[: self._length])
        del self._buffer[: self._length]
        self._length = None
        return body

    def _line(self) -> bytes | None:
        end = self._buffer.find(b"\n", 0, MAX_HEADER_LINE + 1)
        if end < 0:
            if len(self._buffer) > MAX_HEADER_LINE:
                raise FrameError(f"a header line is longer than {MAX_HEADER_LINE} bytes")
            return None
        line = bytes(self._buffer[:end]).rstrip(b"\r")
        del self._buffer[: end + 1]
        return line

    def _header(self, line: bytes) -> None:
        if not line:
            if self._lines:  # the blank line that ends the headers
                self._length = self._content_length()
                self._headers.clear()
                self._lines = 0
            return  # blank lines between messages carry nothing
        self._lines += 1
        if self._lines > MAX_HEADER_LINES:
            raise FrameError(f"more than {MAX_HEADER_LINES} header lines")
        name, sep, value = line.partition(b":")
        name = name.strip().lower()
        if not sep or not name or b" " in name:
            raise FrameError(f"malformed header line {_shown(line)}")
        if name in self._headers:
            raise FrameError(f"repeated header {_shown(name)}")
        self._headers[name] = value.strip()

    def _content_length(self) -> int:
        value = self._headers.get(b"content-length")
        if value is None:
            raise FrameError("a message without a Content-Length header")
        if not _LENGTH.fullmatch(value):
            raise FrameError(f"bad Content-Length {_shown(value)}: not a byte count")
        length = int(value)
        if length > self._max_body:
            raise FrameError(f"Content-Length {length} is over the limit of {self._max_body} bytes")
        return length


def _shown(raw: bytes, limit: int = 60) -> str:
    text = repr(raw[:limit])[1:]
    return text + ("…" if len(raw) > limit else "")


def decode_body(body: bytes, object_hook: Any = None) -> Any:
    """The JSON value of `body`; a `BodyError` saying why when it is not UTF-8 JSON."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyError(f"the body is not valid UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text, object_hook=object_hook)
    except json.JSONDecodeError as exc:
        raise BodyError(f"the body is not JSON: {exc}") from None
    except RecursionError:
        raise BodyError("the body's JSON is nested too deep") from None
