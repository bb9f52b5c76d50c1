"""Background tasks from the terminal: `harness9 tasks` lists them, `harness9 tasks apply ID`
applies one to its workspace, `harness9 tasks discard ID` removes its worktree. Each asks a
daemon it starts (`agent/tasks`, `agent/applyTask`, `agent/discardTask`)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness9.client.stored_sessions import serves

_TITLE_WIDTH = 48
NO_TASKS_METHOD = ("harness9: this daemon has no background tasks (agent/tasks is not among "
                   "its methods); update harness9.\n")
METHODS = {"apply": "agent/applyTask", "discard": "agent/discardTask"}


def tasks_command(action: str | None, task: str | None, as_json: bool) -> int:
    """`harness9 tasks [apply|discard ID]`; returns the exit code."""
    if (action is None) != (task is None):
        sys.stderr.write("harness9: name the task: harness9 tasks apply|discard SESSION\n")
        return 2
    try:
        with open(os.devnull, "w", encoding="utf-8") as quiet:  # the daemon's log: not wanted
            return asyncio.run(_ask(action, task, as_json, quiet))
    except KeyboardInterrupt:
        return 130


async def _ask(action: str | None, task: str | None, as_json: bool, daemon_log: IO[str]) -> int:
    from harness9.client.process import spawn_daemon
    from harness9.client.rpc import DaemonClient, RpcError

    process = await spawn_daemon(dict(os.environ), daemon_log)
    client = DaemonClient(lambda _params: None, lambda _message: None)
    client.attach(process)
    try:
        init_result = await client.initialize(Path.cwd(), {})
        if not serves(init_result, "agent/tasks"):
            sys.stderr.write(NO_TASKS_METHOD)
            return 2
        if action is None:
            answer = await client.request("agent/tasks", {})
        else:
            answer = await client.request(METHODS[action], {"sessionId": task})
    except RpcError as exc:
        sys.stderr.write(f"harness9: {exc.message}\n")
        return 1
    finally:
        await client.close()
    if as_json:
        print(json.dumps(answer, ensure_ascii=False))
        return 0 if answer.get("applied", True) else 1
    return _show(action, task, answer)


def _show(action: str | None, task: str | None, answer: dict[str, Any]) -> int:
    console = Console(highlight=False)
    if action == "discard":
        console.print(f"discarded {task}: its worktree and branch are removed")
    elif action == "apply" and answer.get("applied"):
        files = answer.get("files") or []
        console.print(f"applied {task}: {len(files)} file{'s' if len(files) != 1 else ''} "
                      "written" + "".join(f"\n  {name}" for name in files))
    elif action == "apply":
        console.print(f"not applied: {len(answer.get('conflicts') or [])} file(s) conflict "
                      "with the workspace; nothing was written")
        for hunk in answer.get("hunks") or []:
            console.print(f"\n[bold]{hunk['path']}[/bold]", markup=True)
            console.print(hunk["text"], markup=False)
        return 1
    elif not answer.get("tasks"):
        console.print("no background tasks")
    else:
        console.print(_table(answer["tasks"]))
    return 0


def _table(tasks: list[dict[str, Any]]) -> Table:
    grid = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    for name in ("session", "status", "files", "+", "-", "branch"):
        grid.add_column(name, justify="right" if name in ("files", "+", "-") else "left")
    # What each task was asked to do, cut to one line: the column that gives way when narrow.
    grid.add_column("task", no_wrap=True, overflow="ellipsis", max_width=_TITLE_WIDTH)
    for task in tasks:
        grid.add_row(str(task["sessionId"]), str(task["status"]),
                     str(len(task["changedFiles"])), f"+{task['insertions']}",
                     f"-{task['deletions']}", str(task["worktree"]["branch"]),
                     Text(str(task.get("title") or "")))
    return grid
