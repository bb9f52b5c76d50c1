"""The tool registry: lookup, argument validation, and the one place failures become results."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from harness9.schema import (
    ToolCall,
    ToolDefinition,
    ToolError,
    ToolFailure,
    ToolKind,
    ToolResult,
)
from harness9.tools.contract import (
    DEADLINE,
    BaseTool,
    ToolOutput,
    ToolRefused,
    ToolTimeoutError,
    as_output,
    call_starting,
    sandbox_of,
)

_log = logging.getLogger(__name__)

# How long past the deadline the registry waits before cancelling a tool: a tool that honours the
# deadline itself (bash) then returns its partial output instead of being cancelled empty-handed.
_GRACE_SECONDS = 0.25

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


class ArgumentError(Exception):
    """The model's arguments do not fit the tool's schema."""


Proceed = Callable[[], Awaitable[str | ToolOutput]]


class Middleware(Protocol):
    """A step every valid call passes before its tool starts (approvals are the first).

    It gets the call, its tool and the parsed arguments, and either awaits `proceed()` (which
    starts the tool and its timeout) and returns what it returns, or raises: `ToolRefused` to
    refuse the call with a reason, any other exception as the registry treats a tool's.
    """

    async def __call__(
        self, call: ToolCall, tool: BaseTool, arguments: dict[str, Any], proceed: Proceed
    ) -> str | ToolOutput: ...


class Registry:
    """Holds the tools offered to the model and executes their calls through the middleware."""

    def __init__(self, middleware: Sequence[Middleware] = ()) -> None:
        self._tools: dict[str, BaseTool] = {}
        self._middleware = tuple(middleware)

    def register(self, tool: BaseTool) -> None:
        """Add `tool`; a tool of the same name is replaced, with a warning."""
        if tool.name in self._tools:
            _log.warning("tool %r registered twice; the later registration wins", tool.name)
        self._tools[tool.name] = tool

    def names(self) -> list[str]:
        """The registered tool names, in registration order."""
        return list(self._tools)

    def available_tools(self) -> list[ToolDefinition]:
        """The definitions the model is offered, in registration order."""
        return [tool.definition() for tool in self._tools.values()]

    def kind_of(self, name: str) -> ToolKind:
        """The kind the tool called `name` declares (`other` for a name not registered)."""
        tool = self._tools.get(name)
        return tool.definition().kind if tool is not None else ToolKind.OTHER

    async def execute(self, call: ToolCall, timeout: float | None = None) -> ToolResult:
        """Run `call` within `timeout` seconds and always return a result (cancellation aside).

        Unknown tools, unparsable or ill-typed arguments, tool errors, OS errors, unexpected
        exceptions and timeouts all become `ToolResult(is_error=True)` with text for the model.
        `asyncio.CancelledError` propagates.
        """
        # The duration counts from when the tool starts: not the time a question to the user
        # took (the middleware moves the start when it lets the call go).
        clock = _Clock()
        try:
            output = await self._run(call, timeout, clock)
        except (ToolTimeoutError, TimeoutError) as exc:
            text = _timeout_text(call, exc, timeout)
            return _failure(call, ToolFailure.TIMEOUT, text, clock.started)
        except ToolRefused as refused:
            return _failure(call, refused.reason, str(refused), clock.started, refused.message)
        except ToolError as exc:
            return _failure(call, ToolFailure.ERROR, str(exc), clock.started)
        except OSError as exc:
            return _failure(call, ToolFailure.ERROR, _os_error_text(exc), clock.started)
        except Exception as exc:
            _log.exception("tool %r raised", call.name)
            text = f"Error: tool {call.name!r} failed: {type(exc).__name__}: {exc}"
            return _failure(call, ToolFailure.ERROR, text, clock.started)
        return _success(call, output, clock.started)

    async def _run(
        self, call: ToolCall, timeout: float | None, clock: _Clock
    ) -> str | ToolOutput:
        tool = self._tools.get(call.name)
        if tool is None:
            valid = ", ".join(self._tools) or "(none)"
            raise ToolRefused(
                ToolFailure.UNKNOWN_TOOL,
                f"Error: unknown tool {call.name!r}. Available tools: {valid}. "
                "Call one of these by its exact name.",
            )
        try:
            arguments = validate_arguments(tool.definition(), call.arguments)
        except ArgumentError as exc:
            raise ToolRefused(ToolFailure.BAD_ARGUMENTS, str(exc)) from None

        async def start() -> str | ToolOutput:
            call_starting(sandbox_of(tool))
            clock.started = time.monotonic()
            return await _timed(tool, call.arguments, timeout)

        proceed: Proceed = start
        for step in reversed(self._middleware):
            proceed = _bind(step, call, tool, arguments, proceed)
        return await proceed()


class _Clock:
    """When a call's tool started (or the call arrived, until then)."""

    def __init__(self) -> None:
        self.started = time.monotonic()


