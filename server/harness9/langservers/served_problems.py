"""The problems of the daemon's own language servers, as the tools' `ProblemSource`.

Asked for a file's problems, it syncs the file's text as the run's workspace reads it to each
server that checks the file (starting the server on first use) and waits for the problems of
that text: before an edit too, since a server that has just opened the file has not checked it
yet, and the problems it had before are what make the edit's problems new. Asked for the
workspace's, it gives every problem its running servers have published of its files.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from harness9.langservers.lsp_records import problem_of, workspace_path
from harness9.langservers.server_connection import ServerConnection
from harness9.langservers.server_pool import WorkspaceServers
from harness9.schema import Problem, ToolError
from harness9.workspace.port import Workspace
from harness9.workspace.safe_path import safe_path

_log = logging.getLogger("harness9.langservers")
MAX_PROBLEMS = 500  # of one answer (the model reads fewer)
OPEN_CHANGED_AT_MOST = 16  # changed files opened in the servers rather than announced


class ServedProblems:
    """A `ProblemSource` answered by the language servers the daemon runs."""

    origin = "harness9"

    def __init__(self, servers: WorkspaceServers, workspace: Workspace, wait: float) -> None:
        self._servers = servers
        self._workspace = workspace
        self._wait = wait  # the least time the servers get to check a file

    def covers(self, path: str) -> bool:
        """Whether a configured server checks the file."""
        return bool(self._servers.configs_for(path))

    async def problems(
        self, path: str | None, *, settled: bool, timeout: float
    ) -> list[Problem] | None:
        """The problems of the file's current text (None: no server reported them within the
        wait), or of every file the servers checked."""
        await catch_up(self._servers, self._workspace)
        if path is None:
            return self._published()
        servers = await self._servers.for_file(path)
        text = await sync_file(self._workspace, servers, path)
        if text is None:  # no server runs, or the file cannot be read
            return None
        uri = file_uri(self._servers.root, path)
        wait = max(timeout, self._wait)
        answers = await asyncio.gather(*(server.problems(uri, wait) for server in servers))
        found = [d for answer in answers if answer is not None for d in answer]
        if all(answer is None for answer in answers):
            return None
        shown = workspace_path(uri, self._servers.root) or path
        return [p for d in found[:MAX_PROBLEMS] if (p := problem_of(shown, d)) is not None]

    def _published(self) -> list[Problem]:
        found: list[Problem] = []
        for server in self._servers.running():
            for uri, published in sorted(server.published().items()):
                shown = workspace_path(uri, self._servers.root)
                if shown is None:
                    continue
                found += [p for d in published.diagnostics
                          if (p := problem_of(shown, d)) is not None]
        return found[:MAX_PROBLEMS]


def file_uri(root: str, path: str) -> str:
    """The URI of a workspace file; `ToolError` for a path outside the workspace."""
    return Path(safe_path(root, path)).as_uri()


async def sync_file(workspace: Workspace, servers: list[ServerConnection],
                    path: str) -> str | None:
    """Send the file's text as the workspace reads it to `servers` (opening it where it is not
    open); the text, or None when the file cannot be read."""
    if not servers:
        return None
    try:
        uri = file_uri(servers[0].root, path)
        found = await workspace.read_text(path)
    except (ToolError, OSError) as exc:
        _log.debug("language servers: %s not synced: %s", path, exc)
        return None
    if found is None:
        return None
    for server in servers:
        server.sync(uri, found.text, server.config.language_id(path))
    return found.text


async def catch_up(servers: WorkspaceServers, workspace: Workspace) -> None:
    """Bring the running servers up to date with the files noted as changed. A few (a rename's,
    an edit's) are sent as open files' texts: a server takes those in the order sent, while it
    may take a change on disk later than the next file's text (basedpyright then checked a
    renamed symbol's users against the old definition). More (a command's) are sent to the
    servers that have them open and announced as changed on disk to the others."""
    paths = servers.take_changed()
    running = servers.running()
    few = len(paths) <= OPEN_CHANGED_AT_MOST
    for path in sorted(paths):
        try:
            uri = file_uri(servers.root, path)
        except ToolError:
            continue
        serving = [s for s in running if s.config.serves(path)]
        await sync_file(workspace, [s for s in serving if few or s.is_open(uri)], path)
        for server in serving:
            if not server.is_open(uri):
                server.files_changed([uri])
