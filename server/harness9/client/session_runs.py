"""What the terminal client knows of a busy interactive session: the run on screen, the later
runs' notifications held for their turn, the queued prompts, and the requests in the air.

Draw-free: no terminal, no rich, no asyncio. `Conversation` feeds it the daemon's notifications
and the answers to its requests; what the user should be told comes back as `Note`s, which the
conversation's screen draws.

The daemon queues an `agent/run` sent while the session runs, and a steer that came too late
becomes the session's next prompt on its own, so several runs may be in the air: each run's
notifications are held until the one before it has finished on screen, and a run ends on screen
with its `run_finished` (a steer's run has no `agent/run` answer to wait for).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from harness9.client.daemon_session import finished_outcome
from harness9.client.outcome import Outcome
from harness9.client.run_queue import QueuedPrompt, RunQueue

Progress = dict[str, Any]  # an `agent/progress` notification's params


@dataclass(frozen=True, slots=True)
class Note:
    """A line for the transcript about the session itself (not a run's work)."""

    # queued | dequeued | nothing_queued | not_queued | steer_late | not_steered | failed
    what: str
    text: str = ""  # the prompt (or the method) it is about
    detail: str = ""  # why: the reason or the error's message


@dataclass(slots=True)
class Routed:
    """What to do with one notification."""

    to_view: bool = False  # it belongs to the run on screen: show it
    queue_changed: bool = False  # the queue the footer lists changed
    ask_queue: bool = False  # a queued prompt's text is not known: ask `agent/queue`
    notes: list[Note] = field(default_factory=list)


@dataclass(slots=True)
class InFlight:
    """The requests sent and not answered yet."""

    runs: int = 0  # `agent/run` requests
    first: int | None = None  # the first one's id while it is unanswered (Ctrl-C cancels it)
    steers: list[str] = field(default_factory=list)  # steers sent (the footer shows them)

    def run_sent(self, msg_id: int) -> None:
        """An `agent/run` went out."""
        self.runs += 1
        if self.first is None:
            self.first = msg_id

    def run_over(self, msg_id: int) -> None:
        """An `agent/run` was answered (or failed)."""
        self.runs -= 1
        if msg_id == self.first:
            self.first = None


class SessionRuns:
    """The session's runs, shown one after another while it is busy."""

    def __init__(self, session_id: str | None) -> None:
        self.session_id = session_id
        self.queue = RunQueue()
        self.in_flight = InFlight()
        self.current: str | None = None  # the run on screen
        self.ended: Progress | None = None  # its run_finished
        self.command: str | None = None  # the slash command the daemon ran as that run
        self.held: dict[str, list[Progress]] = {}  # later runs' notifications, in order
        self.over: set[str] = set()  # runs shown or taken out of the queue
        self.prompts: dict[str, str] = {}  # run id → its prompt, for runs that came queued
        self.expected: deque[str] = deque()  # prompts sent to queue, not yet `queued`
        self.unsent: list[str] = []  # prompts typed before the session had an id
        self.awaited: set[str] = set()  # runs of steers that came too late, not shown yet
        self.failures: list[Outcome] = []  # prompts refused while no run was on screen
        self.gone: Outcome | None = None  # the daemon is gone: how that ends the session

    @property
    def running(self) -> str | None:
        """The id of the run on screen while it runs."""
        return self.current if self.ended is None else None

    @property
    def queued(self) -> list[str]:
        """The prompts waiting in the daemon's queue, next to run first."""
        return [entry.prompt or "" for entry in self.queue.ordered()]

    # -- the runs, one after another ---------------------------------------------------------

    def busy(self) -> bool:
        """Whether more may come: requests unanswered, prompts queued or unsent, steers' runs."""
        awaited = self.awaited - self.over
        flying = self.in_flight.runs or self.in_flight.steers
        return bool(flying or self.queue or self.unsent or awaited)

    def pick(self) -> str | Outcome | None:
        """The next run to show, or a failure to report; None when there is none yet."""
        if self.gone is not None:
            gone, self.gone = self.gone, None
            self.abandon()
            return gone
        if self.held:
            return next(iter(self.held))
        if self.failures:
            return self.failures.pop(0)
        return None

    def begin(self, run: str) -> tuple[str, list[Progress]]:
        """Run `run` goes on screen: its prompt (empty when the user typed none for it), and
        its notifications so far."""
        self.current, self.ended, self.command = run, None, None
        if not self.prompts.get(run) and self.over and self.expected:
            # A queued run whose `queued` never came (a daemon that only makes it wait):
            # runs start in the order they were sent.
            self.prompts[run] = self.expected.popleft()
        held = self.held.pop(run)
        for params in held:
            self._record(params)
        return self.prompts.get(run) or "", held

    def showing(self) -> bool:
        """The run on screen has not finished, and the daemon is still there."""
        return self.ended is None and self.gone is None

    def end_shown(self, run: str) -> Outcome:
        """The run on screen is over: how it ended."""
        if self.ended is not None:
            outcome = finished_outcome(self.ended, self.command)
        else:
            outcome, self.gone = self.gone or Outcome("error"), None
            self.abandon()
        self.current = None
        self.over.add(run)
        return outcome

    def abandon(self) -> None:
        """The daemon is gone: nothing more will run or answer."""
        self.in_flight.runs, self.queue, self.in_flight.steers = 0, RunQueue(), []
        self.awaited, self.unsent, self.held = set(), [], {}

    # -- notifications -----------------------------------------------------------------------

    def session_known(self, session_id: str) -> list[str]:
        """A notification named the session: the prompts typed before, to send now."""
        self.session_id = session_id
        unsent, self.unsent = self.unsent, []
        return unsent

    def route(self, params: Progress) -> Routed:
        """Where one notification goes: to the run on screen, or held for its run's turn."""
        kind, run = params.get("kind"), str(params.get("runId", ""))
        routed = Routed(queue_changed=kind in ("queued", "dequeued"))
        if kind == "queued":
            routed.ask_queue = self._queued(run, params)
        elif kind == "dequeued":
            routed.notes.extend(self._dequeued(run, params))
        if kind == "queued" or run in self.over:
            return routed
        if run == self.current:
            self._record(params)
            routed.to_view = True
        else:
            self.held.setdefault(run, []).append(params)
        return routed

    def _record(self, params: Progress) -> None:
        if params.get("kind") == "run_finished":
            self.ended = params
        elif params.get("kind") == "command":
            self.command = str(params.get("name", ""))

    def _queued(self, run: str, params: Progress) -> bool:
        """A prompt waits in the queue; True when its text is to be asked for (a steer that
        became a prompt, or a race)."""
        prompt = self.prompts.get(run)
        if prompt is None and self.expected and not self.in_flight.steers:
            prompt = self.prompts[run] = self.expected.popleft()
        position = int(params.get("position", 0))
        self.queue.add(QueuedPrompt(str(params.get("queueId")), run, prompt, position))
        self.prompts.setdefault(run, prompt or "")
        return prompt is None

    def _dequeued(self, run: str, params: Progress) -> list[Note]:
        entry = self.queue.remove(str(params.get("queueId")))
        reason = str(params.get("reason", ""))
        if reason == "started":
            return []
        self.over.add(run)
        self.held.pop(run, None)
        prompt = (entry.prompt if entry else None) or self.prompts.get(run, "")
        return [Note("dequeued", prompt, reason)]

    # -- what the user does, and the daemon's answers ----------------------------------------

    def prompt_typed(self, text: str) -> bool:
        """A prompt to queue: True to send it now, False when it waits for the session's id."""
        if self.session_id is None:  # the run has not said its session yet
            self.unsent.append(text)
            return False
        self.expected.append(text)
        return True

    def unqueue_params(self) -> dict[str, Any] | None:
        """`agent/unqueue`'s params for the newest queued prompt; None when nothing is."""
        entry = self.queue.newest()
        if entry is None or self.session_id is None:
            return None
        return {"sessionId": self.session_id, "queueId": entry.queue_id}

    def steer_late(self, run: str, text: str) -> Note:
        """A steer came after its run had read its last message: it becomes run `run`."""
        self.prompts[run] = text
        self.awaited.add(run)
        self.queue.name(run, text)
        return Note("steer_late", text)

    def refused(self, prompt: str, outcome: Outcome) -> Note | None:
        """The daemon refused a prompt before it became a run: a note while a run is on
        screen, else a failure to report on its own."""
        if prompt in self.expected:
            self.expected.remove(prompt)
        if self.current is None:
            self.failures.append(outcome)
            return None
        message = (outcome.error or {}).get("message", "refused")
        return Note("not_queued", prompt, str(message))

    def queue_listed(self, listed: list[Any]) -> None:
        """`agent/queue`'s list: the queued prompts' texts and positions."""
        self.queue.update(listed)
        for item in listed:
            if isinstance(item, dict) and item.get("runId"):
                prompt = self.prompts[str(item["runId"])] = str(item.get("prompt", ""))
                if prompt in self.expected:  # its `queued` came: no longer to match
                    self.expected.remove(prompt)
