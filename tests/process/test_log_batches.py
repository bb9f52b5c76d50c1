"""The stderr log's writer thread takes records a batch at a time, and loses none."""

from __future__ import annotations

import logging
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
