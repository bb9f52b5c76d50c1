"""The stderr log's writer thread takes records a batch at a time, and loses none."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time

import pytest

from harness9.process import stdio_channel
from harness9.process.stdio_channel import LOG_BATCH_SECONDS

pytestmark = pytest.mark.timeout(20)


class _Kept(logging.Handler):
    """Keeps each message with the thread and time it was written at."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[tuple[str, str, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.written.append((record.getMessage(), threading.current_thread().name,
                             time.monotonic()))


def test_a_burst_of_records_is_written_as_one_batch_after_a_pause() -> None:
    kept = _Kept()
    logger = logging.getLogger("harness9.test.batches")
    logger.propagate = False
    logger.handlers[:] = [stdio_channel._queued(kept)]
    logger.setLevel(logging.INFO)
    try:
        started = time.monotonic()
        for i in range(100):
            logger.info("record %d of %s", i, "the burst")
        deadline = time.monotonic() + 5
        while len(kept.written) < 100 and time.monotonic() < deadline:
            time.sleep(0.01)
        messages = [message for message, _, _ in kept.written]
        assert messages == [f"record {i} of the burst" for i in range(100)]
        # One wake-up of the thread for them all: none written before the pause was over.
        assert min(at for _, _, at in kept.written) - started >= LOG_BATCH_SECONDS * 0.9
        assert {thread for _, thread, _ in kept.written} != {threading.current_thread().name}
        logger.info("the last one")
    finally:
        stdio_channel.write_queued_logs()  # what an exit does: the last record is written
        logger.handlers[:] = []
    assert kept.written[-1][0] == "the last one"


_BLOCK_LOG_CHILD = """
import logging, sys
from harness9.engine.events import TurnStarted
from harness9.engine.log import BlockLogger
from harness9.process import stdio_channel

class Kept(logging.Handler):
    def __init__(self):
        super().__init__()
        self.batches, self.records = [], []
    def emit(self, record):
        self.records.append(record.getMessage())
    def flush(self):
        if self.records:
            self.batches.append(self.records)
            self.records = []

stdio_channel.configure_logging("WARNING")
kept = Kept()
stdio_channel.add_block_log_handler(kept)
log = BlockLogger(logging.getLogger("harness9.engine"))
for turn in (1, 2, 3):
    log(TurnStarted(turn=turn, messages=2 * turn))
logging.getLogger("harness9.engine").warning("a warning")
stdio_channel.write_queued_logs()
print(len(kept.batches), [len(b) for b in kept.batches], file=sys.__stdout__)
"""


def test_a_block_log_handler_gets_the_blocks_by_batch_while_stderr_keeps_its_level() -> None:
    done = subprocess.run([sys.executable, "-c", _BLOCK_LOG_CHILD], capture_output=True,
                          text=True, timeout=15, check=True)
    assert done.stdout.split() == ["1", "[4]"]  # three turns and the warning, one batch
    assert "Turn 1" not in done.stderr and "a warning" in done.stderr


class _Writes:
    """A stream that keeps each write it is given."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_a_batch_of_records_reaches_stderr_in_one_write() -> None:
    stream = _Writes()
    handler = stdio_channel._Batched(stream)
    logger = logging.getLogger("harness9.test.one_write")
    logger.propagate = False
    logger.handlers[:] = [stdio_channel._queued(handler)]
    logger.setLevel(logging.INFO)
    try:
        for i in range(20):
            logger.info("line %d\nand its second line", i)
        deadline = time.monotonic() + 5
        while not stream.writes and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        stdio_channel.write_queued_logs()
        logger.handlers[:] = []
    assert len(stream.writes) == 1  # not one (or two) a record
    assert stream.writes[0] == "".join(f"line {i}\nand its second line\n" for i in range(20))
