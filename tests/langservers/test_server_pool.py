"""The daemon's language servers in process: started once per config and workspace, the
problems of the text synced last, a server that cannot start left alone, one that died
started again, every one stopped at the end."""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from harness9.langservers.language_config import LanguageServerConfig
from harness9.langservers.served_problems import ServedProblems
from harness9.langservers.server_pool import LanguageServers, Launch, WorkspaceServers
from harness9.process.sandbox import NO_CONFINEMENT
from harness9.workspace.port import DiskWorkspace
from tests.support.processes import alive

pytestmark = pytest.mark.timeout(30)

FAKE = (sys.executable, str(Path(__file__).parents[1] / "support" / "fake_langserver.py"))
LAUNCH = Launch(dict(os.environ), NO_CONFINEMENT)


@pytest_asyncio.fixture
async def pool() -> AsyncIterator[LanguageServers]:
    servers = LanguageServers()
    try:
        yield servers
    finally:
        await servers.shutdown()


def servers_of(pool: LanguageServers, root: Path, *configs: LanguageServerConfig
               ) -> WorkspaceServers:
    return WorkspaceServers(pool, configs, str(root), lambda: LAUNCH)


async def test_problems_are_those_of_the_text_synced_last(
    pool: LanguageServers, tmp_path: Path
) -> None:
    fake = LanguageServerConfig("fake", FAKE, ("python",))
    servers = servers_of(pool, tmp_path, fake)
    problems = ServedProblems(servers, DiskWorkspace(str(tmp_path)), wait=5)
    app = tmp_path / "app.py"
    app.write_text("value = 1\n")
    assert await problems.problems("app.py", settled=False, timeout=0) == []
    app.write_text("value = 1\nundefined_name\n")
    [found] = await problems.problems("app.py", settled=True, timeout=5) or []
    assert (found.line, found.column, found.source, found.code) == (2, 1, "fakels", "E1")
    assert problems.covers("b.py") and not problems.covers("b.txt")
    assert len(pool.running()) == 1  # one server for both asks
    [every] = await problems.problems(None, settled=False, timeout=0) or []
    assert every.path == "app.py"


async def test_a_server_that_cannot_start_is_tried_once(
    pool: LanguageServers, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    missing = LanguageServerConfig("missing", ("no-such-language-server",), ("python",))
    servers = servers_of(pool, tmp_path, missing)
    with caplog.at_level(logging.WARNING, "harness9.langservers"):
        assert await servers.for_file("a.py") == []
        assert await servers.for_file("a.py") == []
    [warning] = [r.getMessage() for r in caplog.records]
    assert "missing" in warning and "not on PATH" in warning
    problems = ServedProblems(servers, DiskWorkspace(str(tmp_path)), wait=1)
    (tmp_path / "a.py").write_text("x = 1\n")
    assert await problems.problems("a.py", settled=True, timeout=1) is None


async def test_a_server_that_died_is_started_again_and_all_stop_at_the_end(
    tmp_path: Path
) -> None:
    pool = LanguageServers()
    fake = LanguageServerConfig("fake", FAKE, ("python",))
    servers = servers_of(pool, tmp_path, fake)
    [first] = await servers.for_file("a.py")
    os.killpg(first.process.pid, signal.SIGKILL)
    await first.closed.wait()
    [second] = await servers.for_file("a.py")
    assert second is not first and not second.closed.is_set()
    await pool.shutdown()
    assert not alive(second.process.pid)
    assert pool.running() == []
