"""The service tests' model: the fake LLM on loopback, named by the environment the service
reads its provider from."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakellm import FakeLLM


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        yield server
