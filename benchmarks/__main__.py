"""`python -m benchmarks`: run the cases, print the table, optionally write JSON.

Exit status: 0 when every target is met, 1 when some figure misses its target, 2 when a case
could not run at all.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import importlib
import sys
import time
from pathlib import Path

from rich.console import Console

from benchmarks import daemon
from benchmarks.core import REPO, Config, Row, error_row
from benchmarks.report import show, write_json

CASES = (
    "cold_start",
    "exec",
    "turn_overhead",
    "parallel_tools",
    "streaming",
    "edit_file",
    "edit_generated",
    "floods",
    "many_runs",
    "memory",
    "sandbox",
    "approvals",
    "checkpoints",
    "sessions",
    "history",
    "acp",
    "editor_files",
    "mcp",
    "steering",
    "caching",
    "diagnostics",
    "subagents",
    "worktrees",
)


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repetition")
    parser.add_argument("--smoke", action="store_true",
                        help="smaller still: only shows that every case runs (the tests' check)")
    parser.add_argument("--only", action="append", choices=CASES, metavar="CASE",
                        help=f"run only this case (repeatable): {', '.join(CASES)}")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows here")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per figure")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="run each daemon under cProfile, writing DIR/daemon-*.prof "
                        "(the figures then include the profiler's cost)")
    return parser.parse_args(argv)


async def _run_case(name: str, config: Config, console: Console) -> list[Row]:
    started = time.monotonic()
    try:
        module = importlib.import_module(f"benchmarks.{name}")
        rows: list[Row] = await module.run(config)
    except Exception as exc:
        rows = [error_row(name.replace("_", " "), exc)]
    console.print(f"[dim]{name}: {time.monotonic() - started:.1f} s[/]", highlight=False)
    return rows


async def _main(args: argparse.Namespace, console: Console) -> list[Row]:
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
        daemon.PROFILE_DIR[:] = [args.profile]
    quick = args.quick or args.smoke
    config = Config(quick=quick, reps=args.reps or (1 if quick else 5), smoke=args.smoke)
    rows: list[Row] = []
    for name in args.only or CASES:
        rows += await _run_case(name, config, console)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = _parse(sys.argv[1:] if argv is None else argv)
    # A table read from a pipe or a log must not wrap its rows into unreadable cells.
    console = Console(width=None if sys.stdout.isatty() else 150)
    # The daemon as installed: its modules byte-compiled (pip does it), also where
    # PYTHONDONTWRITEBYTECODE keeps every start from caching them (each would compile them all).
    compileall.compile_dir(REPO / "server" / "harness9", quiet=1)
    rows = asyncio.run(_main(args, console))
    mode = " (smoke)" if args.smoke else " (quick)" if args.quick else ""
    show(rows, console, "harness9 benchmarks" + mode)
    if args.json:
        write_json(rows, args.json)
    if any(row.ours is None for row in rows):
        return 2
    return 0 if all(row.passed for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
