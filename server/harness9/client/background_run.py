"""`harness9 run --background`: the run as a task in a git worktree of its own, going on
headless (`harness9 exec --worktree --json`, in a session of its own) after the command has
returned; its progress lines go to a private log file, and `harness9 tasks` lists it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

# `run` options `exec` has no use for in the background, each with the reason.
_REFUSED = {
    "-i": "one prompt only", "--interactive": "one prompt only",
    "--plan": "plan mode waits for a person", "--execute-plan": "plan mode waits for a person",
}


class BackgroundUsage(ValueError):
    """A `run --background` command line that cannot go on in the background."""


def exec_arguments(argv: Sequence[str], stdin_text: str | None = None) -> list[str]:
    """The `exec` command line for `run --background`'s `argv` (from `run` on): `--worktree`,
    `--json`, approvals `auto` unless given; a prompt of `-` becomes `stdin_text`."""
    args = list(argv)
    if not args or args[0] != "run":
        raise BackgroundUsage("harness9: --background is an option of harness9 run")
    for option, why in _REFUSED.items():
        if option in args:
            raise BackgroundUsage(f"harness9: run --background cannot take {option} ({why})")
    args = ["exec", *(a for a in args[1:] if a != "--background")]
    if "-" in args:
        if not stdin_text:
            raise BackgroundUsage("harness9: run --background: no prompt on stdin")
        args[args.index("-")] = stdin_text
    for flag in ("--worktree", "--json"):
        if flag not in args:
            args.append(flag)
    if not {"--approvals", "-y", "--yes"} & set(args) and not any(
            a.startswith("--approvals=") for a in args):
        args += ["--approvals", "auto"]  # the worktree is the task's own: edits go there
    return args


def start_background(argv: Sequence[str]) -> int:
    """Start the task detached, say where its progress goes; the exit code (2: bad usage)."""
    from harness9.client.log_folder import open_daemon_log

    stdin_text = sys.stdin.read().strip() if "-" in argv else None
    try:
        arguments = exec_arguments(argv, stdin_text)
    except BackgroundUsage as exc:
        print(exc, file=sys.stderr)
        return 2
    log, path = open_daemon_log()
    with log:
        process = subprocess.Popen(
            [sys.executable, "-m", "harness9", *arguments], stdin=subprocess.DEVNULL,
            stdout=log, stderr=log, start_new_session=True,
        )
    print(f"Started in the background (pid {process.pid}) as a task in a git worktree of its "
          f"own; the workspace is untouched until you apply it.\n"
          f"  progress: {path}\n"
          f"  when it ends: harness9 tasks, then harness9 tasks apply SESSION")
    return 0
