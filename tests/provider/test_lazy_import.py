"""Importing the package, the factory or the daemon does not import an SDK."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]

PROBE = """
import importlib, sys
for name in ("harness9", "harness9.provider", "harness9.provider.factory",
             "harness9.provider.openai", "harness9.provider.anthropic",
             "harness9.provider.replay", "harness9.lsp.server", "harness9.cli"):
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
from harness9.provider.factory import ProviderSettings, create_provider
env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
       "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
create_provider(ProviderSettings(provider="openai", env=env))
create_provider(ProviderSettings(provider="anthropic", env=env))
print(sorted(m for m in ("openai", "anthropic", "httpx2", "pydantic") if m in sys.modules))
"""


@pytest.mark.timeout(30)
def test_no_sdk_imported_until_first_call() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, timeout=25, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stderr


FIRST_CALL = """
import asyncio, sys, time
from harness9.provider.factory import ProviderSettings, create_provider
from harness9.schema import Message
from tests.fakellm import FakeLLM, Reply

async def main() -> None:
    with FakeLLM() as fake:
        fake.script([Reply("ok")])
        provider = create_provider(ProviderSettings(provider=sys.argv[1], env=fake.env()))
        ticks = 0
        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.005)
                ticks += 1
        ticker = asyncio.create_task(tick())
        await asyncio.sleep(0)
        started = time.monotonic()
        message, _ = await provider.generate([Message.user("hi")], None)
        took = time.monotonic() - started
        ticker.cancel()
        assert message.content == "ok"
        print(ticks, round(took, 3), sys.argv[1] in sys.modules)

asyncio.run(main())
"""


@pytest.mark.timeout(60)
def test_first_call_imports_the_sdk_without_blocking_the_loop() -> None:
    # Both adapters load their SDK through the same `load_sdk`; one of them is enough here.
    out = subprocess.run([sys.executable, "-c", FIRST_CALL, "openai"], capture_output=True,
                         text=True, check=True, timeout=50, cwd=ROOT)
    ticks, took, imported = out.stdout.split()
    assert imported == "True"
    # The import takes hundreds of milliseconds; the loop kept ticking through most of it.
    assert int(ticks) >= 10, out.stdout
    assert float(took) > 0.1, out.stdout


DAEMON_START = """
import sys
import harness9.lsp.server
heavy = ("harness9.engine.agent_loop", "harness9.tools.bash", "harness9.tools.edit_file",
         "harness9.service.agent_service", "harness9.provider.factory")
print(sorted(m for m in heavy if m in sys.modules))
"""


@pytest.mark.timeout(30)
def test_the_daemon_starts_without_the_engine_and_the_tools() -> None:
    out = subprocess.run([sys.executable, "-c", DAEMON_START], capture_output=True, text=True,
                         check=True, timeout=25, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stderr


BULKY = """
import gc
THRESHOLDS = gc.get_threshold()
OBJECTS = [[index] for index in range(20000)]
"""


@pytest.mark.timeout(30)
async def test_an_sdk_imported_late_is_loaded_without_full_collections_and_set_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An SDK imported after warming up (another provider's, chosen later): a full collection
    # in the middle of its import, or over it afterwards, would walk all it made.
    from harness9.provider import _sdk

    (tmp_path / "bulky_sdk.py").write_text(BULKY)
    monkeypatch.syspath_prepend(tmp_path)
    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    try:
        module = await _sdk.load_sdk("bulky_sdk")
        assert module.THRESHOLDS[:2] == thresholds[:2] and module.THRESHOLDS[2] > 10**6
        assert gc.get_freeze_count() >= frozen + len(module.OBJECTS)
        assert gc.get_threshold() == thresholds
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        _sdk._loaded.pop("bulky_sdk", None)
        sys.modules.pop("bulky_sdk", None)
