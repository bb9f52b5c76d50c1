"""`textDocument/codeAction` for plain LSP clients: "Fix with harness9: <message>" for each
diagnostic in the range, and "harness9: <instruction>" for each instruction comment in it. Each
action is a command (`harness9.fix`, `harness9.run`) the client sends back to start a run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from harness9.lsp.instruction_comments import instructions_in
from harness9.lsp.plain_commands import FIX, RUN

if TYPE_CHECKING:
    from harness9.lsp.server import Harness9Server

_TITLE = 80  # characters of a message or an instruction in an action's title


def code_actions(ls: Harness9Server, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The actions for a range: quick fixes first, then the instruction comments."""
    uri = params.text_document.uri
    actions = [_fix(ls, uri, d) for d in params.context.diagnostics
               if d.source != "harness9"]
    document = ls.workspace.get_text_document(uri)
    found = instructions_in(document.source, params.range.start.line, params.range.end.line,
                            document.language_id)
    for instruction in found:
        title = f"harness9: {_short(instruction.text)}"
        arguments = [{"uri": uri, "instructionLine": instruction.line}]
        actions.append(types.CodeAction(
            title=title, kind=types.CodeActionKind.RefactorRewrite,
            command=types.Command(title=title, command=RUN, arguments=arguments)))
    return actions


def _fix(ls: Harness9Server, uri: str, diagnostic: types.Diagnostic) -> types.CodeAction:
    title = f"Fix with harness9: {_short(diagnostic.message)}"
    wire: Any = ls.protocol._converter.unstructure(diagnostic)
    return types.CodeAction(
        title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
        command=types.Command(title=title, command=FIX,
                              arguments=[{"uri": uri, "diagnostics": [wire]}]))


def _short(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= _TITLE else line[:_TITLE - 1] + "…"
