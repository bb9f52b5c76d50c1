"""ACP end-to-end fixtures: the loopback fake LLM, `harness9 acp` subprocesses, a workspace."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.acp.agent import StartAgent, agent_factory
from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm"]


@pytest_asyncio.fixture
async def start(tmp_path: Path) -> AsyncIterator[StartAgent]:
    """`await start(env=…)` starts `harness9 acp` (stderr in tmp_path); stopped after the test."""
    async with agent_factory(tmp_path) as factory:
        yield factory


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace folder holding `a.txt` ("alpha")."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    return root
