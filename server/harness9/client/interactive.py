"""`harness9 run` without a prompt on a terminal (or with `--interactive`): one prompt per line.

All prompts share one daemon and one session, so each run continues the conversation. Ctrl-C
cancels the run in flight; at the prompt it ends the session, as does Ctrl-D (end of input).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from harness9.client.config import RunOptions
from harness9.client.session import CtrlC, run_once
from harness9.client.views import ViewSlot

if TYPE_CHECKING:
    from harness9.client.rpc import DaemonClient

PROMPT = "› "
QUIT = object()


async def converse(
    client: DaemonClient,
    options: RunOptions,
    ctrl_c: CtrlC,
    slot: ViewSlot,
    notes: list[tuple[str, Path]],
) -> int:
    """Run prompt after prompt; returns the last run's exit code (130 if quit with Ctrl-C)."""
    session_id = options.run_params.get("sessionId")
    code = 0
    if not options.json:
        print(f"harness9 · {options.workspace} · Ctrl-D or Ctrl-C to quit", flush=True)
    while True:
        line = await _read_line(ctrl_c, "" if options.json else PROMPT)
        if line is None or line is QUIT:
            code = 130 if line is QUIT else code
            if not options.json:
                print(flush=True)  # end the prompt's line
            break
        assert isinstance(line, str)
        if not line.strip():
            continue
        params = {**options.run_params, "prompt": line.strip()}
        if session_id:
            params["sessionId"] = session_id
        view = slot.open()
        outcome = await run_once(client, params, ctrl_c)
        view.finished(outcome, [])
        session_id = outcome.session_id or session_id
        code = outcome.exit_code
    slot.notes(notes)
    return code


async def _read_line(ctrl_c: CtrlC, prompt: str) -> object:
    """The next line of input; None at end of input, QUIT on Ctrl-C."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[object] = loop.create_future()

    def settle(value: object) -> None:
        if not answer.done():
            answer.set_result(value)

    def read() -> None:
        try:
            line: object = input(prompt) if prompt else _readline()
        except (EOFError, OSError, ValueError):
            line = None
        loop.call_soon_threadsafe(settle, line)

    # A daemon thread, because a blocked read cannot be interrupted and must not hold up exit.
    threading.Thread(target=read, name="harness9-prompt", daemon=True).start()
    ctrl_c.on_idle = lambda: settle(QUIT)
    try:
        return await answer
    finally:
        ctrl_c.on_idle = None


def _readline() -> str:
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line
