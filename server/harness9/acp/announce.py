"""What follows the answer that opens a session (`session/new`, `load`, `resume`): the slash
commands it offers, then its config options again once the services have listed their models
(when the lists changed them); and, while warming up is on, its workspace's shadow repository
is opened, so the first prompt's run drafts its first checkpoint beside its first model call
instead of opening the repository first (a dozen git calls, done meanwhile by git processes
while this one is still loading the provider's SDK)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from acp import Client
from acp.schema import ConfigOptionUpdate

from harness9.acp.config_options import commands_update, options
from harness9.acp.quiet import Prompts
from harness9.acp.update_stream import UpdateStream
from harness9.service.agent_service import AgentService
from harness9.service.commands.catalog import available
from harness9.service.config.models import current_model
from harness9.service.config.settings import RunSettings
from harness9.service.sessions.session import Session
from harness9.service.warm_up import wanted


class Announcer:
    """Sends each opened session's announcement in a task of its own."""

    def __init__(self, client: Callable[[], Client], service: AgentService, prompts: Prompts,
                 settings: Callable[[], RunSettings]) -> None:
        self._client = client  # the connection, once there is one
        self._service = service
        self._prompts = prompts
        self._settings = settings
        self._tasks: set[asyncio.Task[None]] = set()
        self._opening: set[asyncio.Task[Any]] = set()  # shadow repositories being opened

    def announce(self, session: Session, root: str) -> None:
        """Start the announcement of `session`, opened on workspace `root`."""
        task = asyncio.ensure_future(self._announcement(session, root))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if wanted() and self._settings().checkpoints:
            opening = asyncio.ensure_future(self._service.checkpoints.prepare(root))
            self._opening.add(opening)
            opening.add_done_callback(self._opening.discard)

    async def settle(self) -> None:
        """Wait until the shadow repositories being opened are (git is not interrupted: a
        process cancelled while it starts can hang the event loop's shutdown)."""
        if self._opening:
            await asyncio.wait(list(self._opening))

    async def _announcement(self, session: Session, root: str) -> None:
        await asyncio.sleep(0.01)  # the session/new or session/load answer goes out first
        stream = UpdateStream(self._client(), session.id)
        stream.push(commands_update(await asyncio.to_thread(available, root)))
        await stream.drain()
        await self._prompts.quiet()  # the services' SDKs load after a prompt sent at once
        settings = self._settings()
        models = self._service.models
        before = models.known(settings)
        listing = await models.listing(settings)
        if [m.as_wire() for m in listing.models] != [m.as_wire() for m in before]:
            current = current_model(settings, session.model)
            stream.push(ConfigOptionUpdate(session_update="config_option_update",
                                           config_options=options(listing.models, current)))
            await stream.drain()
