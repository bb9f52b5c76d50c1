"""`harness9 run` without a prompt on a terminal (or with `--interactive`): one prompt per line.

All prompts share one daemon and one session, so each run continues the conversation. Ctrl-C
cancels the run in flight; Ctrl-D (end of input) ends the session. On a terminal the prompt is a
line editor (see `prompt_editor`: history, Alt-Enter, completion; Ctrl-C clears the line there);
from a pipe, lines are read as they come (Ctrl-C ends the session). `@path` words that name
workspace files attach those files to the prompt.

On a terminal the user can type while a run streams: Enter steers the run (`agent/steer`), Tab
queues a prompt behind it (see `conversation`). `/plan PROMPT` runs in plan mode, `/go` carries
out the plan, `/model` lists or picks the model (see `slash`); every other `/name` is sent as a
prompt, which the daemon runs as its command (`/clear` and `/resume ID` answer with the session
to continue in). Without a terminal (or with `--json`) each line waits for the run before it.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness9.client.conversation import Conversation
from harness9.client.daemon_session import CtrlC, run_once
from harness9.client.lines import read_line
from harness9.client.outcome import Outcome
from harness9.client.run_config import RunOptions
from harness9.client.slash import Slash, commands_text
from harness9.client.views import ViewSlot, stdout_console

if TYPE_CHECKING:
    from rich.text import Text

    from harness9.client.rpc import DaemonClient

PROMPT = "› "
QUIT = object()
LOCAL_COMMANDS = ("/plan", "/go", "/model", "/help", "/unqueue")
HELP = """\
  /plan PROMPT   investigate and write a plan, change nothing (approval mode plan)
  /go [PROMPT]   carry out the plan (with more instructions if given)
  /model [provider:]ID [low|medium|high]
                 pick the model (and its reasoning effort); /model alone lists them
  /help          this list
  @PATH          attach a workspace file to the prompt (Tab completes it)
