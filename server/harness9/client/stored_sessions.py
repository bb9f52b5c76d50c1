"""Stored sessions from the terminal: `harness9 sessions` lists them, `harness9 run --resume
[SESSION]` continues one (the newest of the workspace when no id is given).

Both ask the daemon (`agent/sessions`, `agent/session`), and only when its capabilities list
those methods: an older daemon gets a clear message instead of an unknown-method error.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness9.client import format as fmt
from harness9.client.plan import Plan
from harness9.client.plan_view import checklist

if TYPE_CHECKING:
    from harness9.client.rpc import DaemonClient

NO_SESSIONS_METHOD = (
    "harness9: this daemon does not keep sessions (agent/sessions is not among its methods); "
    "update harness9.\n"
)
RECAP_LINES = 3


class ResumeError(Exception):
    """The session to resume cannot be found; the message is shown as is."""


def serves(init_result: Any, method: str) -> bool:
    """Whether the daemon's `initialize` result lists `method` among its agent/* methods."""
    try:
        methods = init_result["capabilities"]["experimental"]["harness9"]["methods"]
    except (KeyError, TypeError):
        return False
    return isinstance(methods, list) and method in methods


async def stored_sessions(client: DaemonClient, workspace: Path) -> list[dict[str, Any]]:
    """The workspace's stored sessions, newest first."""
    answer = await client.request("agent/sessions", {"workspaceFolder": workspace.as_uri()})
    sessions = answer.get("sessions") if isinstance(answer, dict) else None
    return [s for s in sessions or [] if isinstance(s, dict)]


async def resume(
    client: DaemonClient, init_result: Any, workspace: Path, wanted: str
) -> tuple[str, Text]:
    """The session id to continue (`wanted`, or the newest when empty) and a recap to show."""
    if not serves(init_result, "agent/sessions"):
        raise ResumeError(NO_SESSIONS_METHOD)
    session_id = wanted
    if not session_id:
        sessions = await stored_sessions(client, workspace)
        if not sessions:
            raise ResumeError(f"harness9: no earlier session in {workspace} to resume.\n")
        session_id = str(sessions[0]["sessionId"])
    from harness9.client.rpc import RpcError

    try:
        shown = await client.request("agent/session", {"sessionId": session_id})
    except RpcError as exc:
        raise ResumeError(f"harness9: cannot resume {session_id}: {exc.message}\n") from None
    return session_id, recap(shown if isinstance(shown, dict) else {})


def recap(session: dict[str, Any]) -> Text:
    """What the resumed session was about: its title, runs, the last answer's first lines, and
    the last run's tasks as their rows ended live."""
    from harness9.client.stored_tasks import stored_tasks

    runs = session.get("runs") or []
    head = f"resuming {session.get('sessionId')} · {session.get('title') or '(untitled)'}"
    text = Text(f"{head} · {len(runs)} run{'s' if len(runs) != 1 else ''}", style="bold")
    answers = [
        m
        for m in session.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "assistant" and m.get("content")
    ]
    if answers:
        lines = fmt.markdown_lines(str(answers[-1]["content"]))[:RECAP_LINES]
        for line in lines:
            text.append(f"\n  {fmt.shorten(line, 96)}", style="dim")
    tasks = stored_tasks(session)
    if tasks is not None:
        text.append("\n")
        text.append_text(tasks)
    plan = session.get("plan")
    if isinstance(plan, dict) and plan.get("items"):
        text.append("\n")
        text.append_text(checklist(Plan.from_progress(plan)))
    return text


def table(sessions: list[dict[str, Any]]) -> Table:
    """The sessions as the terminal shows them."""
    grid = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    for name in ("updated", "session", "runs", "turns", "title"):
        grid.add_column(name, justify="right" if name in ("runs", "turns") else "left")
    for s in sessions:
        grid.add_row(
            local_time(str(s.get("updatedAt", ""))),
            str(s.get("sessionId")),
            str(s.get("runs", 0)),
            str(s.get("turns", 0)),
            fmt.shorten(str(s.get("title") or ""), 60),
        )
    return grid


def local_time(iso: str) -> str:
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def sessions_command(workspace: str | None, as_json: bool) -> int:
    """`harness9 sessions`: list the workspace's stored sessions; returns the exit code."""
    root = Path(workspace or ".").resolve()
    if not root.is_dir():
        sys.stderr.write(f"harness9: the workspace {root} is not a directory.\n")
        return 2
    try:
        with open(os.devnull, "w", encoding="utf-8") as quiet:  # the daemon's log: not wanted
            return asyncio.run(_list(root, as_json, quiet))
    except KeyboardInterrupt:
        return 130


async def _list(root: Path, as_json: bool, daemon_log: IO[str]) -> int:
    from harness9.client.process import spawn_daemon
    from harness9.client.rpc import DaemonClient

    process = await spawn_daemon(dict(os.environ), daemon_log)
    client = DaemonClient(lambda _params: None, lambda _message: None)
    client.attach(process)
    try:
        init_result = await client.initialize(root, {})
        if not serves(init_result, "agent/sessions"):
            sys.stderr.write(NO_SESSIONS_METHOD)
            return 2
        sessions = await stored_sessions(client, root)
    finally:
        await client.close()
    if as_json:
        print(json.dumps({"sessions": sessions}, ensure_ascii=False))
    elif not sessions:
        print(f"no sessions in {root} yet")
    else:
        console = Console(highlight=False)
        console.print(table(sessions))
        console.print(Text("continue one: harness9 run --resume SESSION", style="dim"))
    return 0
