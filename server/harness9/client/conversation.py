"""An interactive session while it is busy: the run on screen, steers typed into it, and the
prompts queued behind it, until the session is idle again.

What the session's runs are and which one is on screen is kept in `session_runs` (draw-free);
the notes and the footer around the runs are drawn by `conversation_screen`; this module sends
the requests and shows each run in its view, one after another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from harness9.client.conversation_screen import ConversationScreen
from harness9.client.daemon_session import CtrlC, request_failure
from harness9.client.input_line import LineEditor, TerminalTyping, Typed
from harness9.client.outcome import Outcome, View
from harness9.client.session_runs import Note, SessionRuns
from harness9.client.views import ViewSlot

if TYPE_CHECKING:
    from harness9.client.rpc import DaemonClient

UNQUEUE = "/unqueue"  # typed while a run streams: take the newest queued prompt back


class Conversation:
    """Shows the session's runs one after another while it is busy."""

    def __init__(
        self,
        client: DaemonClient,
        slot: ViewSlot,
        ctrl_c: CtrlC,
        params: dict[str, Any],
        session_id: str | None,
        *,
        typing: bool = False,
        first_view: View | None = None,
    ) -> None:
        self.client, self.slot, self.ctrl_c = client, slot, ctrl_c
        self.editor = LineEditor()
        self.runs = SessionRuns(session_id)
        self.screen = ConversationScreen(slot, self.runs, self.editor, first_view)
        if typing:
            self.screen.typing = TerminalTyping(self.editor, self.typed, self.screen.refresh)
        self.last: Outcome | None = None
        # The params of every prompt typed meanwhile (the session's, without one-run modes).
        self._base = {k: v for k, v in params.items() if k not in ("plan", "executePlan")}
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def session_id(self) -> str | None:
        """The session, once known."""
        return self.runs.session_id

    @property
    def running(self) -> str | None:
        """The id of the run on screen while it runs."""
        return self.runs.running

    @property
    def queued(self) -> list[str]:
        """The prompts waiting in the daemon's queue, next to run first."""
        return self.runs.queued

    async def run(self, params: dict[str, Any]) -> Outcome | None:
        """Run `params`' prompt, then whatever was queued or steered meanwhile; the last outcome."""
        self.screen.install(self._progress)
        self.ctrl_c.cancel = self._cancel
        try:
            self._send(params)
            while (shown := await self._next()) is not None:
                if isinstance(shown, Outcome):  # refused with no run on screen, or the daemon gone
                    self.screen.open().finished(shown, [])
                    self.last = shown
                else:
                    await self._show(shown)
        finally:
            self.screen.uninstall()
            self.ctrl_c.cancel = None
        return self.last

    # -- the runs, one after another ---------------------------------------------------------

    async def _next(self) -> str | Outcome | None:
        """The next run to show, a failure to report, or None once the session is idle."""
        while (shown := self.runs.pick()) is None and self.runs.busy():
            await self._wait()
        return shown

    async def _wait(self) -> None:
        self._changed.clear()
        await self._changed.wait()

    async def _show(self, run: str) -> None:
        """Show one run from its first notification to its `run_finished`."""
        self.ctrl_c.count = 0
        prompt, held = self.runs.begin(run)
        view = self.screen.begin(prompt)
        for params in held:
            view.progress(params)
        while self.runs.showing():
            await self._wait()
        outcome = self.runs.end_shown(run)
        self.screen.view = None
        view.finished(outcome, [])
        self.last = outcome

    def _progress(self, params: dict[str, Any]) -> None:
        """Route one notification: to the run on screen, or held for its run's turn."""
        if isinstance(params.get("sessionId"), str):
            for prompt in self.runs.session_known(params["sessionId"]):
                self._queue_prompt(prompt)
        routed = self.runs.route(params)
        for note in routed.notes:
            self.screen.note(note)
        if routed.ask_queue:
            self._spawn(self._ask_queue())
        if routed.queue_changed:
            self.screen.refresh()
        if routed.to_view and self.screen.view is not None:
            self.screen.view.progress(params)
        self._changed.set()

    # -- what the user types meanwhile -------------------------------------------------------

    def typed(self, typed: Typed) -> None:
        """A line the user handed over: Enter steers the run on screen; Tab (or Enter between
        runs) queues a prompt."""
        if typed.text == UNQUEUE:
            self._unqueue()
        elif typed.how == "steer" and self.runs.running is not None:
            self.steer(self.runs.running, typed.text)
        else:
            self._queue_prompt(typed.text)
        self.screen.refresh()

    def steer(self, run: str, text: str) -> None:
        """Send `text` to run `run` (`agent/steer`); the footer shows it until answered."""
        self.runs.in_flight.steers.append(text)
        self._spawn(self._steer_request(run, text))

    async def _steer_request(self, run: str, text: str) -> None:
        try:
            answer = await self.client.request("agent/steer", {"runId": run, "prompt": text})
            if isinstance(answer, dict) and answer.get("delivered") == "next":
                self.screen.note(self.runs.steer_late(str(answer.get("runId")), text))
        except Exception as exc:  # any failure is shown, none ends the session
            self.screen.note(Note("not_steered", detail=_message(exc)))
        finally:
            self.runs.in_flight.steers.remove(text)
            self._changed.set()
            self.screen.refresh()

    def _queue_prompt(self, text: str) -> None:
        if self.runs.prompt_typed(text):
            self._send({**self._base, "prompt": text, "sessionId": self.runs.session_id})
            self.screen.note(Note("queued", text))

    def _unqueue(self) -> None:
        params = self.runs.unqueue_params()
        if params is None:
            self.screen.note(Note("nothing_queued"))
        else:
            self._spawn(self._quiet_request("agent/unqueue", params))

    # -- requests ----------------------------------------------------------------------------

    def _send(self, params: dict[str, Any]) -> None:
        """Send an `agent/run`; its runs show through their notifications."""
        msg_id = self.client.new_id()
        self.runs.in_flight.run_sent(msg_id)
        self._spawn(self._run_request(params, msg_id))

    async def _run_request(self, params: dict[str, Any], msg_id: int) -> None:
        from harness9.client.rpc import DaemonExited

        try:
            result = await self.client.request("agent/run", params, msg_id)
            if isinstance(result, dict) and isinstance(result.get("sessionId"), str):
                self.runs.session_id = result["sessionId"]
        except DaemonExited as exc:
            self.runs.gone = request_failure(exc, self.ctrl_c)
        except Exception as exc:  # a JSON-RPC error: shown, the session goes on
            data = getattr(exc, "data", None)
            data = data if isinstance(data, dict) else {}
            # No run of its own (refused, or `busy` where a daemon does not queue): no
            # run_finished will tell, so this does.
            if not data.get("runId") or data.get("kind") == "busy":
                prompt = str(params.get("prompt", ""))
                note = self.runs.refused(prompt, request_failure(exc, self.ctrl_c))
                if note is not None:
                    self.screen.note(note)
        finally:
            self.runs.in_flight.run_over(msg_id)
            self._changed.set()

    async def _ask_queue(self) -> None:
        """Fill in the texts of queued prompts from `agent/queue`."""
        if self.runs.session_id is None:
            return
        try:
            answer = await self.client.request("agent/queue", {"sessionId": self.runs.session_id})
        except Exception:  # the list shows "…" for it; nothing else depends on it
            return
        listed = answer.get("queued") if isinstance(answer, dict) else None
        if isinstance(listed, list):
            self.runs.queue_listed(listed)
        self.screen.refresh()

    async def _quiet_request(self, method: str, params: dict[str, Any]) -> None:
        try:
            await self.client.request(method, params)
        except Exception as exc:  # shown; the run goes on
            self.screen.note(Note("failed", method, _message(exc)))

    def _cancel(self) -> None:
        """Ctrl-C: cancel the run on screen (the queue goes on: the next prompt starts)."""
        if self.runs.current is not None:
            self._spawn(self._quiet_request("agent/cancel", {"runId": self.runs.current}))
        elif self.runs.in_flight.first is not None:
            self.client.cancel(self.runs.in_flight.first)
        elif self.runs.session_id is not None:
            self._spawn(self._quiet_request("agent/cancel", {"sessionId": self.runs.session_id}))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)  # held: the loop keeps only weak references to tasks
        task.add_done_callback(self._tasks.discard)


def _message(exc: Exception) -> str:
    return str(getattr(exc, "message", None) or exc)
