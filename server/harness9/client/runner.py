"""`harness9 run`: start a daemon, run one prompt through `agent/run`, show it, map the exit code.

Ctrl-C sends `$/cancelRequest` and waits for the daemon's `-32800` answer (exit 130); a second
Ctrl-C, or one while the daemon shuts down, kills the daemon's process group at once (the daemon's
own reaper then ends its tools' processes).
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
    ctrl_c = _CtrlC(client, view)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, ctrl_c)
    try:
        outcome = await _session(client, options, ctrl_c)
        # The outcome is shown before the daemon's own shutdown, which the user need not wait on.
        view.finished(outcome, notes)
    finally:
        await client.close()
        loop.remove_signal_handler(signal.SIGINT)
        if log_file is not None:
            log_file.close()
    return outcome.exit_code


def _make_view(options: RunOptions) -> View:
    if options.json:
        from harness9.client.jsonlines import JsonLinesView

        return JsonLinesView()
    from harness9.client.live import LiveView

    return LiveView()


class _CtrlC:
    """SIGINT: the first one cancels the run in flight; any other stops the daemon at once."""

    def __init__(self, client: DaemonClient, view: View) -> None:
        self.client = client
        self.view = view
        self.run_id: int | None = None
        self.count = 0

    def __call__(self) -> None:
        self.count += 1
        if self.count == 1 and self.run_id is not None:
            self.client.cancel(self.run_id)
            self.view.cancelling()
        else:
            self.client.kill()


async def _session(client: DaemonClient, options: RunOptions, ctrl_c: _CtrlC) -> Outcome:
    """initialize → agent/run; every way it can end becomes an Outcome."""
    from pygls.exceptions import JsonRpcException

    from harness9.client.rpc import DaemonExited

    try:
        await client.initialize(options.workspace, options.init_options)
        ctrl_c.run_id = client.new_id()
        result = await client.request("agent/run", options.run_params, ctrl_c.run_id)
        return _result_outcome(result)
    except JsonRpcException as exc:
        status = "cancelled" if exc.code == REQUEST_CANCELLED else "error"
        return Outcome(status, error=_error(exc.code, exc.message, exc.data))
    except DaemonExited as exc:
        if ctrl_c.count:
            message = "cancelled: the daemon was stopped at once (Ctrl-C twice)"
            return Outcome("cancelled", error=_error(REQUEST_CANCELLED, message, None))
        return Outcome("error", error=_error(-32803, str(exc), {"kind": "internal"}))
    finally:
        ctrl_c.run_id = None


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
