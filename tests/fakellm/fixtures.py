"""The `fake_llm` fixture: `from tests.fakellm.fixtures import fake_llm` in a conftest.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakellm.server import FakeLLM


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A started fake LLM server with an empty script, closed after the test."""
    with FakeLLM() as fake:
        yield fake
