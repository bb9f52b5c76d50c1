"""The `harness9` command: `serve` (the daemon), `acp` (the ACP agent), `run` (the terminal
client), `exec` (headless runs), `sessions`, `restore` and `tools`; with no arguments, its help.

Start-up stays cheap: only argparse is imported before dispatch, so `harness9 serve` pays for
nothing but the daemon itself.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any

from harness9 import __version__

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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="harness9", description="A coding agent for any editor, and for the terminal."
    )
    parser.add_argument("--version", action="version", version=f"harness9 {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("serve", help="run the daemon on stdin/stdout (editors start this)")
    sessions = sub.add_parser("sessions", help="list the stored sessions of a workspace")
    sessions.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    sessions.add_argument("--json", action="store_true", help='print {"sessions": [...]} as JSON')
    _add_restore_parser(sub)
    acp = sub.add_parser(
        "acp", help="run as an Agent Client Protocol agent on stdin/stdout (Zed, JetBrains)"
    )
    acp.add_argument(
        "--settings",
        metavar="JSON",
        help='settings as in initializationOptions, e.g. \'{"maxTurns": 30, "thinking": true}\' '
        "(@FILE reads them from a file)",
    )
    tools = sub.add_parser("tools", help="print the tools the model is offered, as JSON")
    tools.add_argument("--workspace", default=".", metavar="DIR", help="workspace root")
    sub.add_parser("doctor", help="say which OS sandbox works here for bash, or why none does")
    sub.add_parser("schema", help="print the wire protocol as a JSON Schema (draft 2020-12)")
    login = sub.add_parser("login", help="store a service's API key (used when the "
                           "environment has none)")
    login.add_argument("provider", nargs="?", choices=("openai", "anthropic"),
                       help="the service (asked when left out)")
    login.add_argument("--remove", action="store_true", help="forget the stored key")
    _add_run_parser(sub)
    _add_exec_parser(sub)
    return parser


def _add_restore_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    restore = sub.add_parser(
        "restore",
        help="list a session's checkpoints, or put the files back as they were at one",
        description="Without CHECKPOINT: list the checkpoints of the workspace's newest session "
        "(or --session's), newest first. With it: restore the files (and cut the session's "
        "conversation back) to that checkpoint.",
    )
    restore.add_argument("checkpoint", nargs="?", metavar="CHECKPOINT",
                         help="the checkpoint's id, or its first characters")
    restore.add_argument("--session", metavar="ID", help="the session (default: the "
                         "workspace's newest; a CHECKPOINT is looked for in all of them)")
    restore.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    restore.add_argument("--json", action="store_true", help="print the answer as JSON")


def _add_run_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        "--json",
        action="store_true",
        help='progress as JSON lines on stdout, then {"result": …} or {"error": …}',
    )
    run.add_argument("--verbose", action="store_true", help="show the daemon's log live")


def _add_exec_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from harness9.client.exec_options import EXEC_EPILOG, add_exec_options

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


def _add_run_limits(run: argparse.ArgumentParser) -> None:
    """How `run`'s model calls go, and the scripted and offline models."""
    run.add_argument(
        "--max-turns", type=_positive_int, metavar="N", help="at most N model calls (default 100)"
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


def _login(provider: str | None, remove: bool) -> int:
    """`harness9 login`: read a service's key (without echo on a terminal; from stdin for
    scripts) and store it 0600 in the config folder, or forget it."""
    import getpass

    from harness9.provider.endpoints import KEY_VARIABLES
    from harness9.service.config.credentials import store_key

    if provider is None:
        print(f"Service ({' or '.join(KEY_VARIABLES)}): ", end="", flush=True)
        provider = sys.stdin.readline().strip() or "openai"
    variable = KEY_VARIABLES.get(provider)
    if variable is None:
        print(f"harness9 login: unknown service {provider!r}: use "
              f"{' or '.join(KEY_VARIABLES)}", file=sys.stderr)
        return 2
    if remove:
        print(f"Forgot the {provider} key ({store_key(variable, None)}).")
        return 0
    key = (getpass.getpass(f"{variable}: ") if sys.stdin.isatty()
           else sys.stdin.readline()).strip()
    if not key:
        print("harness9 login: no key given; nothing stored", file=sys.stderr)
        return 1
    path = store_key(variable, key)
    print(f"Stored the {provider} key in {path} (only you can read it); {variable} in the "
          "environment still wins over it.")
    return 0


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and dispatch; exits with the subcommand's status."""
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):
        parser.print_help()
        sys.exit(0)
    args = parser.parse_args(argv)
    if args.command in ("serve", "acp"):
        from harness9.service.warm_up import hold_collection

        hold_collection()  # until warming up ends: start-up only allocates what stays
    if args.command == "serve":
        from harness9.lsp.serve import main as serve_main

        serve_main()
        return
    if args.command == "acp":
        from harness9.acp.main import main as acp_main

        acp_main(args.settings)
        return
    if args.command == "tools":
        sys.exit(_print_tools(args.workspace))
    if args.command == "schema":
        import json

        from harness9.protocol.schema_document import protocol_schema

        print(json.dumps(protocol_schema(), indent=2, ensure_ascii=False))
        return
    if args.command == "login":
        sys.exit(_login(args.provider, args.remove))
    if args.command == "doctor":
        from harness9.service.doctor import doctor_report

        lines, sandboxed = doctor_report()
        print("\n".join(lines))
        sys.exit(0 if sandboxed else 1)
    sys.exit(_client_command(args))


def _client_command(args: argparse.Namespace) -> int:
    """The terminal client's commands (clients of a daemon they start, or of stored state)."""
    if args.command == "sessions":
        from harness9.client.stored_sessions import sessions_command

        return sessions_command(args.workspace, args.json)
    if args.command == "restore":
        from harness9.client.restore_command import restore_command

        return restore_command(args.workspace, args.checkpoint, args.session, args.json)
    if args.command == "exec":
        from harness9.client.headless import exec_command

        return exec_command(args)
    from harness9.client.runner import run_command

    return run_command(args)


def _print_tools(workspace: str) -> int:
    import asyncio
    import json
    import os

    from harness9.lsp.agent_tools import listed
    from harness9.service.agent_service import AgentService
    from harness9.service.config.settings import from_environment, resolve

    def warn(message: str) -> None:
        print(f"harness9: {message}", file=sys.stderr)

    async def offered() -> list[dict[str, Any]]:
        service = AgentService(state=None)  # nothing is stored: no session is opened
        settings = resolve(from_environment(os.environ))
        try:
            return [listed(tool) for tool in await service.tools(workspace, settings, warn=warn)]
        finally:
            await service.shutdown()

    print(json.dumps({"tools": asyncio.run(offered())}, indent=2, ensure_ascii=False))
    return 0
