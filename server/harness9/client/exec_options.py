"""`harness9 exec`'s own options and exit codes (the options it shares with `run` are `cli`'s).

Light on purpose: the parser is built for every command, `serve` included, so this module
imports nothing but argparse.
"""

from __future__ import annotations

import argparse

# The exit code of each way a headless run can end; 0 only for a run that completed.
EXIT_CODES = {
    "completed": 0,
    "error": 1,  # the model's service (auth, rate limit, network, HTTP) or the daemon failed
    "usage": 2,  # bad command line, unreadable schema, no provider configured
    "max_turns": 3,
    "declined": 4,  # a call was declined and the run never did that kind of work another way
    "schema_failed": 5,  # the answer was not JSON valid against --output-schema, twice
    "cancelled": 130,  # SIGINT (SIGTERM: 143)
}
SIGTERM_EXIT = 143

EXEC_EPILOG = """without a person:
  A call the approval mode would ask about is declined, and the model is told why. The
  default mode is read-only (reads run; edits, commands and MCP tools are declined);
  --approvals auto-edit / auto / yolo (or --yes) lets more run.

output:
  stdout: a completed run's answer (with --output-schema: the JSON value); progress on stderr.
  --json: progress as JSON lines, then one {"type": "result", ...} record.

exit codes:
  0    the run completed
  1    the run failed: the model's service (auth, rate limit, network, HTTP) or the daemon
  2    bad usage, an unreadable --output-schema, or no model provider configured
  3    the run stopped at --max-turns
  4    a call was declined and the run did no work of that kind another way
  5    the answer was not valid against --output-schema, after asking again once
  130  cancelled by SIGINT (Ctrl-C); 143 by SIGTERM
"""

MODES = ["read-only", "ask", "auto-edit", "auto", "yolo"]


def add_exec_options(parser: argparse.ArgumentParser) -> None:
    """The options `exec` has and `run` has not (or has with another default)."""
    parser.add_argument(
        "--approvals",
        choices=MODES,
        help="which tool calls run (default read-only); a call this mode would ask about is "
        "declined, since nobody is there to answer",
    )
    parser.add_argument(
        "-y", "--yes", action="store_true", help="let every tool call run (= --approvals yolo)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help='progress as JSON lines on stdout, then one {"type": "result", …} record',
    )
    parser.add_argument(
        "--output-schema",
        metavar="FILE",
        help="the final answer must be JSON valid against this JSON Schema (asked again once, "
        "then exit 5)",
    )
    parser.add_argument("--verbose", action="store_true", help="show the daemon's log live")
