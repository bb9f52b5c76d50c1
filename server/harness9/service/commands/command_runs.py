"""Runs of slash commands: the built-in ones that act without the model, and the prompts the
others (custom commands, `/init`, `/plan`) become.

A command that acts without the model is a run of its own, with ids and events like any other
(`run_started`, `command`, its answer as text, `run_finished` with no turns), so every front
end shows it without knowing commands.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from harness9.engine.agent_loop import RunResult
from harness9.engine.events import CommandRan, EventBus, RunFinished, RunStarted, TextDelta
from harness9.schema import Plan, PlanStatus, Usage
from harness9.service.commands.catalog import BUILTIN_NAMES, Command, Invocation, available, expand
from harness9.service.commands.command_text import help_text, models_text, plan_text
from harness9.service.config.model_choice import ModelChoice
from harness9.service.config.models import ModelDirectory, current_model
from harness9.service.config.settings import PROVIDERS, REASONING_EFFORTS
from harness9.service.run_request import RunContext, RunIds, RunOutcome, RunRequest, Wire
from harness9.service.runs.checkpoint_desk import CheckpointDesk
from harness9.service.runs.run_end import Finish, ended
from harness9.service.runs.session_desk import SessionDesk
from harness9.service.sessions.session import Session, new_id
from harness9.tools.approvals.policy import MODES

SHORT_ID = 12  # characters of a checkpoint id shown: enough to name it
INIT_PROMPT = (
    "Write an AGENTS.md at the root of this project for coding agents that will work on it. "
    "Look around first (the layout, the build and test commands, the conventions the code "
    "follows), then write a short file: what the project is, how to build, test and lint it, "
    "where things are, and the rules a change must keep. If an AGENTS.md exists, improve it "
    "rather than starting over."
)


@dataclass(frozen=True, slots=True)
class CommandDesks:
    """What the built-in commands act on: the service's sessions, checkpoints and models."""

    sessions: SessionDesk
    checkpoints: CheckpointDesk
    models: ModelDirectory


@dataclass(slots=True)
class CommandAnswer:
    """What a built-in command did: its text, its status, the session the client continues
    in, and fields the run's answer adds."""

    text: str
    status: str = "completed"
    session: Session | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def model_request(request: RunRequest, called: Invocation) -> RunRequest | None:
    """The model run a command becomes (a custom command, `/init`, `/plan` with a prompt), or
    None for a command that acts without the model (or is unknown)."""
    if called.name == "init":
        return replace(request, prompt=_joined(INIT_PROMPT, called.arguments))
    if called.name == "plan" and called.arguments:
        return replace(request, prompt=called.arguments, plan=True)
    if called.name in BUILTIN_NAMES:
        return None
    command = _custom(request.root, called.name)
    if command is None:
        return None
    request = replace(request, prompt=expand(command, called.arguments))
    if command.model is None:
        return request
    settings = replace(request.settings, model=command.model)
    return replace(request, settings=settings, own_model=True)


async def run_command(
    desks: CommandDesks, request: RunRequest, called: Invocation, wire: Wire
) -> RunOutcome:
    """Run a command that acts without the model, as a run of its own."""
    session = _session_of(desks, request, called)
    ids = RunIds(new_id("r"), session.id)
    finish = Finish()
    bus = EventBus(finish)
    try:
        wiring = await wire(RunContext(ids, lambda _call_id: 0))
        for subscriber in wiring.subscribers:
            bus.subscribe(subscriber)
        _started(bus, request, session)
        bus.emit(CommandRan(called.name, called.arguments))
        answer = await _ACTIONS.get(called.name, _unknown)(desks, request, session, called)
        bus.emit(TextDelta(0, answer.text))
        bus.emit(RunFinished(answer.status, 0, 0, Usage(), len(session.history), answer.text))
    except BaseException as exc:
        raise ended(exc, ids, bus, finish, request.root) from None
    if answer.session is not None:
        ids = RunIds(ids.run_id, answer.session.id)
    result = RunResult(answer.status, answer.text, 0, 0, Usage())
    return RunOutcome(ids, result, command=called.name, extra=answer.extra)


