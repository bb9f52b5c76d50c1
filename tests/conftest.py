"""Suite-wide guards: no test may reach a real LLM service."""

from __future__ import annotations

import os

import pytest

# Any accidental request goes to a closed local port and fails at once, instead of reaching a real
# service with a developer's key. Tests that need a model point these at the loopback fake server.
_GUARD = {
    "OPENAI_API_KEY": None,
    "ANTHROPIC_API_KEY": None,
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    "HARNESS9_PROVIDER": None,
    "HARNESS9_MODEL": None,
}


def _apply_guard() -> None:
    for name, value in _GUARD.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


_apply_guard()


@pytest.fixture(autouse=True)
def _no_real_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Re-apply the guard for every test, so one test's environment never leaks into the next."""
    for name, value in _GUARD.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
