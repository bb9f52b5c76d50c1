"""The daemon's own language servers for the runs whose client lends none of its editor's
(a stock LSP client, ACP, the terminal): the configured servers (`languageServers`, else the
well-known ones on PATH), started inside the sandbox's read-only view of the workspace with the
environment commands get, and plugged into the run as its problem source and language queries.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from harness9.langservers.language_config import LanguageServerConfig
from harness9.langservers.well_known import default_servers
from harness9.process.sandbox import Mechanism, availability, confine
from harness9.service.run_request import RunRequest, RunWiring
from harness9.service.runs.run_tools import tool_environment

if TYPE_CHECKING:
    from harness9.langservers.server_pool import LanguageServers, Launch
    from harness9.tools.registry import Middleware
    from harness9.workspace.port import Workspace


@dataclass(frozen=True, slots=True)
class OwnWiring:
    """What the own servers add to a run: where its problems and language queries come
    from (the front-end's when it has them), and the step that keeps the servers in step."""

    wiring: RunWiring
    steps: tuple[Middleware, ...] = ()


class OwnServers:
    """The daemon's language servers, started when a run first needs them."""

    def __init__(self) -> None:
        self._pool: LanguageServers | None = None

    def wire(self, request: RunRequest, wiring: RunWiring, files: Workspace) -> OwnWiring:
        """`wiring` with the own servers in place of what the front-end does not give; `files`
        is the workspace the run's tools read."""
        configs = request.settings.language_servers
        if configs is None:
            configs = default_servers()
        if not configs or (wiring.problems is not None and wiring.language is not None):
            return OwnWiring(wiring)
        from harness9.langservers.served_language import ServedLanguage
        from harness9.langservers.served_problems import ServedProblems
        from harness9.langservers.server_pool import LanguageServers, WorkspaceServers
        from harness9.langservers.sync_step import ServersInStep

        if self._pool is None:
            self._pool = LanguageServers()
        servers = WorkspaceServers(self._pool, configs, request.root,
                                   lambda: _launch(request, configs))
        wait = request.settings.diagnostics_wait_ms / 1000
        problems = wiring.problems or ServedProblems(servers, files, wait)
        language = wiring.language or ServedLanguage(servers, files)
        return OwnWiring(replace(wiring, problems=problems, language=language),
                         (ServersInStep(servers, files),))

    async def shutdown(self) -> None:
        """Stop every server."""
        if self._pool is not None:
            await self._pool.shutdown()


def _launch(request: RunRequest, configs: Sequence[LanguageServerConfig]) -> Launch:
    """How a server of the run's workspace starts: the sandbox's read-only view without the
    network (the servers' installations readable), the environment commands get, caches in
    the sandbox's temporary folder."""
    settings = request.settings
    policy = replace(settings.tool_sandbox().read_only(), network=False)
    env = tool_environment(settings).apply(os.environ)
    installed = sorted({folder for config in configs
                        if (folder := installation(config.command[0], env)) is not None})
    confinement = confine(policy, request.root, availability(), installed=installed)
    if confinement.mechanism is not Mechanism.NONE and confinement.env:
        # A server's caches (a type checker's, `go build`'s) cannot go to the read-only home.
        env["XDG_CACHE_HOME"] = os.path.join(confinement.env["TMPDIR"], ".cache")
    from harness9.langservers.server_pool import Launch

    return Launch(env, confinement)


def installation(program: str, env: dict[str, str]) -> str | None:
    """The folder a server's program is installed in (a virtual environment's, for a program
    in its `bin`), as a real path; None when it is not found."""
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    if found is None:
        return None
    folder = os.path.dirname(os.path.realpath(found))
    return os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder
