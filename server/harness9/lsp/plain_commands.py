"""`workspace/executeCommand` for plain LSP clients: `harness9.run {prompt, uri?, range?,
newSession?}`, `harness9.fix {uri, diagnostics}`, `harness9.cancel {runId?}` and
`harness9.transcript {}`. A run command answers once its run has started, with its ids."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from harness9.lsp.agent_methods import parsed_params
from harness9.lsp.instruction_comments import Instruction, instruction_on
from harness9.lsp.param_fields import optional_bool, optional_str, required_str
from harness9.lsp.params import bind_context, parse_run_params
from harness9.service.config.settings import from_environment, resolve

if TYPE_CHECKING:
    from harness9.lsp.plain_runs import PlainSessions
    from harness9.lsp.server import Harness9Server

RUN, FIX, CANCEL, TRANSCRIPT = "harness9.run", "harness9.fix", "harness9.cancel", \
    "harness9.transcript"
_SESSIONS: dict[int, PlainSessions] = {}


def plain_sessions(ls: Harness9Server) -> PlainSessions:
    """The plain runs of this server."""
    # The plain runs' modules read the engine's events: loaded with the first command, so
    # that the daemon starts without the engine.
    from harness9.lsp.plain_runs import PlainSessions

    return _SESSIONS.setdefault(id(ls), PlainSessions())


def _arguments(arguments: Sequence[Any], command: str) -> Mapping[str, Any]:
    """A command's one argument object (none: an empty one)."""
    if not arguments or arguments[0] is None:
        return {}
    if not isinstance(arguments[0], Mapping):
        raise JsonRpcInvalidParams(message=f"{command} takes one object argument, got "
                                   f"{type(arguments[0]).__name__}")
    return arguments[0]


async def run_command(ls: Harness9Server, *arguments: Any) -> dict[str, str]:
    """`harness9.run`: a prompt, about a file or a selection; an instruction comment's line."""
    ls.require_initialized()
    args = _arguments(arguments, RUN)
    uri = parsed_params(lambda a: optional_str(a, "uri"), args)
    line = args.get("instructionLine")
    instruction = _instruction(ls, uri, line) if uri is not None and line is not None else None
    if instruction is None:
        prompt = parsed_params(lambda a: required_str(a, "prompt"), args)
    else:
        prompt = instruction[1].text
    if instruction is not None:
        prompt += (f"\n\n(Written as an instruction comment on line {instruction[1].line + 1} of "
                   f"{instruction[0]}; harness9 removes that comment once you have done it: "
                   "leave it in place.)")
    context = [{"uri": uri, **({"range": args["range"]} if args.get("range") else {})}] \
        if uri else []
    return await _start(ls, prompt, args, context, instruction)


async def fix_command(ls: Harness9Server, *arguments: Any) -> dict[str, str]:
    """`harness9.fix`: the problems a quick fix carries, fixed by a run."""
    ls.require_initialized()
    args = _arguments(arguments, FIX)
    uri = parsed_params(lambda a: required_str(a, "uri"), args)
    problems = args.get("diagnostics")
    if not isinstance(problems, list) or not problems:
        raise JsonRpcInvalidParams(message="diagnostics: a non-empty list of LSP diagnostics")
    path = _relative(ls, uri)
    lines = [_problem_line(p) for p in problems if isinstance(p, Mapping)]
    prompt = (f"Fix {'this problem' if len(lines) == 1 else 'these problems'} in {path}, "
              "changing only what the fix needs:\n" + "\n".join(lines))
    return await _start(ls, prompt, args, [{"uri": uri}], None)


async def cancel_command(ls: Harness9Server, *arguments: Any) -> dict[str, bool]:
    """`harness9.cancel`: the given run, else every plain run going."""
    ls.require_initialized()
    run_id = parsed_params(lambda a: optional_str(a, "runId"), _arguments(arguments, CANCEL))
    runs = [run_id] if run_id else list(plain_sessions(ls).tasks)
    cancelled = [await ls.service.cancel(r, None) for r in runs]
    return {"cancelled": any(cancelled)}


async def transcript_command(ls: Harness9Server, *arguments: Any) -> dict[str, str]:
    """`harness9.transcript`: open the workspace session's transcript; answers its URI."""
    ls.require_initialized()
    root = ls.resolve_root(None)
    found = plain_sessions(ls).transcript_of(root)
    if found is None:
        raise JsonRpcInvalidParams(message="no transcript yet: no run was started with "
                                   "harness9.run in this workspace")
    uri = Path(found).as_uri()
    from harness9.lsp.plain_runs import can_show_documents

    if can_show_documents(ls.client_capabilities):
        await ls.window_show_document_async(types.ShowDocumentParams(uri=uri, take_focus=True))
    return {"uri": uri, "path": found}


async def _start(ls: Harness9Server, prompt: str, args: Mapping[str, Any],
                 context: list[dict[str, Any]],
                 instruction: tuple[str, Instruction] | None) -> dict[str, str]:
    sessions = plain_sessions(ls)
    root = ls.resolve_root(parsed_params(lambda a: optional_str(a, "workspaceFolder"), args))
    new = parsed_params(lambda a: optional_bool(a, "newSession", False), args)
    session_id = None if new else sessions.sessions.get(root)
    raw = {"prompt": prompt, "context": context, **({"sessionId": session_id} if session_id
                                                     else {})}
    params = parsed_params(parse_run_params, raw)
    bound = parsed_params(lambda items: bind_context(items, root), params.context)
    settings = resolve(from_environment(os.environ), ls.client_settings, params.overrides)
    removing = instruction if settings.remove_instruction_comments else None
    from harness9.lsp.plain_runs import PlainRun

    plain = PlainRun(ls, root, prompt, removing, sessions=sessions)
    from harness9.lsp.agent_run import execute_run

    async def run() -> None:
        try:
            result = await execute_run(ls, ls.service, params, settings, root, bound, plain=plain)
        except Exception as exc:
            if plain.started.done():
                await plain.finished(None, str(exc) or type(exc).__name__)
            raise
        await plain.finished(result, None)

    task = asyncio.ensure_future(run())
    waits: list[asyncio.Future[Any]] = [plain.started, task]
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    if not plain.started.done():
        task.result()  # the run failed before it started: its error is the command's answer
    ids = plain.started.result()
    sessions.sessions[root] = ids["sessionId"]
    sessions.tasks[ids["runId"]] = task
    task.add_done_callback(lambda _t: sessions.tasks.pop(ids["runId"], None))
    return ids


def _instruction(ls: Harness9Server, uri: str, line: Any) -> tuple[str, Instruction]:
    """The instruction comment on `line` of the document, as it reads now."""
    if not isinstance(line, int) or isinstance(line, bool) or line < 0:
        raise JsonRpcInvalidParams(message=f"instructionLine must be a line number, got {line!r}")
    document = ls.workspace.get_text_document(uri)
    lines = document.source.splitlines()
    text = instruction_on(lines[line], document.language_id) if line < len(lines) else None
    if text is None:
        raise JsonRpcInvalidParams(message=f"instructionLine: line {line + 1} of "
                                   f"{_relative(ls, uri)} holds no harness9: comment")
    return _relative(ls, uri), Instruction(line, text, lines[line])


def _relative(ls: Harness9Server, uri: str) -> str:
    path = to_fs_path(uri) or uri
    root = ls.resolve_root(None)
    inside = os.path.commonpath([os.path.realpath(path), os.path.realpath(root)])
    return os.path.relpath(path, root) if inside == os.path.realpath(root) else path


def _problem_line(problem: Mapping[str, Any]) -> str:
    start = (problem.get("range") or {}).get("start") or {}
    where = f"line {start.get('line', 0) + 1}" if isinstance(start.get("line"), int) else "?"
    origin = " ".join(str(problem[k]) for k in ("source", "code") if problem.get(k))
    message = str(problem.get("message", "")).strip()
    return f"- {where}: {message}" + (f" ({origin})" if origin else "")


COMMANDS = {RUN: run_command, FIX: fix_command, CANCEL: cancel_command,
            TRANSCRIPT: transcript_command}

