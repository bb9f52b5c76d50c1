"""The `harness9` command: `serve` (the daemon), `acp` (the ACP agent), `run` (the terminal
client), `exec` (headless runs), `sessions`, `restore`, `tasks` and `tools`; with no
arguments, its help.

Start-up stays cheap: a start handed to the resident imports nothing but the standard
library's sockets first; otherwise only argparse is imported before dispatch, so `harness9 serve`
pays for nothing but the daemon itself.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from harness9 import __version__

if TYPE_CHECKING:
    import argparse


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    import argparse

    from harness9.client.run_args import add_exec_parser, add_run_parser

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
    tasks = sub.add_parser("tasks", help="list the background tasks, or apply or discard one")
    tasks.add_argument("action", nargs="?", choices=["apply", "discard"])
    tasks.add_argument("task", nargs="?", metavar="SESSION", help="the task's session id")
    tasks.add_argument("--json", action="store_true", help="print the answer as JSON")
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
    doctor = sub.add_parser("doctor", help="say which OS sandbox works here for bash, or why "
                            "none does")
    doctor.add_argument("--remote", metavar="HOST", help="check HOST (through ssh) instead: "
                        "that it has harness9 and what its sandbox is")
    sub.add_parser("schema", help="print the wire protocol as a JSON Schema (draft 2020-12)")
    login = sub.add_parser("login", help="store a service's API key (used when the "
                           "environment has none)")
    login.add_argument("provider", nargs="?", choices=("openai", "anthropic"),
                       help="the service (asked when left out)")
    login.add_argument("--remove", action="store_true", help="forget the stored key")
    add_run_parser(sub)
    add_exec_parser(sub)
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


def _doctor(remote: str | None) -> int:
    """`harness9 doctor`: this machine's report, or `--remote HOST`'s through ssh."""
    if remote:
        from harness9.client.remote import doctor_remote

        lines, fine = doctor_remote(remote)
    else:
        from harness9.resident.starter import describe
        from harness9.service.doctor import doctor_report

        lines, fine = doctor_report()
        lines.append(describe())
    print("\n".join(lines))
    return 0 if fine else 1


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and dispatch; exits with the subcommand's status. A daemon's
    start (`serve`, `acp`, `exec`) is handed to the resident when one listens."""
    if argv is None:
        from harness9.resident.starter import run_through_resident

        run_through_resident(sys.argv[1:])
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):
        parser.print_help()
        sys.exit(0)
    args = parser.parse_args(argv)
    if args.command == "run" and args.background:
        from harness9.client.background_run import start_background

        sys.exit(start_background(sys.argv[1:] if argv is None else list(argv)))
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
        sys.exit(_doctor(args.remote))
    sys.exit(_client_command(args))


def _client_command(args: argparse.Namespace) -> int:
    """The terminal client's commands (clients of a daemon they start, or of stored state)."""
    if args.command == "sessions":
        from harness9.client.stored_sessions import sessions_command

        return sessions_command(args.workspace, args.json)
    if args.command == "tasks":
        from harness9.client.task_command import tasks_command

        return tasks_command(args.action, args.task, args.json)
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
