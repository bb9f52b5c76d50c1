"""Importing the package, the factory or the daemon does not import an SDK."""

from __future__ import annotations

import subprocess
import sys

import pytest

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
                         check=True, timeout=25)
    assert out.stdout.strip() == "[]", out.stderr
