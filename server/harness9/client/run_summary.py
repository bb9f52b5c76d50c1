"""The line that ends a run in the terminal: how it ended, what it took, and why it failed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text

from harness9.client import format as fmt
from harness9.client.outcome import Outcome

STATUS_STYLE = {
    "completed": ("✓", "green"),
    "max_turns": ("■", "yellow"),
    "cancelled": ("■", "yellow"),
    "error": ("✗", "red"),
}
# A model the service does not offer (the daemon's error names it in `data.model`): how to pick
# another from the terminal.
OTHER_MODEL = "pick another with harness9 run --model [PROVIDER:]ID (or /model at the prompt)"


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What the view saw of a run: the answer's fields (`command` when the daemon ran one), its
    `run_finished`, its last usage notification, and how long it took in seconds."""

    result: dict[str, Any]
    finished: dict[str, Any]
    usage: dict[str, Any] | None
    seconds: float


def summary_line(outcome: Outcome, ran: RunFacts) -> Text:
    """`✓ completed · 2 turns · 3 tool calls · … · 4.2 s`, then the error, if any."""
    glyph, style = STATUS_STYLE.get(outcome.status, ("✗", "red"))
    parts = [outcome.status.replace("_", " ")]
    result, finished = ran.result, ran.finished
    if result.get("command") and not result.get("turns"):  # the daemon acted alone
        parts.append(f"/{result['command']}")
    else:
        turns = result.get("turns", finished.get("turns"))
        calls = result.get("toolCalls", finished.get("toolCalls"))
        if turns is not None:
            parts.append(f"{turns} turn{'s' if turns != 1 else ''}")
        if calls is not None:
            parts.append(f"{calls} tool call{'s' if calls != 1 else ''}")
        tokens = fmt.tokens(result.get("usage") or finished.get("usage"))
        parts.extend(p for p in (tokens, fmt.context_fill(ran.usage), fmt.cost(ran.usage)) if p)
    parts.append(fmt.human_duration(ran.seconds * 1000))
    line = Text.assemble((f"{glyph} ", style), (" · ".join(parts), style))
    if outcome.error is not None and outcome.status != "cancelled":
        line.append(f"\n  {error_text(outcome.error)}", style=style)
    return line


def error_text(error: dict[str, Any]) -> str:
    """The error's message and kind, with what to do from the terminal when there is more."""
    data = error.get("data") if isinstance(error.get("data"), dict) else {}
    kind = data.get("kind") if data else None
    message = str(error.get("message", "unknown error"))
    text = f"{message} ({kind})" if kind else message
    if data and data.get("model"):
        text += f"\n  {OTHER_MODEL}"
    return text
