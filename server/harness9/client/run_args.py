"""The command line of the terminal client's runs: `harness9 run` and `harness9 exec` (their
options, shared where they are the same), and `--file`'s argument.

Light on purpose: the parser is built for every command, `serve` included, so this module
imports nothing but the standard library's argparse and re.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from harness9.client.exec_options import EXEC_EPILOG, add_exec_options

RUN_EPILOG = """environment:
  OPENAI_API_KEY, OPENAI_BASE_URL        OpenAI (the URL: another compatible service)
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL  Anthropic (the URL: another compatible service)
  HARNESS9_PROVIDER, HARNESS9_MODEL      which provider and model (the flags win)

exit codes:
  0    the run completed
  1    the run failed (provider, network or daemon error)
  2    bad usage or no model provider configured
  3    the run stopped at --max-turns
  130  cancelled with Ctrl-C
"""


def add_run_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`harness9 run`: the terminal client."""
    run = sub.add_parser(
        "run",
        help="run the agent on a prompt, live in the terminal (try: run --demo)",
        description="Start a daemon, run the agent on PROMPT in the workspace and show it live.",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for add in (_add_run_input, _add_run_model, _add_run_session, _add_run_limits,
                _add_run_approvals):
        add(run)
    run.add_argument(
        "-i", "--interactive", action="store_true", help="read one prompt per line, one session"
    )
    run.add_argument(
        "--background",
        action="store_true",
        help="start the run as a task in a worktree of its own (--worktree) and return at once; "
        "it goes on headless (harness9 exec), approvals auto unless given",
    )
    run.add_argument(
        "--json",
        action="store_true",
        help='progress as JSON lines on stdout, then {"result": …} or {"error": …}',
    )
    run.add_argument("--verbose", action="store_true", help="show the daemon's log live")


def add_exec_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`harness9 exec`: `run`'s options, with its own approvals, output and exit codes."""
    run = sub.add_parser(
        "exec", help="run the agent on a prompt with nobody to ask (CI, scripts)",
        description="Start a daemon, run the agent on PROMPT in the workspace, never wait for "
        "a person, and exit 0 only if the run completed.",
        epilog=RUN_EPILOG.split("exit codes:")[0] + EXEC_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for add in (_add_run_input, _add_run_model, _add_run_session, _add_run_limits):
        add(run)
    add_exec_options(run)


def _add_run_input(run: argparse.ArgumentParser) -> None:
    """What `run` works on: the prompt, the workspace, the files attached."""
    run.add_argument(
        "prompt",
        nargs="?",
        metavar="PROMPT",
        help="the task ('-' reads it from stdin; none on a terminal: one prompt per line)",
    )
    run.add_argument("--workspace", metavar="DIR", help="workspace root (default: current dir)")
    run.add_argument("--remote", metavar="HOST:PATH", help="run the daemon on HOST through ssh, "
                     "on its folder PATH (the workspace's path there)")
    run.add_argument(
        "--file",
        action="append",
        type=file_context,
        default=[],
        dest="files",
        metavar="PATH[:START-END]",
        help="attach a file, or lines START to END of it (1-based), to the prompt; repeatable",
    )


def _add_run_model(run: argparse.ArgumentParser) -> None:
    """Which model `run` asks."""
    run.add_argument(
        "--provider", choices=["openai", "anthropic", "replay"], help="which model adapter"
    )
    run.add_argument(
        "--model",
        metavar="[PROVIDER:]ID",
        help="the model to ask for (with its provider: anthropic:claude-sonnet-4-5)",
    )
    run.add_argument(
        "--reasoning-effort",
        choices=["low", "medium", "high"],
        help="how hard a reasoning model thinks (default: the model's own)",
    )


def _add_run_session(run: argparse.ArgumentParser) -> None:
    """The session `run` continues."""
    run.add_argument(
        "--session",
        metavar="ID",
        help="sessionId to continue (-i keeps one session across prompts)",
    )
    run.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="SESSION",
        help="continue a stored session, showing what it was about (default: the workspace's "
        "newest; list them with: harness9 sessions)",
    )
    run.add_argument(
        "--worktree",
        action="store_true",
        help="work in a git worktree of its own, not in the workspace (a task: harness9 tasks "
        "lists it, harness9 tasks apply SESSION brings its changes in)",
    )


def _add_run_limits(run: argparse.ArgumentParser) -> None:
    """How `run`'s model calls go, and the scripted and offline models."""
    run.add_argument(
        "--max-turns", type=positive_int, metavar="N", help="at most N model calls (default 100)"
    )
    run.add_argument("--thinking", action="store_true", help="a tool-less call before each turn")
    run.add_argument("--no-stream", action="store_true", help="do not stream the model's text")
    run.add_argument("--replay", metavar="FILE", help="use a scripted model (provider replay)")
    run.add_argument("--demo", action="store_true", help="offline demo on a sample project")


def _add_run_approvals(run: argparse.ArgumentParser) -> None:
    """Which of `run`'s tool calls run unasked, and plan mode."""
    run.add_argument(
        "--approvals",
        choices=["ask", "auto", "auto-edit", "yolo", "read-only"],
        help="which tool calls run unasked (default: HARNESS9_APPROVALS, else auto where the OS "
        "sandbox works: edits and sandboxed bash run, leaving the sandbox is asked about in the "
        "terminal; else ask; the demo runs yolo)",
    )
    run.add_argument(
        "-y", "--yes", action="store_true", help="let every tool call run unasked (= yolo)"
    )
    plan = run.add_mutually_exclusive_group()
    plan.add_argument(
        "--plan",
        action="store_true",
        help="investigate and write a plan, change nothing (approval mode plan for this run)",
    )
    plan.add_argument(
        "--execute-plan",
        action="store_true",
        help="carry out the session's plan (with --resume or --session; PROMPT is optional)",
    )


def file_context(text: str) -> dict[str, Any]:
    """A `--file` argument as an `agent/run` context item: `PATH`, `PATH:LINE` or
    `PATH:START-END` (1-based lines; a path that itself ends in `:digits` can be given as
    `PATH:1-999999`)."""
    from pathlib import Path  # here: `serve` never needs it

    path, _, lines = text.rpartition(":")
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", lines) if path else None
    if match is None:
        return {"uri": Path(text).absolute().as_uri(), "kind": "file"}
    start = int(match[1])
    end = int(match[2] or start)
    if start < 1 or end < start:
        raise argparse.ArgumentTypeError(f"{lines}: lines are START-END with 1 ≤ START ≤ END")
    line_range = {
        "start": {"line": start - 1, "character": 0},
        "end": {"line": end, "character": 0},
    }
    return {"uri": Path(path).absolute().as_uri(), "kind": "selection", "range": line_range}


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value
