"""`harness9 restore [CHECKPOINT]`: the checkpoints of a workspace's session, and going back to one.

Without a checkpoint it lists the session's checkpoints, newest first (`agent/checkpoints`, each
with the prompt of its run from `agent/session`); with one (its id, or the start of it) it puts
the workspace's files back as they were then (`agent/restore`) and says which files changed and
how to undo that. The session is `--session`, else the workspace's newest; a checkpoint id given
without `--session` is looked for in every session of the workspace, newest first.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness9.client import format as fmt
from harness9.client.stored_sessions import local_time, serves, stored_sessions

if TYPE_CHECKING:
    from harness9.client.rpc import DaemonClient

SHORT_ID = 12  # characters of a checkpoint id shown: enough to name it
NO_CHECKPOINTS_METHOD = (
    "harness9: this daemon does not keep checkpoints (agent/checkpoints is not among its "
    "methods); update harness9.\n"
)


class RestoreError(Exception):
    """The checkpoint or session cannot be found or restored; the message is shown as is."""


@dataclass(frozen=True, slots=True)
class RestoreRequest:
    """What `harness9 restore` was asked for."""

    workspace: Path
    checkpoint: str | None = None
    session: str | None = None
    as_json: bool = False


def restore_command(
    workspace: str | None, checkpoint: str | None, session: str | None, as_json: bool
) -> int:
    """`harness9 restore`: list or restore checkpoints; returns the exit code."""
    root = Path(workspace or ".").resolve()
    if not root.is_dir():
        sys.stderr.write(f"harness9: the workspace {root} is not a directory.\n")
        return 2
    request = RestoreRequest(root, checkpoint, session, as_json)
    try:
        with open(os.devnull, "w", encoding="utf-8") as quiet:  # the daemon's log: not wanted
            return asyncio.run(_with_daemon(request, quiet))
    except RestoreError as exc:
        sys.stderr.write(str(exc))
        return 1
    except KeyboardInterrupt:
        return 130


async def _with_daemon(request: RestoreRequest, daemon_log: IO[str]) -> int:
    from harness9.client.process import spawn_daemon
    from harness9.client.rpc import DaemonClient

    process = await spawn_daemon(dict(os.environ), daemon_log)
    client = DaemonClient(lambda _params: None, lambda _message: None)
    client.attach(process)
    try:
        init_result = await client.initialize(request.workspace, {})
        if not serves(init_result, "agent/checkpoints"):
            sys.stderr.write(NO_CHECKPOINTS_METHOD)
            return 2
        if request.checkpoint:
            await _restore(client, request, request.checkpoint)
        else:
            await _list(client, request)
    finally:
        await client.close()
    return 0


async def _list(client: DaemonClient, request: RestoreRequest) -> None:
    """Print the session's checkpoints, newest first."""
    sessions = [request.session] if request.session else await _session_ids(client, request)
    if not sessions:
        print(f"no sessions in {request.workspace} yet: no checkpoints")
        return
    checkpoints = list(reversed(await _checkpoints(client, sessions[0])))
    if request.as_json:
        print(json.dumps({"sessionId": sessions[0], "checkpoints": checkpoints}))
        return
    if not checkpoints:
        print(f"no checkpoints in session {sessions[0]}")
        return
    prompts = await _run_prompts(client, sessions[0])
    console = Console(highlight=False)
    console.print(Text(f"checkpoints of session {sessions[0]}, newest first", style="bold"))
    console.print(checkpoint_table(checkpoints, prompts))
    console.print(Text("restore one: harness9 restore CHECKPOINT", style="dim"))


async def _restore(client: DaemonClient, request: RestoreRequest, wanted: str) -> None:
    """Restore the checkpoint `wanted` names and say what changed."""
    from harness9.client.rpc import RpcError

    session, checkpoint = await _find(client, request, wanted)
    params = {"sessionId": session, "checkpointId": checkpoint}
    try:
        answer = await client.request("agent/restore", params)
    except RpcError as exc:
        raise RestoreError(f"harness9: cannot restore {checkpoint}: {exc.message}\n") from None
    restored = [str(p) for p in (answer or {}).get("restored") or []]
    undo = next((c for c in reversed(await _checkpoints(client, session))
                 if c.get("undoes") == checkpoint), None)
    if request.as_json:
        print(json.dumps({"sessionId": session, "checkpointId": checkpoint,
                          "restored": restored, "undo": undo and undo.get("checkpointId")}))
        return
    print(restored_text(checkpoint, restored, undo and str(undo.get("checkpointId"))))


