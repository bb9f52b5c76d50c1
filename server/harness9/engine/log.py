"""The seed's block-style logs: a one-line greppable header, then indented blocks.

    2026/04/29 15:11:30 [engine] Turn 1 │ Tool start │ tool=bash id=call_xyz
            arguments: {"command":"go version && pwd && ls -la"}

Continuation lines are indented 8 spaces; arguments are inline up to 80 bytes and pretty-printed
above; JSON is written without HTML or non-ASCII escaping; output lines carry a `│ ` prefix and are
cut at 512 bytes, which the header says with `(truncated to 512)`. The phase labels are English;
`HARNESS9_LOG_LANG=zh` gives the seed's own Chinese ones (`Turn 1 │ 工具启动 │ …`).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from harness9.engine.events import (
    ApprovalRequested,
    ApprovalResolved,
    CheckpointTaken,
    ChildEvent,
    ContextCompacted,
    Event,
    LLMCallStarted,
    ObservationAdded,
    RunFinished,
    RunStarted,
    ThinkingDone,
    ToolFinished,
    ToolStarted,
    TurnStarted,
)
from harness9.schema import ToolCall

LOG_INDENT = " " * 8
MAX_LOG_OUTPUT = 512
ARG_INLINE_THRESHOLD = 80
_MAX_ARG_STRING = 80  # long string values inside pretty-printed arguments end in "..."

Clock = Callable[[], float]
# Each phase's label, keyed by the seed's own (Chinese) label.
Words = Mapping[str, str]
ENGLISH: Words = {
    "引擎启动": "Engine start",
    "开始": "Start",
    "禁用工具": "tools off",
    "恢复工具": "tools on",
    "思考完成": "Thinking done",
    "工具启动": "Tool start",
    "审批请求": "Approval asked",
    "审批结果": "Approval answered",
    "工具失败": "Tool failed",
    "工具完成": "Tool done",
    "Observation 注入": "Observation added",
    "检查点": "Checkpoint",
    "上下文压缩": "Context compacted",
    "循环结束": "Loop end",
}
SEED: Words = {label: label for label in ENGLISH}


def log_words(env: Mapping[str, str] | None = None) -> Words:
    """The labels `HARNESS9_LOG_LANG` asks for: the seed's with `zh`, else English."""
    language = (os.environ if env is None else env).get("HARNESS9_LOG_LANG", "")
    return SEED if language.strip().lower().startswith("zh") else ENGLISH


def utf8_prefix(text: str, limit: int) -> str:
    """The longest prefix of `text` whose UTF-8 encoding fits in `limit` bytes."""
    return text.encode("utf-8", "replace")[:limit].decode("utf-8", "ignore")


class BlockLogger:
    """An event subscriber that writes the seed's block logs to a `logging.Logger`.

    The block is formatted when the record is (in the log's writer thread, off the event
    loop): events are immutable, and the time is taken when the event is heard.
    """

    def __init__(self, logger: logging.Logger, clock: Clock = time.time,
                 words: Words | None = None) -> None:
        self._logger = logger
        self._clock = clock
        self._words = log_words() if words is None else words

    def __call__(self, event: Event) -> None:
        shown = event.event if isinstance(event, ChildEvent) else event  # a child's: its own
        if type(shown) in _FORMATTERS and self._logger.isEnabledFor(logging.INFO):
            # The record is made directly: `Logger.info` would walk the stack for a caller's
            # file and line, which no log format shows. `event` names the event's kind.
            block = _Block(event, self._clock(), self._words)
            self._logger.handle(self._logger.makeRecord(
                self._logger.name, logging.INFO, "", 0, "%s", (block,), None,
                extra={"event": event.kind}))


class _Block:
    """An event's log block, formatted when it is first shown (once for every handler)."""

    __slots__ = ("_event", "_now", "_text", "_words")

    def __init__(self, event: Event, now: float, words: Words) -> None:
        self._event, self._now, self._words = event, now, words
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            self._text = format_event(self._event, self._now, self._words) or ""
        return self._text


def format_event(event: Event, now: float, words: Words | None = None) -> str | None:
    """The log block for `event` at time `now` with the labels `words` (default: those
    `HARNESS9_LOG_LANG` asks for), or None for events the log does not show (a child agent's
    show as its own, marked with its agent and task call)."""
    if isinstance(event, ChildEvent):
        inner = format_event(event.event, now, words)
        mark = f"[{event.agent} {event.parent_call_id}]"
        return None if inner is None else inner.replace("[engine]", mark, 1)
    formatter = _FORMATTERS.get(type(event))
    if formatter is None:
        return None
    stamp = time.strftime("%Y/%m/%d %H:%M:%S", time.localtime(now))
    return f"{stamp} [engine] {formatter(event, log_words() if words is None else words)}"


def _run_started(event: Any, words: Words) -> str:
    return (
        f"{words['引擎启动']} │ workdir={event.workspace_root} provider={event.provider} "
        f"model={event.model} thinking={str(event.thinking).lower()} "
        f"maxTurns={event.max_turns} toolTimeout={event.tool_timeout_ms / 1000:g}s"
    )


def _turn_started(event: Any, words: Words) -> str:
    return f"Turn {event.turn} │ {words['开始']} │ messages={event.messages}"