def _bind(
    step: Middleware, call: ToolCall, tool: BaseTool, arguments: dict[str, Any], then: Proceed
) -> Proceed:
    async def proceed() -> str | ToolOutput:
        return await step(call, tool, arguments, then)

    return proceed


async def _timed(tool: BaseTool, arguments: str, timeout: float | None) -> str | ToolOutput:
    """Run the tool; its timeout (and the deadline tools read) starts now. A tool that says it
    is `untimed` (a child agent's run, bounded by its own turns) has none."""
    if timeout is None or getattr(tool, "untimed", False):
        return await tool.execute(arguments)
    token = DEADLINE.set(time.monotonic() + timeout)
    try:
        async with asyncio.timeout(timeout + _GRACE_SECONDS):
            return await tool.execute(arguments)
    finally:
        DEADLINE.reset(token)


def validate_arguments(definition: ToolDefinition, arguments: str) -> dict[str, Any]:
    """Parse `arguments` and check them against the schema's required keys and primitive types."""
    name = definition.name
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError as exc:
        snippet = arguments if len(arguments) <= 200 else arguments[:200] + "…"
        raise ArgumentError(
            f"Error: the arguments of {name!r} are not valid JSON ({exc.msg} at line {exc.lineno} "
            f"column {exc.colno}): {snippet}\nSend one JSON object, e.g. {_example(definition)}"
        ) from None
    if not isinstance(value, dict):
        raise ArgumentError(
            f"Error: the arguments of {name!r} must be a JSON object, got {_json_type(value)}; "
            f"e.g. {_example(definition)}"
        )
    schema = definition.input_schema
    properties: dict[str, Any] = schema.get("properties", {})
    missing = [key for key in schema.get("required", []) if key not in value]
    if missing:
        raise ArgumentError(
            f"Error: missing required argument(s) for {name!r}: {', '.join(missing)}. "
            f"Required: {', '.join(schema.get('required', []))}; e.g. {_example(definition)}"
        )
    for key, item in value.items():
        expected = properties.get(key, {}).get("type")
        if isinstance(expected, str) and not _has_type(item, expected):
            raise ArgumentError(
                f"Error: argument {key!r} of {name!r} must be of type {expected}, "
                f"got {_json_type(item)}"
            )
    return value


def _has_type(value: Any, expected: str) -> bool:
    kinds = _JSON_TYPES.get(expected)
    if kinds is None:
        return True
    if isinstance(value, bool) and bool not in kinds:
        return False  # JSON true is not a number
    return isinstance(value, kinds)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    for name, kinds in _JSON_TYPES.items():
        if isinstance(value, kinds) and not (isinstance(value, bool) and name != "boolean"):
            return name
    return type(value).__name__


def _example(definition: ToolDefinition) -> str:
    required = definition.input_schema.get("required", [])
    return json.dumps({key: "…" for key in required}, ensure_ascii=False)


def _timeout_text(call: ToolCall, exc: Exception, timeout: float | None) -> str:
    if isinstance(exc, ToolTimeoutError):
        return str(exc)
    return (
        f"Error: tool {call.name!r} timed out after {timeout:g} s and was stopped. "
        "Try a smaller or faster step."
    )


def _os_error_text(exc: OSError) -> str:
    where = f": {exc.filename}" if exc.filename else ""
    return f"Error: {exc.strerror or exc}{where}"


def _elapsed_ms(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 3)


def _success(call: ToolCall, output: str | ToolOutput, started: float) -> ToolResult:
    out = as_output(output)
    return ToolResult(
        tool_call_id=call.id,
        output=out.text,
        is_error=out.failed,
        failure=ToolFailure.ERROR if out.failed else None,
        bytes=out.bytes,
        truncated=out.truncated,
        duration_ms=_elapsed_ms(started),
        changes=out.changes,
        edit=out.edit,
        exit=out.exit,
        sandbox=out.sandbox,
        plan=out.plan,
        problems=out.problems,
        problems_source=out.problems_source,
        child=out.child,
    )


def _failure(call: ToolCall, reason: ToolFailure, text: str, started: float,
             message: str | None = None) -> ToolResult:
    return ToolResult(
        tool_call_id=call.id,
        output=text,
        is_error=True,
        failure=reason,
        bytes=len(text.encode("utf-8", "replace")),
        duration_ms=_elapsed_ms(started),
        message=message,
    )


def cancelled_result(call: ToolCall, duration_ms: float = 0.0) -> ToolResult:
    """The result recorded for a call that was stopped because the run was cancelled."""
    text = f"Error: tool {call.name!r} was cancelled before it finished (the user stopped the run)"
    return ToolResult(
        tool_call_id=call.id,
        output=text,
        is_error=True,
        failure=ToolFailure.CANCELLED,
        bytes=len(text.encode()),
        duration_ms=duration_ms,
    )
