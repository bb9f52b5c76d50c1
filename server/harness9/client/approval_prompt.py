"""`harness9 run` answers the daemon's `agent/requestApproval`: in the terminal when there is one.

The live view steps aside while the question is on screen: the command (bash) or the diff (file
tools), then a choice of allow once, allow for this session, or reject with a reason: one key
(`a`, `s` or `r`, no Enter) on a terminal. Without a
terminal to ask on (`--json`, or input that is not a terminal) a question is a rejection that
says how to allow such calls: `--yes`, `--approvals`, or approval rules in the settings.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.text import Text

from harness9.client.lines import read_key, read_line, read_terminal_line
from harness9.client.views import ViewSlot
from harness9.visible_text import visible

NO_TERMINAL = (
    "there is no terminal to ask the user on; rerun with --yes (or --approvals auto-edit / yolo) "
    "to let such calls run"
)
CHOICES = {"a": "allow_once", "s": "allow_session", "r": "reject"}
PROMPT = "allow [a]once, for this [s]ession, or [r]eject? "


class TerminalApprover:
    """Puts each question to the user; one at a time, as the daemon sends them."""

    def __init__(self, slot: ViewSlot, can_ask: bool, console: Console | None = None) -> None:
        self._slot = slot
        self._can_ask = can_ask
        self._console = console or Console(highlight=False)

    async def answer(self, params: dict[str, Any]) -> dict[str, Any]:
        """The answer to one `agent/requestApproval`."""
        if not self._can_ask:
            return {"decision": "reject", "message": NO_TERMINAL}
        with self._slot.aside():
            self._console.print(question(params))
            answer: dict[str, Any] = {"decision": await self._choice()}
            if answer["decision"] == "reject":
                reason = await _read_reason()
                if reason and reason.strip():
                    answer["message"] = reason.strip()
            # The typed line is gone once the live view resumes: say what was decided.
            self._console.print(_decided(answer), highlight=False)
            return answer

    async def _choice(self) -> str:
        """One key on a terminal (no Enter needed), else a line."""
        while True:
            line = await (read_key(PROMPT) if sys.stdin.isatty() else read_line(PROMPT))
            if line is None:  # end of input: nobody can answer
                return "reject"
            choice = CHOICES.get(line.strip().lower()[:1])
            if choice is not None:
                return choice
            self._console.print("[yellow]please type a, s or r[/]")


async def _read_reason() -> str | None:
    prompt = "reason (for the model; Enter for none): "
    return await (read_terminal_line(prompt) if sys.stdin.isatty() else read_line(prompt))


def _decided(answer: dict[str, Any]) -> Text:
    if answer["decision"] == "allow_once":
        return Text("  → allowed once", style="green")
    if answer["decision"] == "allow_session":
        return Text("  → allowed for this session", style="green")
    reason = f": {answer['message']}" if answer.get("message") else ""
    return Text(f"  → rejected{reason}", style="red")


def question(params: dict[str, Any]) -> RenderableType:
    """The question as the user sees it: what would run, or what would change, and why it is
    asked when the daemon says. Every text goes through `visible`: a carriage return or an
    escape sequence in a command or a file must not hide part of it on the terminal."""
    parts: list[RenderableType] = []
    diff, arguments = params.get("diff"), params.get("arguments") or {}
    if isinstance(diff, str):
        shown = visible(diff.rstrip("\n"), lines=True) or "(no change)"
        parts.append(Syntax(shown, "diff", theme="ansi_dark"))
    elif params.get("toolKind") == "execute" and isinstance(arguments.get("command"), str):
        parts.append(Syntax(visible(arguments["command"], lines=True), "bash", theme="ansi_dark"))
    elif arguments:
        parts.append(Text(visible(str(arguments))))
    if isinstance(params.get("reason"), str):
        parts.append(Text(f"asked because it {visible(params['reason'])}", style="yellow"))
    who = f"the {params['agent']} agent" if isinstance(params.get("agent"), str) else "harness9"
    title = Text.assemble(
        (f"{who} asks to run ", "bold"), (visible(str(params.get("title"))), "bold cyan")
    )
    return Panel(
        Group(*parts) if parts else Text(""), title=title, title_align="left", border_style="yellow"
    )
