"""`harness9 run`: start a daemon, run prompts through `agent/run`, show them, exit with a code.

Exit codes: 0 completed, 1 error, 2 usage (no provider, no prompt), 3 max_turns, 130 cancelled.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from harness9.client.log_folder import open_daemon_log
from harness9.client.process import spawn_daemon
from harness9.client.run_config import (
    RunOptions,
    UsageError,
    options_from_args,
    resume_or_prompt,
)
from harness9.client.views import ViewSlot

if TYPE_CHECKING:
    from harness9.client.daemon_session import CtrlC
    from harness9.client.outcome import Outcome
    from harness9.client.rpc import DaemonClient

DEMO_APPROVALS = (
    "demo · tool calls run without asking (approvals: yolo); by default harness9 run lets "
    "edits and sandboxed commands run where the OS sandbox works (auto) and asks before "
    "leaving it; without a sandbox it asks before writes and commands (ask)"
)
NO_PROMPT = (
    'harness9: say what to do, e.g. harness9 run "make the tests pass"'
    " (or try harness9 run --demo).\n"
)


def run_command(args: argparse.Namespace) -> int:
    """The whole `harness9 run` command; returns the process exit code."""
    notes: list[tuple[str, Path]] = []
    resume_or_prompt(args)
    try:
        prompt = _prompt(args)
        if args.demo:
            prompt = prepare_demo(args, prompt, notes)
        options = options_from_args(args, prompt)
    except UsageError as exc:
        sys.stderr.write(str(exc))
        return 2
    from harness9.client.lines import no_echo

    try:
        # In JSON mode lines typed on a terminal are read as the terminal echoes them.
        with contextlib.nullcontext() if options.json else no_echo():
            return asyncio.run(run_agent(options, notes))
    except KeyboardInterrupt:
        # Ctrl-C before the handler is in place (while starting): the daemon sees its stdin
        # close and exits by itself.
        return 130


def _prompt(args: argparse.Namespace) -> str:
    """The prompt; empty when the prompts will be read line by line (interactive), or when the
    plan is carried out without more to say."""
    if args.prompt is None and getattr(args, "execute_plan", False):
        return ""
    if args.prompt == "-" or (
        args.prompt is None and not (args.demo or args.interactive or sys.stdin.isatty())
    ):
        prompt = sys.stdin.read().strip()
        if not prompt:
            raise UsageError(NO_PROMPT)
        return prompt
    if args.prompt is None and not args.demo:
        args.interactive = True
    return (args.prompt or "").strip()


def prepare_demo(args: argparse.Namespace, prompt: str, notes: list[tuple[str, Path]]) -> str:
    from harness9.demo import prepare

    demo = prepare()
    args.workspace = str(demo.workspace)
    args.replay = str(demo.replay_file)
    notes.append(("workspace", demo.workspace))
    return prompt or demo.prompt


async def run_agent(options: RunOptions, notes: list[tuple[str, Path]]) -> int:
    """Spawn the daemon, hold the session, shut the daemon down; returns the exit code."""
    slot = ViewSlot(options.json)
    if options.demo and not options.json:
        print(DEMO_APPROVALS, flush=True)
    if not options.interactive:
        slot.open()  # the live view shows progress while the daemon starts
    log_file, log_path = open_log(options.verbose)
    route_client_logs(log_file)
    if log_path is not None:
        notes.append(("daemon log", log_path))
    process = await spawn_daemon(options.env, log_file, options.daemon_command)
    # Imported only now, so the terminal's libraries load while the daemon starts.
    from harness9.client.approval_prompt import TerminalApprover
    from harness9.client.daemon_session import CtrlC
    from harness9.client.rpc import DaemonClient

    can_ask = not options.json and sys.stdin.isatty()
    approver = TerminalApprover(slot, can_ask)
    client = DaemonClient(slot.progress, slot.log, approver.answer)
    client.attach(process)
    ctrl_c = CtrlC(client, slot.current)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, ctrl_c)
    try:
        return await _converse(client, options, ctrl_c, slot, notes)
    finally:
        await client.close()
        loop.remove_signal_handler(signal.SIGINT)
        if log_file is not None:
            log_file.close()


async def _converse(
    client: DaemonClient,
    options: RunOptions,
    ctrl_c: CtrlC,
    slot: ViewSlot,
    notes: list[tuple[str, Path]],
) -> int:
    from harness9.client.daemon_session import initialize, run_once
    from harness9.client.input_line import can_type
    from harness9.client.interactive import converse
    from harness9.client.stored_sessions import serves

    init_result, outcome = await initialize(client, options, ctrl_c)
    if outcome is None and options.resume is not None:
        outcome = await resume_session(client, options, init_result, slot)
    # Typing during a run needs a terminal, and a daemon that takes steers (and queues).
    typing = can_type(options.json) and serves(init_result, "agent/steer")
    if outcome is None and options.interactive:
        return await converse(client, options, ctrl_c, slot, notes, typing=typing)
    if outcome is None and typing:
        return await _run_typing(client, options, ctrl_c, slot, notes)
    if outcome is None:
        outcome = await run_once(client, options.run_params, ctrl_c)
    # Shown before the daemon's own shutdown, which the user need not wait for.
    slot.current().finished(outcome, notes)
    _plan_hint(options, outcome, slot.planned)
    return outcome.exit_code


async def _run_typing(
    client: DaemonClient,
    options: RunOptions,
    ctrl_c: CtrlC,
    slot: ViewSlot,
    notes: list[tuple[str, Path]],
) -> int:
    """The one prompt, on a terminal: what is typed meanwhile steers the run or queues more
    prompts (see `conversation`); the exit code is the last run's."""
    from harness9.client.conversation import Conversation

    params = options.run_params
    conversation = Conversation(
        client,
        slot,
        ctrl_c,
        params,
        params.get("sessionId"),
        typing=True,
        first_view=slot.current(),
    )
    outcome = await conversation.run(params)
    slot.notes(notes)
    if outcome is None:
        return 1
    _plan_hint(options, outcome, slot.planned)
    return outcome.exit_code