def restored_text(checkpoint: str, restored: list[str], undo: str | None) -> str:
    """What a restore did, as the terminal says it."""
    short = checkpoint[:SHORT_ID]
    if restored:
        files = "".join(f"\n  {path}" for path in restored)
        head = f"restored checkpoint {short}: {len(restored)} file(s) changed{files}"
    else:
        head = f"restored checkpoint {short}: the files were already as they were then"
    lines = [head, "the session's conversation went back to that point too"]
    if undo:
        lines.append(f"undo this: harness9 restore {undo[:SHORT_ID]}")
    return "\n".join(lines)


async def _find(client: DaemonClient, request: RestoreRequest, wanted: str) -> tuple[str, str]:
    """The session holding the checkpoint whose id is (or starts with) `wanted`, and its id."""
    sessions = [request.session] if request.session else await _session_ids(client, request)
    for session in sessions:
        ids = [str(c.get("checkpointId")) for c in await _checkpoints(client, session)]
        found = [i for i in ids if i == wanted] or [i for i in ids if i.startswith(wanted)]
        if len(found) > 1:
            raise RestoreError(f"harness9: {wanted} names {len(found)} checkpoints; give more "
                               "of the id.\n")
        if found:
            return session, found[0]
    where = f"session {request.session}" if request.session else f"{request.workspace}"
    raise RestoreError(f"harness9: no checkpoint {wanted} in {where}; list them with: "
                       "harness9 restore\n")


async def _session_ids(client: DaemonClient, request: RestoreRequest) -> list[str]:
    """The workspace's sessions, newest first."""
    return [str(s.get("sessionId")) for s in await stored_sessions(client, request.workspace)]


async def _checkpoints(client: DaemonClient, session: str) -> list[dict[str, Any]]:
    """The session's checkpoints, oldest first, as `agent/checkpoints` gives them."""
    from harness9.client.rpc import RpcError

    try:
        answer = await client.request("agent/checkpoints", {"sessionId": session})
    except RpcError as exc:
        raise RestoreError(f"harness9: session {session}: {exc.message}\n") from None
    listed = answer.get("checkpoints") if isinstance(answer, dict) else None
    return [c for c in listed or [] if isinstance(c, dict)]


async def _run_prompts(client: DaemonClient, session: str) -> dict[str, str]:
    """Run id → its prompt, from `agent/session` (none when it cannot be read)."""
    from harness9.client.rpc import RpcError

    try:
        shown = await client.request("agent/session", {"sessionId": session})
    except RpcError:
        return {}
    runs = shown.get("runs") if isinstance(shown, dict) else None
    return {str(r.get("runId")): str(r.get("prompt") or "") for r in runs or []
            if isinstance(r, dict)}


def checkpoint_table(checkpoints: list[dict[str, Any]], prompts: dict[str, str]) -> Table:
    """Checkpoints as rows: when, id, and what (the run's prompt and turn, or the restore it
    undoes), with the files changed since the one before."""
    grid = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    for name in ("taken", "checkpoint", "what"):
        grid.add_column(name)
    for checkpoint in checkpoints:
        grid.add_row(local_time(str(checkpoint.get("createdAt", ""))),
                     str(checkpoint.get("checkpointId"))[:SHORT_ID], _summary(checkpoint, prompts))
    return grid


def _summary(checkpoint: dict[str, Any], prompts: dict[str, str]) -> str:
    if checkpoint.get("undoes"):
        what = f"before restoring {str(checkpoint['undoes'])[:SHORT_ID]}"
    else:
        prompt = fmt.shorten(prompts.get(str(checkpoint.get("runId")), "") or "(a run)", 50)
        what = f"turn {checkpoint.get('turn')} of “{prompt}”"
    files = [str(f) for f in checkpoint.get("files") or []]
    if files:
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        what += f" · changed: {shown}"
    return what
