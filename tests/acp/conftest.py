"""ACP end-to-end fixtures: `harness9 acp` subprocesses, with the shared fake LLM and workspace."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from tests.acp.agent import StartAgent, agent_factory
from tests.support.fixtures import fake_llm, workspace

__all__ = ["fake_llm", "workspace"]


@pytest_asyncio.fixture
async def start(tmp_path: Path) -> AsyncIterator[StartAgent]:
    """`await start(env=…)` starts `harness9 acp` (stderr in tmp_path); stopped after the test."""
    async with agent_factory(tmp_path) as factory:
        yield factory
