"""What a `session/prompt` says besides the run's updates: the title its session's first prompt
gives (`session_info_update`), and the answer (stop reason and usage; a cancelled run answers
`cancelled` unless the connection is closing)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from acp.schema import PromptResponse, SessionInfoUpdate, StopReason, Usage

from harness9.service.run_request import RunOutcome
from harness9.service.sessions.session import Session, iso_time
from harness9.service.sessions.session_log import title_of

_STOP_REASONS: dict[str, StopReason] = {"completed": "end_turn", "max_turns": "max_turn_requests"}


def title_update(session: Session, prompt: Sequence[Any]) -> SessionInfoUpdate | None:
    """The session's title when this is its first prompt (the first line the user typed, as
    `session/list` shows it), else None."""
    if session.history or session.runs:
        return None
    typed = next((block.text for block in prompt
                  if getattr(block, "type", None) == "text" and block.text.strip()), "")
    if not typed:
        return None
    return SessionInfoUpdate(session_update="session_info_update", title=title_of(typed),
                             updated_at=iso_time(time.time()))


def prompt_answer(outcome: RunOutcome) -> PromptResponse:
    """The answer of a run that ended: its stop reason and usage."""
    result = outcome.result
    usage = result.usage
    return PromptResponse(
        stop_reason=_STOP_REASONS.get(result.status, "end_turn"),
        usage=Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            total_tokens=usage.input_tokens + usage.output_tokens,
            cached_read_tokens=usage.cached_input_tokens,
            cached_write_tokens=usage.cache_write_tokens,
        ),
    )


def connection_closing() -> bool:
    """Whether the current task is being cancelled (the SDK closing the connection), rather
    than its run (`session/cancel`)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
