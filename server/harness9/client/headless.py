"""`harness9 exec`: `harness9 run` with nobody to ask, for CI and scripts.

The same daemon, session and views as `run` (`runner`), with these differences: the approval
mode is `read-only` unless `--approvals` (or `--yes`) says more, and a call the mode would ask
about is declined with a message to the model; progress goes to stderr and the final answer to
stdout (`--json`: progress as JSON lines and one result record, all on stdout); `--output-schema`
asks for a JSON answer and checks it (`output_schema`); SIGINT and SIGTERM cancel the run; the
exit code says how the run ended (`exec_options.EXIT_CODES`), 0 only when it completed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness9.client.exec_options import EXIT_CODES
from harness9.client.exec_record import Tally, exit_code, final_status, result_record
from harness9.client.jsonlines import JsonLinesView
from harness9.client.outcome import Outcome
from harness9.client.process import kill_group, spawn_daemon
from harness9.client.run_config import RunOptions, UsageError, options_from_args, resume_or_prompt
from harness9.client.views import ViewSlot

if TYPE_CHECKING:
    from harness9.client.daemon_session import CtrlC
    from harness9.client.rpc import DaemonClient

DEFAULT_MODE = "read-only"
NO_PROMPT = (
    'harness9: say what to do, e.g. harness9 exec "review the last commit" (or - for stdin)\n'
)


def declined_message(mode: str) -> str:
    """What the model reads of a call that would have been asked about."""
    return (
        f"nobody can be asked in this headless run (harness9 exec, approval mode {mode}), so "
        "the call was declined. Do the task without it if you can; if you cannot, say what "
        "you needed and why"
    )


@dataclass(slots=True)
class Job:
    """One `harness9 exec`: its options and what it has seen so far."""

    options: RunOptions
    mode: str
    schema: dict[str, Any] | None = None
    schema_path: str = ""
    started: float = field(default_factory=time.monotonic)
    tally: Tally = field(default_factory=Tally)
    notes: list[tuple[str, Path]] = field(default_factory=list)
    signal_name: str | None = None  # the signal that cancelled the run
    output: Any = None  # the answer's JSON value (with --output-schema)


class ExecJsonView(JsonLinesView):
    """`exec --json`: each notification as a `{"type": "progress", …}` line; the result
    record is written by `record` once the status is known."""

    def progress(self, params: dict[str, Any]) -> None:
        """One notification, one line."""
        self._line({"type": "progress", **params})

    def finished(self, outcome: Outcome, notes: list[tuple[str, Path]]) -> None:
        """Only the notes, on stderr: the record is the last line."""
        for label, path in notes:
            self._err.write(f"{label}: {path}\n")

    def record(self, record: dict[str, Any]) -> None:
        """The result record, the stream's last line."""
        self._line(record)


def exec_command(args: argparse.Namespace) -> int:
    """The whole `harness9 exec` command; returns the process exit code."""
    started = time.monotonic()
    try:
        job = _job(args)
    except UsageError as exc:
        return _usage_error(str(exc), args.json, started)
    job.started = started
    try:
        return asyncio.run(_exec(job))
    except KeyboardInterrupt:  # before the handlers are in place: the daemon exits by itself
        return EXIT_CODES["cancelled"]


def _usage_error(text: str, json_lines: bool, started: float) -> int:
    """Say what is wrong with the command line (and, with `--json`, as a record); exit 2."""
    sys.stderr.write(text)
    if json_lines:
        error = {"kind": "usage", "message": text.strip().removeprefix("harness9: ")}
        duration = (time.monotonic() - started) * 1000
        record = result_record("error", error, Tally(), session_id=None, duration_ms=duration,
                               text="")
        ExecJsonView().record(record)
    return EXIT_CODES["usage"]


def _job(args: argparse.Namespace) -> Job:
    """The run to make, from the command line; raises `UsageError`."""
    from harness9.client.run_config import approval_mode

    resume_or_prompt(args)
    notes: list[tuple[str, Path]] = []
    prompt = _prompt(args)
    if args.demo:
        from harness9.client.runner import prepare_demo

        prompt = prepare_demo(args, prompt, notes)
    schema = None
    if args.output_schema:
        from harness9.client.output_schema import instruction, read_schema

        schema = read_schema(args.output_schema)
        prompt += instruction(schema)
    options = options_from_args(args, prompt)
    mode = approval_mode(args) or DEFAULT_MODE
    options.init_options["approvals"] = {"mode": mode}
    return Job(options, mode, schema, args.output_schema or "", notes=notes)


def _prompt(args: argparse.Namespace) -> str:
    """The prompt: the argument, or all of stdin for `-` (or none given and stdin redirected)."""
    if args.prompt == "-" or (args.prompt is None and not sys.stdin.isatty()):
        text = sys.stdin.read().strip()
    else:
        text = (args.prompt or "").strip()
    if not text and not args.demo:
        raise UsageError(NO_PROMPT)
    return text


async def _exec(job: Job) -> int:
    """Spawn the daemon, make the run, report it; returns the exit code."""
    from harness9.client.runner import open_log, route_client_logs

    options = job.options
    log_file, log_path = open_log(options.verbose)
    route_client_logs(log_file)
    if log_path is not None:
        job.notes.append(("daemon log", log_path))
    try:
        process = await spawn_daemon(options.env, log_file, options.daemon_command)
        # What needs loading is loaded while the daemon starts.
        problem = _schema_problem(job)
        if problem is not None:
            kill_group(process)
            await process.wait()
            return _usage_error(problem, options.json, job.started)
        return await _converse(job, process)
    finally:
        if log_file is not None:
            log_file.close()


