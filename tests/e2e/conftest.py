"""End-to-end fixtures: daemons, with the shared fake LLM and workspace."""

from collections.abc import AsyncIterator

import pytest_asyncio

from tests.e2e.daemon import StartDaemon, daemon_factory
from tests.support.fixtures import fake_llm, workspace
from tests.support.sshd import ssh_host

__all__ = ["fake_llm", "ssh_host", "workspace"]


@pytest_asyncio.fixture
async def start() -> AsyncIterator[StartDaemon]:
    """`start(root, …)` starts a daemon (see `daemon_factory`); all are stopped after the test."""
    async with daemon_factory() as factory:
        yield factory