def _session_of(desks: CommandDesks, request: RunRequest, called: Invocation) -> Session:
    """The session the command's run belongs to: a new one for `/clear` (see
    `SessionDesk.cleared`), else the request's (a new one when it names none)."""
    if called.name == "clear":
        return desks.sessions.cleared(request.root, request.session_id)
    if request.session_id is None:
        return desks.sessions.create(request.root)
    return desks.sessions.known(request.session_id)


def _started(bus: EventBus, request: RunRequest, session: Session) -> None:
    settings = request.settings
    model = current_model(settings, session.model)
    bus.emit(RunStarted(
        workspace_root=request.root,
        provider=model.provider if model is not None else "",
        model=model.model if model is not None else "",
        max_turns=settings.max_turns,
        tool_timeout_ms=settings.tool_timeout_ms,
        thinking=settings.thinking,
        stream=settings.stream,
        reasoning_effort=model.reasoning_effort if model is not None else None,
    ))


def _custom(root: str, name: str) -> Command | None:
    return next((c for c in available(root) if c.name == name and c.body is not None), None)


def _joined(prompt: str, extra: str) -> str:
    return f"{prompt}\n\n{extra}" if extra else prompt


Action = Callable[[CommandDesks, RunRequest, Session, Invocation], Awaitable[CommandAnswer]]


async def _help(
    desks: CommandDesks, request: RunRequest, session: Session, called: Invocation
) -> CommandAnswer:
    return CommandAnswer(help_text(available(request.root), request.commands))


async def _unknown(
    desks: CommandDesks, request: RunRequest, session: Session, called: Invocation
) -> CommandAnswer:
    return CommandAnswer(f"Unknown command /{called.name}. /help lists the commands; start the "
                         "prompt with a space to send it to the model as it is.", "error")


async def _compact(
    desks: CommandDesks, request: RunRequest, session: Session, called: Invocation
) -> CommandAnswer:
    if not session.history:
        return CommandAnswer("Nothing to compact yet: the session has no conversation.")
    done = await desks.sessions.compact(session.id, request.settings)
    if done.method == "none":
        return CommandAnswer(f"Nothing to compact: the conversation is {done.before} tokens.")
    return CommandAnswer(f"Compacted the conversation ({done.method}): {done.before} → "
                         f"{done.after} tokens.",
                         extra={"compacted": {"method": done.method, "beforeTokens": done.before,
                                              "afterTokens": done.after}})


async def _clear(
    desks: CommandDesks, request: RunRequest, session: Session, called: Invocation
) -> CommandAnswer:
    kept = [f"approval mode {session.approval_mode}"] if session.approval_mode else []
    if session.model is not None:
        kept.append(f"model {session.model.provider}:{session.model.model}")
    said = f" (kept: {', '.join(kept)})" if kept else ""
    return CommandAnswer(f"Started a new session{said}.", session=session)


async def _resume(
    desks: CommandDesks, request: RunRequest, session: Session, called: Invocation
) -> CommandAnswer:
    if called.arguments:
        return _resume_one(desks, request, called.arguments.split()[0])
    stored = [meta for meta in desks.sessions.stored(request.root) if meta.runs]
    if not stored:
        return CommandAnswer("No stored sessions in this workspace yet.")
    lines = ["Sessions of this workspace, newest first (/resume ID continues one):"]
    for meta in stored[:20]:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.updated_at))
        lines.append(f"  {meta.session_id}  {when}  {meta.title or '(untitled)'}"
                     f"  ({meta.runs} run{'s' if meta.runs != 1 else ''})")
    return CommandAnswer("\n".join(lines))


def _resume_one(desks: CommandDesks, request: RunRequest, session_id: str) -> CommandAnswer:
    roots = desks.sessions.roots(session_id)
    if roots and not any(_same(root, request.root) for root in roots):
        return CommandAnswer(f"Session {session_id} belongs to another workspace.", "error")
    resumed = desks.sessions.known(session_id)  # UnknownSession: -32602 naming the id
    title = next((m.title for m in desks.sessions.stored(request.root)
                  if m.session_id == session_id), "")
    return CommandAnswer(f"Resumed session {session_id}{': ' + title if title else ''}.",
                         session=resumed)


def _same(left: str, right: str) -> bool:
    return os.path.realpath(left) == os.path.realpath(right)


