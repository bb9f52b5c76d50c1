"""The frame writer on a real pipe: it never blocks its caller, and loses nothing in order."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

import pytest

from harness9.lsp.frame_writer import FrameWriter

pytestmark = pytest.mark.timeout(20)


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_fd, write_fd = os.pipe()
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        with contextlib.suppress(OSError):
            os.close(fd)


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def test_writes_return_at_once_while_nobody_reads(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    writer = FrameWriter(write_fd, high_water=100_000)
    frames = [b"%06d" % i + b"x" * 994 for i in range(4000)]  # 4 MB, 60 times a pipe's buffer
    started = time.monotonic()
    for data in frames:
        writer.write(data)
    assert time.monotonic() - started < 2  # a blocking write would hang here for good
    assert writer.congested
    assert not writer.drain(0.2)

    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(read_all(read_fd)))
    reader.start()
    assert writer.drain(10)
    assert not writer.congested
    writer.close()
    reader.join(10)
    assert received == [b"".join(frames)]


def test_after_close_frames_are_dropped_and_stdout_ends(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    writer = FrameWriter(write_fd)
    writer.write(b"last")
    writer.close()
    writer.write(b"dropped")
    assert read_all(read_fd) == b"last"


def test_a_client_gone_is_reported_once_and_the_queue_let_go(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    lost = threading.Event()
    writer = FrameWriter(write_fd)
    writer.on_lost = lost.set
    os.close(read_fd)
    writer.write(b"x" * 1000)
    assert lost.wait(5)
    assert writer.drain(1)
    assert writer.pending_bytes == 0
    writer.write(b"more")
    assert writer.pending_bytes == 0


def test_on_a_pipe_a_frame_leaves_at_once_without_the_thread(pipe: tuple[int, int]) -> None:
    # Handing each frame to the thread cost a turn about a millisecond of its wake-ups.
    read_fd, write_fd = pipe
    writer = FrameWriter(write_fd)
    os.set_blocking(read_fd, False)
    for i in range(200):
        frame = b"frame %03d;" % i
        writer.write(frame)
        assert writer.pending_bytes == 0  # in the pipe already: nothing left for the thread
        assert os.read(read_fd, 100) == frame
    writer.close()
    assert writer.join(5)  # its descriptor closed before the fixture's number can be reused


def test_a_frame_the_pipe_takes_in_part_is_finished_in_order(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    writer = FrameWriter(write_fd)
    first, second = b"a" * 200_000, b"b" * 10  # the first is three times a pipe's buffer
    writer.write(first)
    writer.write(second)
    assert writer.pending_bytes > 0  # the rest of the first waits, and the second after it
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(read_all(read_fd)))
    reader.start()
    assert writer.drain(10)
    writer.close()
    assert writer.join(5)
    reader.join(10)
    assert received == [first + second]


def test_a_terminal_is_left_blocking_for_the_shell_that_shares_it() -> None:
    leader, follower = os.openpty()
    try:
        writer = FrameWriter(follower)
        writer.write(b"hello")
        assert writer.drain(5)
        assert os.get_blocking(follower)
        assert os.read(leader, 100) == b"hello"
        writer.close()
        assert writer.join(5)
    finally:
        os.close(leader)