async def _converse(job: Job, process: asyncio.subprocess.Process) -> int:
    """Speak to the daemon until the run is over and reported; then shut it down."""
    from harness9.client.daemon_session import CtrlC
    from harness9.client.rpc import DaemonClient

    slot = _slot(job.options.json)

    async def decline(params: dict[str, Any]) -> dict[str, Any]:
        return {"decision": "reject", "message": declined_message(job.mode)}

    def progress(params: dict[str, Any]) -> None:
        job.tally.progress(params)
        slot.progress(params)

    client = DaemonClient(progress, slot.log, decline)
    client.attach(process)
    ctrl_c = CtrlC(client, slot.current)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, _stopper(job, ctrl_c, signum))
    try:
        outcome = await _runs(client, job, ctrl_c, slot)
        return _report(job, outcome, slot)
    finally:
        await client.close()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


def _schema_problem(job: Job) -> str | None:
    if job.schema is None:
        return None
    from harness9.client.output_schema import schema_problem

    return schema_problem(job.schema, job.schema_path)


def _slot(json_lines: bool) -> ViewSlot:
    """JSON lines on stdout, or the live view on stderr (stdout is the answer's)."""
    if json_lines:
        return ViewSlot(True, make=ExecJsonView)
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    console.soft_wrap = not console.is_terminal
    return ViewSlot(False, console=console)


def _stopper(job: Job, ctrl_c: CtrlC, signum: int) -> Any:
    """The handler of SIGINT or SIGTERM: cancel the run (a second signal stops at once)."""

    def stop() -> None:
        job.signal_name = job.signal_name or signal.Signals(signum).name
        ctrl_c()

    return stop


async def _runs(client: DaemonClient, job: Job, ctrl_c: CtrlC, slot: ViewSlot) -> Outcome:
    """`initialize`, the session to resume, the run, and the schema's second chance."""
    from harness9.client.daemon_session import initialize, run_once
    from harness9.client.runner import resume_session

    options = job.options
    slot.open()
    init_result, outcome = await initialize(client, options, ctrl_c)
    if outcome is None and options.resume is not None:
        outcome = await resume_session(client, options, init_result, slot)
    if outcome is None:
        outcome = await run_once(client, options.run_params, ctrl_c)
    if job.schema is None or outcome.status != "completed":
        return outcome
    return await _checked(client, job, ctrl_c, slot, outcome)


async def _checked(
    client: DaemonClient, job: Job, ctrl_c: CtrlC, slot: ViewSlot, outcome: Outcome
) -> Outcome:
    """The answer checked against the schema, asked for again once when it is wrong; an
    Outcome `schema_failed` when the second answer is wrong too."""
    from harness9.client.daemon_session import run_once
    from harness9.client.output_schema import check, retry_prompt

    assert job.schema is not None
    job.output, problem = check(_text(outcome, job.tally), job.schema)
    if problem is None:
        return outcome
    slot.current().finished(outcome, [])
    slot.open()
    params = {key: value for key, value in job.options.run_params.items()
              if key in ("provider", "model", "reasoningEffort", "maxTurns", "stream")}
    params.update(prompt=retry_prompt(problem), sessionId=outcome.session_id)
    outcome = await run_once(client, params, ctrl_c)
    if outcome.status != "completed":
        return outcome
    job.output, problem = check(_text(outcome, job.tally), job.schema)
    if problem is None:
        return outcome
    error = {"code": None, "message": problem, "data": {"kind": "schema"}}
    return Outcome("schema_failed", result=outcome.result, error=error)


def _text(outcome: Outcome, tally: Tally) -> str:
    """The run's final answer: the `agent/run` answer's text, else its `run_finished`'s."""
    text = (outcome.result or {}).get("text")
    return str(text) if isinstance(text, str) else tally.text


def _report(job: Job, outcome: Outcome, slot: ViewSlot) -> int:
    """Write the answer (or the record) and return the exit code."""
    error: dict[str, Any] | None
    if outcome.status == "schema_failed":
        status, error = "schema_failed", {"kind": "schema", **_plain(outcome.error)}
    else:
        status, error = final_status(outcome, job.tally)
    text = _text(outcome, job.tally)
    shown = Outcome(status, result=outcome.result, error=_wire_error(error))
    view = slot.current()
    view.finished(shown, job.notes)
    if isinstance(view, ExecJsonView):
        record = result_record(status, error, job.tally, session_id=outcome.session_id,
                               duration_ms=(time.monotonic() - job.started) * 1000, text=text)
        if job.schema is not None and status == "completed":
            record["output"] = job.output
        view.record(record)
    elif status == "completed":
        answer = json.dumps(job.output, ensure_ascii=False) if job.schema else text
        sys.stdout.write(answer.rstrip("\n") + "\n")
        sys.stdout.flush()
    return exit_code(status, job.signal_name)


def _plain(error: dict[str, Any] | None) -> dict[str, Any]:
    return {"message": str((error or {}).get("message", ""))}


def _wire_error(error: dict[str, Any] | None) -> dict[str, Any] | None:
    """The record's error as the live view's summary line reads it (a JSON-RPC error)."""
    if error is None:
        return None
    return {"code": error.get("code"), "message": error["message"],
            "data": {"kind": error["kind"]}}