def _llm_call(event: Any, words: Words) -> str:
    if event.phase == "thinking":
        return f"Turn {event.turn} │ Phase 1 (Thinking) │ {words['禁用工具']} (tools=nil)"
    return f"Turn {event.turn} │ Phase 2 (Action) │ {words['恢复工具']} (tools={event.tools})"


def _thinking(event: Any, words: Words) -> str:
    size = len(event.text.encode())
    return f"Turn {event.turn} │ {words['思考完成']} │ bytes={size}" + _output_block(event.text)


def _tool_started(event: Any, words: Words) -> str:
    call: ToolCall = event.call
    header = f"Turn {event.turn} │ {words['工具启动']} │ tool={call.name} id={call.unique_id}"
    return header + "\n" + format_arguments(call.arguments)


def _approval_requested(event: Any, words: Words) -> str:
    reason = f"\n{LOG_INDENT}reason: {event.reason}" if event.reason else ""
    return (
        f"Turn {event.turn} │ {words['审批请求']} │ tool={event.call.name} "
        f"id={event.call.unique_id}\n"
        f"{LOG_INDENT}title: {utf8_prefix(event.title, MAX_LOG_OUTPUT)}{reason}\n"
        + format_arguments(event.call.arguments)
    )


def _approval_resolved(event: Any, words: Words) -> str:
    line = (
        f"Turn {event.turn} │ {words['审批结果']} │ tool={event.call.name} "
        f"id={event.call.unique_id} "
        f"decision={event.decision} by={event.by}"
    )
    return line + (f" rule={event.rule}" if event.rule else "")


def _tool_finished(event: Any, words: Words) -> str:
    result = event.result
    size = len(result.output.encode("utf-8", "replace"))
    failed = result.is_error
    label, status = (words["工具失败"], "error") if failed else (words["工具完成"], "ok")
    header = (
        f"Turn {event.turn} │ {label} │ tool={event.call.name} id={event.call.unique_id} "
        f"status={status} bytes={size}"
    )
    if result.failure is not None and result.failure.value != "error":
        header += f" reason={result.failure.value}"
    if size > MAX_LOG_OUTPUT:
        header += f" (truncated to {MAX_LOG_OUTPUT})"
    return header + _output_block(utf8_prefix(result.output, MAX_LOG_OUTPUT))


def _observation(event: Any, words: Words) -> str:
    return (
        f"Turn {event.turn} │ {words['Observation 注入']} │ results={len(event.tool_call_ids)} "
        f"messages {event.messages_before} → {event.messages}"
    )


def _checkpoint(event: Any, words: Words) -> str:
    return (f"Turn {event.turn} │ {words['检查点']} │ id={event.checkpoint_id[:12]} "
            f"files={len(event.files)}")


def _compacted(event: Any, words: Words) -> str:
    return (
        f"Turn {event.turn} │ {words['上下文压缩']} │ method={event.method} "
        f"tokens {event.before_tokens} → {event.after_tokens}"
    )


def _run_finished(event: Any, words: Words) -> str:
    line = (
        f"{words['循环结束']} │ status={event.status} turns={event.turns} "
        f"toolCalls={event.tool_calls} "
        f"messages={event.messages} tokens={event.usage.input_tokens}/{event.usage.output_tokens}"
    )
    if event.error:
        line += f"\n{LOG_INDENT}error: {event.error.get('kind')}: {event.error.get('message')}"
    return line


_FORMATTERS: dict[type[Event], Callable[[Any, Words], str]] = {
    RunStarted: _run_started,
    TurnStarted: _turn_started,
    LLMCallStarted: _llm_call,
    ThinkingDone: _thinking,
    ToolStarted: _tool_started,
    ApprovalRequested: _approval_requested,
    ApprovalResolved: _approval_resolved,
    ToolFinished: _tool_finished,
    ObservationAdded: _observation,
    CheckpointTaken: _checkpoint,
    ContextCompacted: _compacted,
    RunFinished: _run_finished,
}


def format_arguments(arguments: str) -> str:
    """`arguments:` inline when the compact JSON fits 80 bytes, else pretty-printed below."""
    try:
        value = json.loads(arguments)
    except (json.JSONDecodeError, RecursionError):
        return f"{LOG_INDENT}arguments (not JSON): {utf8_prefix(arguments, MAX_LOG_OUTPUT)}"
    compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if len(compact.encode()) <= ARG_INLINE_THRESHOLD:
        return f"{LOG_INDENT}arguments: {compact}"
    pretty = json.dumps(_shorten(value), ensure_ascii=False, indent=2)
    body = "\n".join(f"{LOG_INDENT}  {line}" for line in pretty.splitlines())
    return f"{LOG_INDENT}arguments:\n{body}"


def _shorten(value: Any) -> Any:
    """Long string values end in "..." so a 1 MB write_file does not flood the log."""
    if isinstance(value, str) and len(value) > _MAX_ARG_STRING:
        return value[:_MAX_ARG_STRING] + "..."
    if isinstance(value, dict):
        return {key: _shorten(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shorten(item) for item in value]
    return value


def _output_block(text: str) -> str:
    if not text:
        return f"\n{LOG_INDENT}output: (empty)"
    lines = text.rstrip("\n").split("\n")
    return f"\n{LOG_INDENT}output:\n" + "\n".join(f"{LOG_INDENT}│ {line}" for line in lines)
