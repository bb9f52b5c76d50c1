"""The collector's full collections wait while a daemon starts, and resume however warming up
ends."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest

from harness9.service import warm_up

pytestmark = pytest.mark.timeout(20)


@pytest.fixture(autouse=True)
def collector_as_it_was() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_warming_up_sets_the_loaded_apart_and_resumes_collecting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HARNESS9_WARM_UP", "0")  # off: it ends at once, and must still resume
    before = gc.get_threshold()
    warm_up.hold_collection()
    assert gc.get_threshold()[:2] == before[:2] and gc.get_threshold()[2] > 10**6
    warm_up.warm_up(None)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() > 0


def test_collecting_resumes_when_warming_up_never_comes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warm_up, "HOLD_AT_MOST", 0.1)
    before = gc.get_threshold()
    warm_up.hold_collection()
    assert gc.get_threshold() != before
    deadline = time.monotonic() + 5
    while gc.get_threshold() != before:
        assert time.monotonic() < deadline
        time.sleep(0.02)
