"""How the pieces of a run (`run_state`) are printed in the terminal's transcript, and the rows
of its tool calls drawn."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.padding import Padding
from rich.text import Text

from harness9.client.child_rows import folded
from harness9.client.plan_view import checklist, compact
from harness9.client.run_pieces import (
    Answer,
    Caution,
    CommandLine,
    Piece,
    PlanShown,
    Progress,
    Rows,
    RunHeader,
    Steered,
    Thinking,
    ToolCall,
    TurnHeading,
)
from harness9.client.tool_row import ToolRow
from harness9.visible_text import visible


class RowDrawings:
    """The drawn rows of the calls on screen, one per row of the run, kept from one refresh to
    the next so that their spinners turn and their elapsed times run from when they started."""

    def __init__(self) -> None:
        self._rows: dict[int, ToolRow] = {}
        self._ends: dict[int, Progress] = {}  # the notification each row was finished with

    def draw(self, call: ToolCall) -> ToolRow:
        """The call's row, brought up to its state."""
        row = self._rows.get(call.number)
        if row is None:
            row = ToolRow(call.tool, call.kind, call.arguments, asked=call.status == "waiting")
            self._rows[call.number] = row
        if row.waiting and call.status == "running":
            row.start()
        row.live = call.live
        row.children = [line for _, line in call.children]
        row.folded = folded(call)
        if call.ended is not None and call.ended is not self._ends.get(call.number):
            self._ends[call.number] = call.ended
            row.finish(call.ended, ok=call.status == "completed")
        return row

    def take(self, call: ToolCall) -> ToolRow:
        """The call's row for the last time: it goes to the transcript."""
        row = self.draw(call)
        del self._rows[call.number]
        self._ends.pop(call.number, None)
        return row


def drawn(piece: Piece, console: Console, rows: RowDrawings) -> list[RenderableType]:
    """What the transcript prints for `piece`, in order."""
    match piece:
        case RunHeader(provider, model, root):
            return [Text(f"harness9 · {provider} · {model} · {root}", style="dim")]
        case CommandLine(name, arguments):
            return [Text(f"/{name} {visible(arguments)}".rstrip(), style="dim")]
        case TurnHeading(turn):
            heading = Text(f"● turn {turn}", style="bold cyan")
            return [Text(""), heading] if turn > 1 else [heading]
        case Thinking(text):
            return [Text(f"  thinking: {text}", style="dim italic")]
        case Answer(text):
            return [answer(text, console)]
        case Rows(calls):
            return [Group(*(rows.take(call).render() for call in calls))]
        case Caution(text):
            return [Text(f"! {text}", style="yellow")]
        case Steered(text):
            shown = visible(text, lines=True)
            return [Text.assemble(("↪ you: ", "bold magenta"), (shown, "magenta"))]
        case PlanShown(plan, whole):
            return [checklist(plan) if whole else compact(plan)]
    return []


def answer(text: str, console: Console) -> RenderableType:
    """The model's text as the transcript keeps it: rendered Markdown, or the text itself
    where lines are kept whole (piped: see `stdout_console`; Markdown is plain text)."""
    if console.soft_wrap:
        return Text("\n".join(f"  {line}".rstrip() for line in text.splitlines()))
    return Padding(Markdown(text), (0, 0, 0, 2))