def _plan_hint(options: RunOptions, outcome: Outcome, planned: bool) -> None:
    """After a plan-mode run that wrote a plan: how to carry it out."""
    asked = options.run_params.get("plan") and not options.json
    if not (asked and planned and outcome.status == "completed"):
        return
    session = outcome.session_id
    resume = f" --resume {session}" if session else " --resume"
    print(f"carry it out: harness9 run{resume} --execute-plan", flush=True)


async def resume_session(
    client: DaemonClient, options: RunOptions, init_result: object, slot: ViewSlot
) -> Outcome | None:
    """Point the run at the session to resume and show what it was about; an Outcome when
    there is nothing to resume."""
    from harness9.client.outcome import Outcome
    from harness9.client.stored_sessions import ResumeError, resume

    assert options.resume is not None
    try:
        session_id, recap = await resume(client, init_result, options.workspace, options.resume)
    except ResumeError as exc:
        message = str(exc).strip().removeprefix("harness9: ")
        return Outcome("error", error={"code": -32602, "message": message, "data": None})
    options.run_params["sessionId"] = session_id
    slot.recap(recap)
    return None


def open_log(verbose: bool) -> tuple[IO[str] | None, Path | None]:
    """The daemon's stderr: ours when verbose, else a fresh file of the user's alone under the
    temp folder (see `log_folder`)."""
    if verbose:
        return None, None
    return open_daemon_log()


def route_client_logs(log_file: IO[str] | None) -> None:
    """The client's own warnings go to the log, never into the live view."""
    handler = logging.StreamHandler(log_file or sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s [client] %(name)s: %(message)s"))
    for name in ("harness9.client",):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False
