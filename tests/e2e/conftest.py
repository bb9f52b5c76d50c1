"""End-to-end fixtures: the loopback fake LLM, daemons, a workspace."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.e2e.daemon import StartDaemon, daemon_factory
from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm"]


@pytest_asyncio.fixture
async def start() -> AsyncIterator[StartDaemon]:
    """`start(root, …)` starts a daemon (see `daemon_factory`); all are stopped after the test."""
    async with daemon_factory() as factory:
        yield factory


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace folder holding `a.txt` ("alpha")."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    return root
