"""The garbage collector waits while a daemon starts, and resumes however warming up ends."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest

from harness9.service import warm_up

pytestmark = pytest.mark.timeout(20)


@pytest.fixture(autouse=True)
def collector_as_it_was() -> Iterator[None]:
    yield
    gc.unfreeze()
    gc.enable()


def test_warming_up_sets_the_loaded_apart_and_resumes_collecting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HARNESS9_WARM_UP", "0")  # off: it ends at once, and must still resume
    warm_up.hold_collection()
    assert not gc.isenabled()
    warm_up.warm_up(None)
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_collecting_resumes_when_warming_up_never_comes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warm_up, "HOLD_AT_MOST", 0.1)
    warm_up.hold_collection()
    assert not gc.isenabled()
    deadline = time.monotonic() + 5
    while not gc.isenabled():
        assert time.monotonic() < deadline
        time.sleep(0.02)