async def _undo(
    desks: CommandDesks, request: RunRequest, session: Session, called: Invocation
) -> CommandAnswer:
    # A checkpoint with files was taken after a batch that changed them: its predecessor is the
    # state before that change. The checkpoints restores took (to undo them) are not steps.
    steps = [c for c in session.checkpoints if c.undoes is None]
    changes = [i for i, c in enumerate(steps) if c.files and i > 0]
    if not changes:
        return CommandAnswer("Nothing to undo: the agent has changed no files in this "
                             "session.", "error")
    checkpoint = steps[changes[-1] - 1]
    plan = session.plan
    restored = await desks.checkpoints.restore(session.id, checkpoint.checkpoint_id)
    files = ", ".join(restored.paths) or "no files changed"
    # Ids shortened as `harness9 restore` lists them (and takes them back): the full ones are
    # in `restored`.
    return CommandAnswer(
        f"Restored the files and the conversation to checkpoint "
        f"{checkpoint.checkpoint_id[:SHORT_ID]} (turn {checkpoint.turn}): {files}. Checkpoint "
        f"{restored.undo[:SHORT_ID]} takes this back.{_plan_now(plan, session.plan)}",
        extra={"restored": {"checkpointId": checkpoint.checkpoint_id,
                            "files": list(restored.paths), "undo": restored.undo}},
    )


def _plan_now(before: Plan | None, after: Plan | None) -> str:
    """What became of the plan, when a restore took it back too."""
    if after == before:
        return ""
    if after is None:
        return " The plan went back too: there was none then."
    done = sum(item.status is PlanStatus.DONE for item in after.items)
    return f" The plan went back too: {done} of {len(after.items)} steps done."


async def _model(
    desks: CommandDesks, request: RunRequest, session: Session, called: Invocation
) -> CommandAnswer:
    if called.arguments:
        return _choose_model(desks, request, session, called.arguments.split())
    listing = await desks.models.listing(request.settings)
    current = current_model(request.settings, session.model)
    text = models_text(listing.models, listing.errors, current, request.commands)
    return CommandAnswer(text, extra={
        "models": [m.as_wire() for m in listing.models],
        "current": current.as_wire() if current is not None else None,
    })


def _choose_model(
    desks: CommandDesks, request: RunRequest, session: Session, words: list[str]
) -> CommandAnswer:
    effort = words[1] if len(words) > 1 else None
    if effort is not None and effort not in REASONING_EFFORTS:
        return CommandAnswer(f"Unknown reasoning effort {effort!r}: use "
                             f"{', '.join(REASONING_EFFORTS)}.", "error")
    current = current_model(request.settings, session.model)
    provider, colon, model = words[0].partition(":")
    if not colon or provider not in PROVIDERS:
        provider, model = "", words[0]
    provider = provider or (current.provider if current is not None else "")
    if not provider:
        return CommandAnswer("No provider is configured: name one, as in "
                             "/model anthropic:claude-sonnet-4-6.", "error")
    choice = ModelChoice(provider, model, effort)
    desks.sessions.set_model(session.id, choice)
    shown = f"{provider}:{model}" + (f", reasoning effort {effort}" if effort else "")
    return CommandAnswer(f"This session now runs on {shown}.", extra={"model": choice.as_wire()})


async def _approvals(
    desks: CommandDesks, request: RunRequest, session: Session, called: Invocation
) -> CommandAnswer:
    mode = called.arguments.split()[0] if called.arguments else None
    if mode is None:
        current = session.approval_mode or request.settings.approval_policy().mode
        return CommandAnswer(f"Approval mode: {current} (one of {', '.join(MODES)}).")
    if mode not in MODES:
        return CommandAnswer(f"Unknown approval mode {mode!r}: use {', '.join(MODES)}.", "error")
    desks.sessions.set_approval_mode(session.id, mode)
    return CommandAnswer(f"Approval mode of this session: {mode}.", extra={"mode": mode})


async def _plan(
    desks: CommandDesks, request: RunRequest, session: Session, called: Invocation
) -> CommandAnswer:
    desks.sessions.set_approval_mode(session.id, "plan")
    return CommandAnswer(plan_text(request.commands), extra={"mode": "plan"})


_ACTIONS: dict[str, Action] = {
    "help": _help,
    "compact": _compact,
    "clear": _clear,
    "resume": _resume,
    "undo": _undo,
    "model": _model,
    "approvals": _approvals,
    "plan": _plan,
}
