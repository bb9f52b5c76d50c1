"""The daemon's language servers: one per configured server and workspace, started when a
run first needs it, kept for the daemon's life, stopped with it.

A server that cannot start (its program missing, or a failed handshake) is not tried again
for that workspace until the daemon restarts; one that died is started again when next
needed, up to `MAX_STARTS` times.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from harness9.langservers.language_config import LanguageServerConfig
from harness9.langservers.server_connection import ServerConnection
from harness9.langservers.server_process import spawn
from harness9.process.sandbox import Confinement

_log = logging.getLogger("harness9.langservers")
START_SECONDS = 30.0  # spawn and the handshake (a type checker may index the project first)
MAX_STARTS = 3

Key = tuple[LanguageServerConfig, str]


@dataclass(frozen=True, slots=True)
class Launch:
    """How the servers of a run's workspace start: their environment and confinement."""

    env: Mapping[str, str]
    confinement: Confinement


class LanguageServers:
    """Every server this daemon started, by config and workspace root."""

    def __init__(self) -> None:
        self._running: dict[Key, ServerConnection] = {}
        self._starting: dict[Key, asyncio.Task[ServerConnection]] = {}
        self._failed: dict[Key, str] = {}
        self._starts: Counter[Key] = Counter()
        self._changed: dict[str, set[str]] = {}  # root -> files changed since last caught up

    def running(self, root: str | None = None) -> list[ServerConnection]:
        """The servers running now (of workspace `root`, when given)."""
        return [s for (_, where), s in self._running.items()
                if not s.closed.is_set() and (root is None or where == root)]

    async def server(self, config: LanguageServerConfig, root: str,
                     launch: Callable[[], Launch]) -> ServerConnection | None:
        """The server of `config` for workspace `root`, started when it is not running; None
        when it cannot be (the reason is logged once). Cancelling the caller does not cancel a
        start others may wait for."""
        key = (config, root)
        found = self._running.get(key)
        if found is not None and not found.closed.is_set():
            return found
        if key in self._failed:
            return None
        task = self._starting.get(key)
        if task is None:
            if self._starts[key] >= MAX_STARTS:
                self._fail(key, f"it stopped {MAX_STARTS} times")
                return None
            self._starts[key] += 1
            task = asyncio.create_task(self._start(config, root, launch),
                                       name=f"start {config.name}")
            # Its failure is logged; nobody need be waiting for it when it comes.
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
            self._starting[key] = task
        try:
            return await asyncio.shield(task)
        except Exception:
            return None

    async def _start(self, config: LanguageServerConfig, root: str,
                     launch: Callable[[], Launch]) -> ServerConnection:
        key = (config, root)
        try:
            how = launch()
            process = await spawn(config.name, config.command, root, how.env, how.confinement)
        except Exception as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            self._fail(key, f"it could not be started: {why}")
            raise
        connection = ServerConnection(config, root, process)
        try:
            await connection.initialize(START_SECONDS)
        except BaseException as exc:
            await connection.stop()
            self._fail(key, f"its handshake failed: {exc}")
            raise
        finally:
            self._starting.pop(key, None)
        self._running[key] = connection
        _log.info("language server %s started for %s (pid %d)", config.name, root,
                  process.pid)
        return connection

    def changed(self, root: str, paths: Sequence[str]) -> None:
        """Note files of workspace `root` that changed (the servers catch up when next asked)."""
        self._changed.setdefault(root, set()).update(paths)

    def take_changed(self, root: str) -> set[str]:
        """The files of `root` noted as changed, forgotten from then on."""
        return self._changed.pop(root, set())

    def _fail(self, key: Key, why: str) -> None:
        self._starting.pop(key, None)
        if key not in self._failed:
            self._failed[key] = why
            _log.warning("language server %s (%s) for %s: %s", key[0].name,
                         " ".join(key[0].command), key[1], why)

    async def shutdown(self) -> None:
        """Stop every server (and every start under way)."""
        for task in self._starting.values():
            task.cancel()
        servers = list(self._running.values())
        self._running.clear()
        await asyncio.gather(*(s.stop() for s in servers), return_exceptions=True)


class WorkspaceServers:
    """The servers one run uses: the configured ones, for its workspace."""

    def __init__(self, pool: LanguageServers, configs: Sequence[LanguageServerConfig],
                 root: str, launch: Callable[[], Launch]) -> None:
        self.configs = tuple(configs)
        self.root = root
        self._pool = pool
        self._launch = launch

    def configs_for(self, path: str) -> list[LanguageServerConfig]:
        """The servers that check the file at workspace-relative `path`."""
        return [c for c in self.configs if c.serves(path)]

    async def for_file(self, path: str) -> list[ServerConnection]:
        """The servers of `path` that run (started now when they were not)."""
        return await self._started(self.configs_for(path))

    async def every(self) -> list[ServerConnection]:
        """Every configured server that runs (started now when it was not)."""
        return await self._started(self.configs)

    def mark_changed(self, paths: Sequence[str]) -> None:
        """Note files that changed besides those the servers are asked about: a command wrote
        them, or a rename will."""
        self._pool.changed(self.root, paths)

    def take_changed(self) -> set[str]:
        """The files noted as changed, forgotten from then on."""
        return self._pool.take_changed(self.root)

    def running(self) -> list[ServerConnection]:
        """The configured servers of this workspace that run now."""
        return [s for s in self._pool.running(self.root) if s.config in self.configs]

    async def _started(self, configs: Sequence[LanguageServerConfig]) -> list[ServerConnection]:
        found = await asyncio.gather(*(self._pool.server(c, self.root, self._launch)
                                       for c in configs))
        return [s for s in found if s is not None]
