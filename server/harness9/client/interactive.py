"""`harness9 run` without a prompt on a terminal (or with `--interactive`): one prompt per line.

All prompts share one daemon and one session, so each run continues the conversation. Ctrl-C
cancels the run in flight; at the prompt it ends the session, as does Ctrl-D (end of input).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness9.client.daemon_session import CtrlC, run_once
from harness9.client.lines import read_line
from harness9.client.run_config import RunOptions
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
    answer = read_line(prompt)
    quit_ = asyncio.Event()
    ctrl_c.on_idle = quit_.set
    waiter = asyncio.ensure_future(quit_.wait())
    either: set[asyncio.Future[Any]] = {answer, waiter}
    try:
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    finally:
        ctrl_c.on_idle = None
        waiter.cancel()
    return QUIT if quit_.is_set() else answer.result()
