"""An interactive session while it is busy: the run on screen, steers typed into it, and the
prompts queued behind it, until the session is idle again.

The daemon queues an `agent/run` sent while the session runs, and a steer that came too late
becomes the session's next prompt on its own, so several runs may be in the air: each run's
notifications are held until the one before it has finished on screen, and a run ends on screen
with its `run_finished` (a steer's run has no `agent/run` answer to wait for).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.text import Text

from harness9.client.daemon_session import CtrlC, finished_outcome, request_failure
from harness9.client.input_line import LineEditor, TerminalTyping, Typed, typed_line
from harness9.client.outcome import Outcome, View
from harness9.client.run_queue import QueuedPrompt, RunQueue
from harness9.client.views import ViewSlot, stdout_console
from harness9.visible_text import visible

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
        self.session_id = session_id
        self.editor = LineEditor()
        self.typing = TerminalTyping(self.editor, self.typed, self._refresh) if typing else None
        self.last: Outcome | None = None
        # The params of every prompt typed meanwhile (the session's, without one-run modes).
        self._base = {k: v for k, v in params.items() if k not in ("plan", "executePlan")}
        self._queue = RunQueue()
        self._current: str | None = None  # the run on screen
        self._view: View | None = None
        self._ended: dict[str, Any] | None = None  # its run_finished
        self._command: str | None = None  # the slash command the daemon ran as that run
        self._held: dict[str, list[dict[str, Any]]] = {}  # later runs' notifications, in order
        self._over: set[str] = set()  # runs shown or taken out of the queue
        self._prompts: dict[str, str] = {}  # run id → its prompt, for runs that came queued
        self._expected: deque[str] = deque()  # prompts sent to queue, not yet `queued`
        self._unsent: list[str] = []  # prompts typed before the session had an id
        self._steering: list[str] = []  # steers sent and not yet answered
        self._awaited: set[str] = set()  # runs of steers that came too late, not shown yet
        self._requests = 0
        self._first_request: int | None = None
        self._failures: list[Outcome] = []
        self._gone: Outcome | None = None
        self._notes: list[RenderableType] = []  # for the next view (none is open now)
        self._first_view = first_view  # already on screen (it showed the daemon starting)
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self, params: dict[str, Any]) -> Outcome | None:
        """Run `params`' prompt, then whatever was queued or steered meanwhile; the last outcome."""
        self._install()
        try:
            self._send(params)
            while (shown := await self._next()) is not None:
                if isinstance(shown, Outcome):
                    self._show_failure(shown)
                else:
                    await self._show(shown)
        finally:
            self._uninstall()
        return self.last

    # -- the runs, one after another ---------------------------------------------------------

    async def _next(self) -> str | Outcome | None:
        """The next run to show, a failure to report, or None once the session is idle."""
        while True:
            if self._gone is not None:
                gone, self._gone = self._gone, None
                self._abandon()
                return gone
            if self._held:
                return next(iter(self._held))
            if self._failures:
                return self._failures.pop(0)
            if not self._busy():
                return None
            await self._wait()

    def _busy(self) -> bool:
        awaited = self._awaited - self._over
        return bool(self._requests or self._queue or self._steering or self._unsent or awaited)

    async def _wait(self) -> None:
        self._changed.clear()
        await self._changed.wait()

    async def _show(self, run: str) -> None:
        """Show one run from its first notification to its `run_finished`."""
        self._current, self._ended, self.ctrl_c.count = run, None, 0
        self._command = None
        view, self._first_view = self._first_view or self.slot.open(), None
        self._view = view
        if not self._prompts.get(run) and self._over and self._expected:
            # A queued run whose `queued` never came (a daemon that only makes it wait):
            # runs start in the order they were sent.
            self._prompts[run] = self._expected.popleft()
        if self._prompts.get(run):
            view.show(Text.assemble(("» ", "bold"), visible(self._prompts[run], lines=True)))
        for note in self._notes:
            view.show(note)
        self._notes = []
        for params in self._held.pop(run):
            self._to_view(params)
        while self._ended is None and self._gone is None:
            await self._wait()
        if self._ended is not None:
            outcome = finished_outcome(self._ended, self._command)
        else:
            outcome, self._gone = self._gone or Outcome("error"), None
            self._abandon()
        self._current, self._view = None, None
        self._over.add(run)
        view.finished(outcome, [])
        self.last = outcome

    def _abandon(self) -> None:
        """The daemon is gone: nothing more will run or answer."""
        self._requests, self._queue, self._steering = 0, RunQueue(), []
        self._awaited, self._unsent, self._held = set(), [], {}

    def _show_failure(self, outcome: Outcome) -> None:
        view, self._first_view = self._first_view or self.slot.open(), None
        view.finished(outcome, [])
        self.last = outcome

    # -- notifications -----------------------------------------------------------------------

    def _progress(self, params: dict[str, Any]) -> None:
        """Route one notification: to the run on screen, or held for its run's turn."""
        kind, run = params.get("kind"), str(params.get("runId", ""))
        if isinstance(params.get("sessionId"), str):
            self._session_known(params["sessionId"])
        if kind == "queued":
            self._on_queued(run, params)
        elif kind == "dequeued":
            self._on_dequeued(run, params)
        if kind == "queued" or run in self._over:
            self._changed.set()
            return
        if run == self._current:
            self._to_view(params)
        else:
            self._held.setdefault(run, []).append(params)
        self._changed.set()

    def _to_view(self, params: dict[str, Any]) -> None:
        assert self._view is not None
        self._view.progress(params)
        if params.get("kind") == "run_finished":
            self._ended = params
        elif params.get("kind") == "command":
            self._command = str(params.get("name", ""))

    def _on_queued(self, run: str, params: dict[str, Any]) -> None:
        prompt = self._prompts.get(run)
        if prompt is None and self._expected and not self._steering:
            prompt = self._prompts[run] = self._expected.popleft()
        position = int(params.get("position", 0))
        self._queue.add(QueuedPrompt(str(params.get("queueId")), run, prompt, position))
        self._prompts.setdefault(run, prompt or "")
        if prompt is None:  # a steer that became a prompt, or a race: ask the daemon
            self._spawn(self._ask_queue())
        self._refresh()

    def _on_dequeued(self, run: str, params: dict[str, Any]) -> None:
        entry = self._queue.remove(str(params.get("queueId")))
        reason = str(params.get("reason", ""))
        if reason != "started":
            self._over.add(run)
            self._held.pop(run, None)
            prompt = (entry.prompt if entry else None) or self._prompts.get(run, "")
            self._note(Text(f"✗ {reason} from the queue: {visible(prompt)}", style="yellow"))
        self._refresh()

    def _session_known(self, session_id: str) -> None:
        self.session_id = session_id
        unsent, self._unsent = self._unsent, []
        for prompt in unsent:
            self._queue_prompt(prompt)

    # -- what the user types meanwhile -------------------------------------------------------

    @property
    def running(self) -> str | None:
        """The id of the run on screen while it runs."""
        return self._current if self._ended is None else None

    @property
    def queued(self) -> list[str]:
        """The prompts waiting in the daemon's queue, next to run first."""
        return [entry.prompt or "" for entry in self._queue.ordered()]

    def typed(self, typed: Typed) -> None:
        """A line the user handed over: Enter steers the run on screen; Tab (or Enter between
        runs) queues a prompt."""
        if typed.text == UNQUEUE:
            self._unqueue()
        elif typed.how == "steer" and self._current is not None and self._ended is None:
            self.steer(self._current, typed.text)
        else:
            self._queue_prompt(typed.text)
        self._refresh()

    def steer(self, run: str, text: str) -> None:
        """Send `text` to run `run` (`agent/steer`); the footer shows it until answered."""
        self._steering.append(text)
        self._spawn(self._steer_request(run, text))

    async def _steer_request(self, run: str, text: str) -> None:
        try:
            answer = await self.client.request("agent/steer", {"runId": run, "prompt": text})
            if isinstance(answer, dict) and answer.get("delivered") == "next":
                next_run = str(answer.get("runId"))
                self._prompts[next_run] = text
                self._awaited.add(next_run)
                self._queue.name(next_run, text)
                self._note(
                    Text("↪ the run ended before it could read that: it runs next", style="magenta")
                )
        except Exception as exc:  # any failure is shown, none ends the session
            self._note(Text(f"✗ not steered: {_message(exc)}", style="red"))
        finally:
            self._steering.remove(text)
            self._changed.set()
            self._refresh()

    def _queue_prompt(self, text: str) -> None:
        if self.session_id is None:  # the run has not said its session yet
            self._unsent.append(text)
            return
        self._expected.append(text)
        self._send({**self._base, "prompt": text, "sessionId": self.session_id})
        self._note(Text(f"⏵ queued: {visible(text)}", style="blue"))

    def _unqueue(self) -> None:
        entry = self._queue.newest()
        if entry is None or self.session_id is None:
            self._note(Text("nothing is queued", style="dim"))
            return
        params = {"sessionId": self.session_id, "queueId": entry.queue_id}
        self._spawn(self._quiet_request("agent/unqueue", params))

    # -- requests ----------------------------------------------------------------------------

    def _send(self, params: dict[str, Any]) -> None:
        """Send an `agent/run`; its runs show through their notifications."""
        self._requests += 1
        msg_id = self.client.new_id()
        if self._first_request is None:
            self._first_request = msg_id
        self._spawn(self._run_request(params, msg_id))

    async def _run_request(self, params: dict[str, Any], msg_id: int) -> None:
        from harness9.client.rpc import DaemonExited

        try:
            result = await self.client.request("agent/run", params, msg_id)
            if isinstance(result, dict) and isinstance(result.get("sessionId"), str):
                self.session_id = result["sessionId"]
        except DaemonExited as exc:
            self._gone = request_failure(exc, self.ctrl_c)
        except Exception as exc:  # a JSON-RPC error: shown, the session goes on
            data = getattr(exc, "data", None)
            data = data if isinstance(data, dict) else {}
            # No run of its own (refused, or `busy` where a daemon does not queue): no
            # run_finished will tell, so this does.
            if not data.get("runId") or data.get("kind") == "busy":
                self._failed(str(params.get("prompt", "")), request_failure(exc, self.ctrl_c))
        finally:
            self._requests -= 1
            if msg_id == self._first_request:
                self._first_request = None
            self._changed.set()

    def _failed(self, prompt: str, outcome: Outcome) -> None:
        """A prompt the daemon refused before it became a run."""
        if prompt in self._expected:
            self._expected.remove(prompt)
        if self._current is None:
            self._failures.append(outcome)
            return
        message = (outcome.error or {}).get("message", "refused")
        self._note(Text(f"✗ not queued: {visible(prompt)}: {message}", style="red"))

    async def _ask_queue(self) -> None:
        """Fill in the texts of queued prompts from `agent/queue`."""
        if self.session_id is None:
            return
        try:
            answer = await self.client.request("agent/queue", {"sessionId": self.session_id})
        except Exception:  # the list shows "…" for it; nothing else depends on it
            return
        listed = answer.get("queued") if isinstance(answer, dict) else None
        if isinstance(listed, list):
            self._queue.update(listed)
            for item in listed:
                if isinstance(item, dict) and item.get("runId"):
                    prompt = self._prompts[str(item["runId"])] = str(item.get("prompt", ""))
                    if prompt in self._expected:  # its `queued` came: no longer to match
                        self._expected.remove(prompt)
        self._refresh()

    async def _quiet_request(self, method: str, params: dict[str, Any]) -> None:
        try:
            await self.client.request(method, params)
        except Exception as exc:  # shown; the run goes on
            self._note(Text(f"✗ {method}: {_message(exc)}", style="red"))

    def _cancel(self) -> None:
        """Ctrl-C: cancel the run on screen (the queue goes on: the next prompt starts)."""
        if self._current is not None:
            self._spawn(self._quiet_request("agent/cancel", {"runId": self._current}))
        elif self._first_request is not None:
            self.client.cancel(self._first_request)
        elif self.session_id is not None:
            self._spawn(self._quiet_request("agent/cancel", {"sessionId": self.session_id}))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)  # held: the loop keeps only weak references to tasks
        task.add_done_callback(self._tasks.discard)

    # -- the screen --------------------------------------------------------------------------

    def _note(self, note: RenderableType) -> None:
        """A line for the transcript: above the run on screen, else above the next one."""
        if self._view is not None:
            self._view.show(note)
        else:
            self._notes.append(note)

    def _footer(self) -> list[RenderableType]:
        """Below the run: steers on their way, the queue, and the line being typed."""
        parts: list[RenderableType] = [
            Text(f"↪ steering: {visible(text)} (at the next step)", style="magenta")
            for text in self._steering
        ]
        parts.extend(self._queue.lines())
        if self.typing is not None:
            parts.extend(typed_line(self.editor.text))
        return parts

    def _refresh(self) -> None:
        refresh = getattr(self._view, "refresh", None)
        if callable(refresh):
            refresh()

    def _install(self) -> None:
        self.slot.router = self._progress
        self.slot.footer = self._footer
        self.ctrl_c.cancel = self._cancel
        if self.typing is not None:
            self.slot.pause_typing = self.typing.paused
            self.typing.start()

    def _uninstall(self) -> None:
        if self.typing is not None:
            self.typing.stop()
        self.slot.router = self.slot.footer = self.slot.pause_typing = None
        self.ctrl_c.cancel = None
        if self._notes:
            console = self.slot.console or stdout_console()
            for note in self._notes:
                console.print(note)
            self._notes = []


def _message(exc: Exception) -> str:
    return str(getattr(exc, "message", None) or exc)
