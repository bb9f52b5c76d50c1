"""Right after `initialize` the daemon loads what the first prompt needs, in the background."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.raw import Spawn, spawn

__all__ = ["spawn"]  # the fixture
pytestmark = pytest.mark.timeout(90)

# The native part of pydantic, which openai builds on: in the daemon's memory once the SDK is in.
SDK_LIBRARY = "pydantic_core"
ENV = {"HARNESS9_PROVIDER": "openai", "OPENAI_API_KEY": "sk-test-never-sent",
       "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "HARNESS9_LOG_LEVEL": "DEBUG"}


def _loaded(pid: int) -> bool:
    return SDK_LIBRARY in Path(f"/proc/{pid}/maps").read_text()


def test_the_providers_sdk_is_loaded_after_initialize_unless_turned_off(
    spawn: Spawn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS9_TEST_PRELOAD", "0")  # a daemon of its own, nothing preloaded
    warm = spawn({**ENV, "HARNESS9_WARM_UP": "1"})
    cold = spawn({**ENV, "HARNESS9_WARM_UP": "0"})
    for daemon in (warm, cold):
        daemon.send({"id": 1, "method": "initialize",
                     "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()}})
        daemon.until_id(1, timeout=30)
        assert not _loaded(daemon.proc.pid)  # initialize is answered without it
        daemon.send({"method": "initialized", "params": {}})
    deadline = time.monotonic() + 40
    while not _loaded(warm.proc.pid):
        assert time.monotonic() < deadline, warm.log()[-2000:]
        time.sleep(0.05)
    warm.wait_for_log("warmed up in")
    assert "provider SDK: openai, sandbox: " in warm.log()  # and the OS sandbox probed
    assert not _loaded(cold.proc.pid)
    for daemon in (warm, cold):
        daemon.close()