At the prompt: Up and Down recall earlier prompts, Alt-Enter starts a new line, Tab completes,
Ctrl-C clears the line, Ctrl-D quits.
While a run streams: type, then Enter to steer it (the agent reads it at its next step), or
Tab to queue it as the next prompt; /unqueue takes the newest queued prompt back."""
_MENTION = re.compile(r"(?:^|(?<=\s))@(\S+)")
Reader = Callable[[str, str], Awaitable[str | None]]  # (prompt, prefill) → a line, None at EOF
PLAN_DONE = "/go carries out the plan (or say what to change in it)"


async def converse(
    client: DaemonClient,
    options: RunOptions,
    ctrl_c: CtrlC,
    slot: ViewSlot,
    notes: list[tuple[str, Path]],
    *,
    typing: bool = False,
) -> int:
    """Run prompt after prompt; returns the last run's exit code (130 if quit with Ctrl-C).
    With `typing`, what is typed while a run streams steers it or queues prompts."""
    session_id = options.run_params.get("sessionId")
    base = dict(options.run_params)  # the params of every prompt (/model changes them)
    live = typing
    code, prefill = 0, ""
    slash = Slash(client, options.workspace, as_json=options.json, say=_say)
    await slash.load_commands(session_id)
    reader = _reader(options, slash)
    if not options.json:
        print(f"harness9 · {options.workspace} · /help · Ctrl-D to quit", flush=True)
    while True:
        line = await _read_line(reader, ctrl_c, "" if options.json else PROMPT, prefill)
        if line is None or line is QUIT:
            code = 130 if line is QUIT else code
            if not options.json:
                print(flush=True)  # end the prompt's line
            break
        assert isinstance(line, str)
        command, _, rest = line.strip().partition(" ")
        if command == "/model":
            base = await slash.model(rest, session_id, base)
            continue
        params = with_mentions(prompt_params(base, line.strip(), session_id), options.workspace)
        slot.planned = False
        if params is None:
            if line.strip():
                _help(slash, options.json)
            continue
        outcome, session_id, prefill = await _prompt(
            client, slot, ctrl_c, (base, params, session_id), typing=live)
        if outcome is not None:
            code = outcome.exit_code
            _after(params, outcome, not options.json and slot.planned)
            if not options.json:
                await _moved(client, outcome, params.get("sessionId"))
    slot.notes(notes)
    return code


async def _prompt(
    client: DaemonClient, slot: ViewSlot, ctrl_c: CtrlC,
    asked: tuple[dict[str, Any], dict[str, Any], str | None], *, typing: bool,
) -> tuple[Any, str | None, str]:
    """Run one prompt (`asked`: the base params, this prompt's, the session); returns its
    outcome, the session it leaves and what was typed meanwhile, to prefill the next line."""
    base, params, session_id = asked
    if typing:
        conversation = Conversation(client, slot, ctrl_c, base, session_id, typing=True)
        outcome = await conversation.run(params)
        return outcome, conversation.session_id or session_id, conversation.editor.text
    view = slot.open()
    outcome = await run_once(client, params, ctrl_c)
    view.finished(outcome, [])
    return outcome, outcome.session_id or session_id, ""


def prompt_params(base: dict[str, Any], line: str, session_id: str | None) -> dict[str, Any] | None:
    """The `agent/run` params of a typed line; None for an empty line or `/help`."""
    command, _, rest = line.partition(" ")
    params = {k: v for k, v in base.items() if k not in ("plan", "executePlan")}
    if session_id:
        params["sessionId"] = session_id
    if command == "/plan" and rest.strip():
        return {**params, "prompt": rest.strip(), "plan": True}
    if command == "/go":
        params.pop("prompt", None)
        return {**params, "executePlan": True, **({"prompt": rest.strip()} if rest.strip() else {})}
    if not line or command in ("/help", "/plan"):
        return None
    return {**params, "prompt": line}


def with_mentions(params: dict[str, Any] | None, workspace: Path) -> dict[str, Any] | None:
    """`params` with the workspace files its prompt names as `@path` attached (`context`)."""
    if params is None or not isinstance(params.get("prompt"), str):
        return params
    attached = list(params.get("context") or [])
    for name in _MENTION.findall(params["prompt"]):
        path = (workspace / name.rstrip(".,;:!?)")).resolve()
        item = {"uri": path.as_uri(), "kind": "file"}
        if path.is_file() and path.is_relative_to(workspace) and item not in attached:
            attached.append(item)
    return {**params, "context": attached} if attached else params


def _reader(options: RunOptions, slash: Slash) -> Reader:
    """The line editor on a terminal; from a pipe (or with `--json`), plain lines."""
    if options.json or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return read_line
    from harness9.client.prompt_editor import PromptEditor

    def names() -> set[str]:  # asked at each Tab
        return {*LOCAL_COMMANDS, *slash.names()}

    return PromptEditor(options.workspace, names, options.env).read


def _help(slash: Slash, json: bool) -> None:
    """`/help`: the prompt's own commands, then the daemon's (not in JSON mode) but those the
    prompt answers itself (`/plan`, `/model`, `/help`: listed once, as the prompt reads them)."""
    print(HELP, flush=True)
    theirs = [c for c in slash.commands if f"/{c.get('name')}" not in LOCAL_COMMANDS]
    if theirs and not json:
        _say(commands_text(theirs))


async def _moved(client: DaemonClient, outcome: Outcome, before: Any) -> None:
    """Say where the session went after `/clear` or `/resume ID` (the answer's `sessionId`):
    a resumed one with a recap of what it was about (`agent/session`)."""
    from harness9.client.rpc import RpcError
    from harness9.client.stored_sessions import recap

    command = (outcome.result or {}).get("command")
    after = outcome.session_id
    if command not in ("clear", "resume") or not after or after == before:
        return
    if command == "resume":
        try:
            shown = await client.request("agent/session", {"sessionId": after})
        except RpcError:
            shown = None
        if isinstance(shown, dict):
            _say(recap(shown))
    print(f"continuing in session {after}", flush=True)


def _say(text: Text) -> None:
    """Print a note between runs."""
    stdout_console().print(text)


def _after(params: dict[str, Any], outcome: Outcome, planned: bool) -> None:
    """What to do next after a plan-mode run that wrote a plan (told on a terminal only)."""
    if params.get("plan") and outcome.status == "completed" and planned:
        print(PLAN_DONE, flush=True)


async def _read_line(reader: Reader, ctrl_c: CtrlC, prompt: str, prefill: str = "") -> object:
    """The next line of input; None at end of input, QUIT on SIGINT (Ctrl-C where the
    terminal is not the line editor's)."""
    answer = asyncio.ensure_future(reader(prompt, prefill))
    quit_ = asyncio.Event()
    ctrl_c.on_idle = quit_.set
    waiter = asyncio.ensure_future(quit_.wait())
    either: set[asyncio.Future[Any]] = {answer, waiter}
    try:
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    finally:
        ctrl_c.on_idle = None
        waiter.cancel()
        answer.cancel()  # the line editor gives the terminal back
    return QUIT if quit_.is_set() else answer.result()
