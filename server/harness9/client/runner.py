"""`harness9 run`: start a daemon, run one prompt through `agent/run`, show it, map the exit code.

Ctrl-C sends `$/cancelRequest` and waits for the daemon's `-32800` answer (exit 130); a second
Ctrl-C kills the daemon's process group at once.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from harness9.client.config import RunOptions, UsageError, options_from_args
from harness9.client.outcome import Outcome, View
from harness9.client.process import spawn_daemon

if TYPE_CHECKING:
    from harness9.client.rpc import DaemonClient

REQUEST_CANCELLED = -32800


def run_command(args: argparse.Namespace) -> int:
    """The whole `harness9 run` command; returns the process exit code."""
    notes: list[tuple[str, Path]] = []
    try:
        prompt = _prompt(args)
        if args.demo:
            prompt = _prepare_demo(args, prompt, notes)
        options = options_from_args(args, prompt)
    except UsageError as exc:
        sys.stderr.write(str(exc))
        return 2
    return asyncio.run(run_agent(options, notes))


def _prompt(args: argparse.Namespace) -> str:
    if args.prompt == "-" or (args.prompt is None and not args.demo and not sys.stdin.isatty()):
        prompt = sys.stdin.read()
    else:
        prompt = args.prompt or ""
    if not prompt.strip() and not args.demo:
        raise UsageError(
            'harness9: say what to do, e.g. harness9 run "make the tests pass"'
            " (or try harness9 run --demo).\n"
        )
    return prompt.strip()


def _prepare_demo(args: argparse.Namespace, prompt: str, notes: list[tuple[str, Path]]) -> str:
    from harness9.demo import prepare

    demo = prepare()
    args.workspace = str(demo.workspace)
    args.replay = str(demo.replay_file)
    notes.append(("workspace", demo.workspace))
    return prompt or demo.prompt


async def run_agent(options: RunOptions, notes: list[tuple[str, Path]]) -> int:
    """Spawn the daemon, run the prompt, show the outcome, shut the daemon down."""
    view = _make_view(options)
    log_file, log_path = _open_log(options.verbose)
    _route_client_logs(log_file)
    if log_path is not None:
        notes.append(("daemon log", log_path))
    process = await spawn_daemon(options.env, log_file)
    # Imported only now, so pygls loads here while the daemon starts in parallel.
    from harness9.client.rpc import DaemonClient

    client = DaemonClient(view.progress, view.log)
    client.attach(process)
    try:
        outcome = await _session(client, options, view)
        # The outcome is shown before the daemon's own shutdown, which the user need not wait on.
        view.finished(outcome, notes)
    finally:
        await client.close()
        if log_file is not None:
            log_file.close()
    return outcome.exit_code


def _make_view(options: RunOptions) -> View:
    if options.json:
        from harness9.client.jsonlines import JsonLinesView

        return JsonLinesView()
    from harness9.client.live import LiveView

    return LiveView()


async def _session(client: DaemonClient, options: RunOptions, view: View) -> Outcome:
    """initialize → agent/run, with Ctrl-C wired to cancel; every ending becomes an Outcome."""
    from pygls.exceptions import JsonRpcException

    from harness9.client.rpc import DaemonExited

    loop = asyncio.get_running_loop()
    interrupts: list[float] = []
    run_id: list[int] = []

    def on_interrupt() -> None:
        interrupts.append(time.monotonic())
        if len(interrupts) == 1 and run_id:
            client.cancel(run_id[0])
            view.cancelling()
        else:
            client.kill()

    loop.add_signal_handler(signal.SIGINT, on_interrupt)
    try:
        await client.initialize(options.workspace, options.init_options)
        run_id.append(client.new_id())
        result = await client.request("agent/run", options.run_params, run_id[0])
        return _result_outcome(result)
    except JsonRpcException as exc:
        status = "cancelled" if exc.code == REQUEST_CANCELLED else "error"
        return Outcome(status, error=_error(exc.code, exc.message, exc.data))
    except DaemonExited as exc:
        if interrupts:
            message = "cancelled: the daemon was stopped at once (Ctrl-C twice)"
            return Outcome("cancelled", error=_error(REQUEST_CANCELLED, message, None))
        return Outcome("error", error=_error(-32803, str(exc), {"kind": "internal"}))
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def _result_outcome(result: Any) -> Outcome:
    if not isinstance(result, dict):
        message = f"unexpected agent/run result: {result!r}"
        return Outcome("error", error=_error(-32603, message, None))
    return Outcome(str(result.get("status", "completed")), result=result)


def _error(code: int, message: str, data: Any) -> dict[str, Any]:
    return {"code": code, "message": message, "data": data}


def _open_log(verbose: bool) -> tuple[IO[str] | None, Path | None]:
    """The daemon's stderr: ours when verbose, else a fresh file under the temp dir."""
    if verbose:
        return None, None
    folder = Path(tempfile.gettempdir()) / "harness9-logs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"run-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    # Appending, because the daemon writes to the same file through its own descriptor.
    return path.open("a", encoding="utf-8"), path


def _route_client_logs(log_file: IO[str] | None) -> None:
    """The client's own warnings (pygls' included) go to the log, never into the live view."""
    handler = logging.StreamHandler(log_file or sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s [client] %(name)s: %(message)s"))
    for name in ("pygls", "harness9.client"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False
