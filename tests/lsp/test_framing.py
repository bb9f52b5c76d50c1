"""The frame parser: bodies out of any split of the byte stream; bad headers end it."""

from __future__ import annotations

import pytest

from harness9.lsp.framing import (
    MAX_HEADER_LINE,
    BodyError,
    FrameError,
    FrameParser,
    decode_body,
)


def frame(body: bytes, extra: bytes = b"") -> bytes:
    return b"Content-Length: %d\r\n%s\r\n" % (len(body), extra) + body


def test_bodies_come_out_whole_however_the_stream_is_split() -> None:
    stream = frame(b'{"a": 1}') + b"\r\n" + frame(b"[]", b"content-type: x\r\n") + frame(b"")
    for size in (1, 2, 7, len(stream)):
        parser = FrameParser()
        out: list[bytes | FrameError] = []
        for i in range(0, len(stream), size):
            out += parser.feed(stream[i : i + size])
        assert out == [b'{"a": 1}', b"[]", b""]


def test_a_bare_newline_ends_a_header_line_too() -> None:
    assert FrameParser().feed(b"content-length:  2 \n\n{}") == [b"{}"]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"Content-Length: -5\r\n\r\n", "bad Content-Length '-5'"),
        (b"Content-Length: 1e3\r\n\r\n", "bad Content-Length"),
        (b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n", "bad Content-Length"),
        (b"Content-Length: 11\r\n\r\n", "over the limit of 10 bytes"),
        (b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "repeated header"),
        (b"X-Other: 1\r\n\r\n", "without a Content-Length"),
        (b"nonsense\r\n", "malformed header line"),
        (b"Content-Length: 2\r\n" * 40, "repeated header"),
        (b"".join(b"X-%d: 1\r\n" % i for i in range(40)), "more than 32 header lines"),
        (b"A" * (MAX_HEADER_LINE + 1), "longer than 8192 bytes"),
    ],
)
def test_a_bad_header_is_a_frame_error(data: bytes, says: str) -> None:
    out = FrameParser(max_body=10).feed(data)
    assert isinstance(out[-1], FrameError)
    assert says in str(out[-1])


def test_bodies_before_a_bad_header_are_still_delivered() -> None:
    out = FrameParser().feed(frame(b"{}") + b"Content-Length: x\r\n\r\n")
    assert out[0] == b"{}"
    assert isinstance(out[1], FrameError)


def test_a_long_line_is_refused_without_waiting_for_its_end() -> None:
    parser = FrameParser()
    assert parser.feed(b"A" * MAX_HEADER_LINE) == []
    assert isinstance(parser.feed(b"A")[-1], FrameError)


@pytest.mark.parametrize(
    ("body", "says"),
    [(b"\xff", "not valid UTF-8 (byte 0)"), (b"{", "not JSON"), (b"[" * 100_000, "too deep")],
)
def test_decode_body_says_why(body: bytes, says: str) -> None:
    with pytest.raises(BodyError, match=says.replace("(", r"\(").replace(")", r"\)")):
        decode_body(body)


def test_decode_body_reads_utf8_json() -> None:
    assert decode_body('{"é": [1]}'.encode()) == {"é": [1]}
