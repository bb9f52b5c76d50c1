"""Problems the editor's language servers report: after each edit, and on the model's request.

A front-end that knows an editor able to tell its problems plugs in a `ProblemSource`; for
other clients the daemon's own language servers are one (`origin` says which). Then:

- `ProblemsStep` (registry middleware) asks for a file's problems before and after each call of
  an edit tool and appends to the result what is new (at most `MAX_SHOWN`, errors first), or
  says there is nothing new; the result carries them for the editors too.
- `DiagnosticsTool` gives the model the current problems of a file or of the workspace.

Problems are matched across an edit by what they say (severity, source, code, message), not by
line: an edit that moves code moves its old problems, which are not new.

What the editor says is data, not the daemon's word: the model reads the problems inside an
`<editor-diagnostics>` block, one a line, every part cut and escaped (a newline in a message is
`\\n`), so that no message can end the block, start a line of its own, or pass for the daemon's
"No new problems".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from harness9.schema import Problem, ToolCall, ToolDefinition, ToolKind
from harness9.tools.contract import (
    BaseTool,
    ToolOutput,
    as_output,
    parse_arguments,
    string_property,
    tool_definition,
)
from harness9.tools.registry import Proceed
from harness9.visible_text import visible

MAX_SHOWN = 20
# Characters of a problem's parts the model reads (the rest is cut, the cut marked).
MAX_SHOWN_MESSAGE = 300
MAX_SHOWN_LABEL = 60
MAX_SHOWN_PATH = 200
BLOCK_START = "<editor-diagnostics>"
BLOCK_END = "</editor-diagnostics>"
_MARKER = re.compile(r"<(/?editor-diagnostics)", re.IGNORECASE)
_SEVERITY_ORDER = {"error": 0, "warning": 1, "information": 2, "hint": 3}
# Of the problems after an edit, those the model is told about.
REPORTED = ("error", "warning")


class ProblemSource(Protocol):
    """Where the problems of the workspace's files come from: the editor (`origin` "editor"),
    or the language servers the daemon runs itself ("harness9")."""

    origin: str

    def covers(self, path: str) -> bool:
        """Whether the source checks the file at `path` at all (an edit of a file no language
        server checks is left as it is)."""
        ...

    async def problems(
        self, path: str | None, *, settled: bool, timeout: float
    ) -> list[Problem] | None:
        """The problems of the file at `path` (None: every file the editor knows of); with
        `settled`, once they are for the file's current text (after an edit). The editor may
        wait `timeout` seconds for them (0: it answers with what it has now); None when it did
        not answer in time."""
        ...


def new_problems(before: Sequence[Problem], after: Sequence[Problem]) -> list[Problem]:
    """The problems of `after` that `before` did not have (as many times as they repeat), the
    errors and warnings only, most severe first."""
    known = Counter(p.key() for p in before)
    fresh = []
    for problem in sorted(after, key=lambda p: (_SEVERITY_ORDER.get(p.severity, 9), p.line)):
        if known[problem.key()] > 0:
            known[problem.key()] -= 1
        elif problem.severity in REPORTED:
            fresh.append(problem)
    return fresh


def shown(problem: Problem) -> str:
    """One problem on one line, as the model reads it: every part the editor chose cut and
    escaped (the block's own markers too)."""
    return replace(
        problem,
        path=_escaped(problem.path, MAX_SHOWN_PATH),
        message=_escaped(problem.message, MAX_SHOWN_MESSAGE),
        source=_escaped(problem.source, MAX_SHOWN_LABEL) if problem.source else None,
        code=_escaped(problem.code, MAX_SHOWN_LABEL) if problem.code else None,
    ).shown()


def _escaped(text: str, limit: int) -> str:
    return _MARKER.sub(r"\\x3c\1", visible(text, limit))


def listing(problems: Sequence[Problem], limit: int = MAX_SHOWN) -> str:
    """Problems one a line, at most `limit`, then how many more there are, in a block that
    marks them as the editor's data."""
    lines = [shown(p) for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"… and {len(problems) - limit} more")
    return "\n".join([BLOCK_START, *lines, BLOCK_END])


class ProblemsStep:
    """Registry middleware: an edit's result ends with the problems it brought (or says there
    are none new), from the editor's language servers once they have seen the edit."""

    def __init__(self, source: ProblemSource, wait: float) -> None:
        self._source = source
        self._wait = wait

    async def __call__(
        self, call: ToolCall, tool: BaseTool, arguments: dict[str, Any], proceed: Proceed
    ) -> str | ToolOutput:
        """Run the call; when it edited a file, add the file's new problems."""
        path = arguments.get("path")
        if (tool.definition().kind is not ToolKind.EDIT or not isinstance(path, str)
                or not self._source.covers(path)):
            return await proceed()
        # What the editor shows now, at once: asking must not hold the edit up.
        before = await self._source.problems(path, settled=False, timeout=0)
        output = as_output(await proceed())
        shown = output.edit.path if output.edit is not None else path
        where = visible(shown, MAX_SHOWN_PATH)
        after = await self._source.problems(path, settled=True, timeout=self._wait)
        origin = self._source.origin
        if after is None:
            note = (f"({_reporter(origin).capitalize()} reported no problems for {where} within "
                    f"{self._wait:g} s; call diagnostics later to check.)")
            return _noted(output, note, None, origin)
        fresh = new_problems(before or [], after)
        if not fresh:
            return _noted(output, f"No new problems in {where}.", (), origin)
        note = (f"New problems in {where} after this edit, as {_servers(origin)} "
                f"report them:\n{listing(fresh)}")
        return _noted(output, note, tuple(fresh), origin)


def _reporter(origin: str) -> str:
    """Who reports the problems, as the model reads it."""
    return "the editor" if origin == "editor" else "the language servers"


def _servers(origin: str) -> str:
    """Whose language servers report the problems, as the model reads it."""
    return "the editor's language servers" if origin == "editor" else "the language servers"


def _noted(output: ToolOutput, note: str, problems: tuple[Problem, ...] | None,
           origin: str) -> ToolOutput:
    text = f"{output.text.rstrip()}\n\n{note}"
    return replace(output, text=text, bytes=output.bytes + len(note.encode()) + 2,
                   problems=problems, problems_source=origin)


_DESCRIPTION = """\
The problems (errors and warnings) {servers} report now, with their lines: of one file, or of \
every file {checker} has checked when path is left out. Edits already report the problems they \
bring; call this to see a file's problems before you change it, or after commands changed \
files."""


class DiagnosticsTool:
    """The editor's current problems, for the model."""

    name = "diagnostics"

    def __init__(self, source: ProblemSource, wait: float) -> None:
        self._source = source
        self._wait = wait

    def definition(self) -> ToolDefinition:
        """The description and JSON Schema offered to the model."""
        path = string_property("File path relative to the workspace root; omit for all files")
        origin = self._source.origin
        checker = "the editor" if origin == "editor" else "a language server"
        description = _DESCRIPTION.format(servers=_servers(origin), checker=checker)
        return tool_definition(self.name, description, {"path": path}, [], kind=ToolKind.READ)

    async def execute(self, arguments: str) -> ToolOutput:
        """List the problems, most severe first."""
        text = await self._answer(parse_arguments(arguments).get("path"))
        return ToolOutput(text, len(text.encode()), problems_source=self._source.origin)

    async def _answer(self, path: Any) -> str:
        if path is not None and not isinstance(path, str):
            path = None
        found = await self._source.problems(path or None, settled=False, timeout=self._wait)
        where = visible(path, MAX_SHOWN_PATH) if path else "the workspace"
        origin = self._source.origin
        if found is None:
            return (f"{_reporter(origin).capitalize()} did not report the problems of {where} "
                    f"within {self._wait:g} s.")
        if not found:
            return f"No problems reported in {where}."
        ordered = sorted(found, key=lambda p: (_SEVERITY_ORDER.get(p.severity, 9), p.path,
                                               p.line))
        return (f"{len(found)} problems in {where}, as {_servers(origin)} report "
                f"them:\n{listing(ordered, 50)}")
