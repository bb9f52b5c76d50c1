"""A stored conversation → the `session/update`s that show it again (`session/load`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from acp import (
    embedded_text_resource,
    image_block,
    resource_block,
    text_block,
    tool_content,
    tool_diff_content,
    update_tool_call,
    update_user_message,
)
from acp.schema import ToolCallStatus

from harness9.acp.task_rows import stored_rows
from harness9.acp.update_stream import UpdateStream
from harness9.acp.updates import ToolContent, shown_output, start_update
from harness9.schema import Message, Role, ToolCall, ToolKind
from harness9.service.call_outcome import exit_of
from harness9.service.sessions.session import Session

HUNK_GAP = "⋯"  # between two hunks of a replayed edit: lines the diff did not keep
# A resource the client attached, as `prompt_blocks` gave it to the model.
_ATTACHED = re.compile(r'<context uri="([^"]*)">\n(.*?)\n</context>', re.DOTALL)


def replay_session(session: Session, stream: UpdateStream, root: str) -> None:
    """Queue a session as the user saw it: prompts as typed (attached resources as resource
    content), answers, and each tool call with its tool's kind as it ran, its final status,
    output and (an edit's) diff."""
    typed = [str(run.get("prompt", "")) for run in session.runs]
    replay(session.history, stream, root, session.call_kind, session.calls, typed)


def replay(
    history: Sequence[Message], stream: UpdateStream, root: str,
    kind_of: Callable[[ToolCall], ToolKind], outcomes: dict[str, dict[str, Any]] | None = None,
    typed: Sequence[str] = (),
) -> None:
    """Queue the history: prompts as user chunks (as `typed`, in order, when the stored
    message starts with it: the attachments after it are for the model), answers as agent
    chunks, each tool call with its kind (`kind_of`), final status and output, and its diff
    when `outcomes` (by wire id) kept one (system messages are not part of the conversation)."""
    pending: list[ToolCall] = []  # the calls of the last answer not yet given their result
    kinds: dict[str, ToolKind] = {}
    prompts = list(typed)
    for message in history:
        if message.role is Role.ASSISTANT:
            stream.text("message", message.content)
            pending = list(message.tool_calls)
            for call in message.tool_calls:
                kinds[call.id] = kind_of(call)
                stream.push(start_update(call, kinds[call.id], root))
        elif message.role is Role.USER and message.tool_call_id is not None:
            kind = kinds.get(message.tool_call_id, ToolKind.OTHER)
            call_id = _answered(pending, message.tool_call_id)
            kept = (outcomes or {}).get(call_id)
            ended = exit_of(kept)  # a command that exited non-zero failed, as it did live
            failed = message.is_error or (ended is not None and ended.failed)
            status: ToolCallStatus = "failed" if failed else "completed"
            content: list[ToolContent] = [
                tool_content(text_block(shown_output(message.content, kind)))]
            diff = _diff(kept, root)
            rows = stored_rows((kept or {}).get("transcript"), root)
            if rows is not None:  # a task's: its child's rows, as they ended live
                content.insert(0, tool_content(text_block(rows)))
            stream.push(update_tool_call(call_id, status=status,
                                         content=content if diff is None else [diff, *content]))
        elif message.role is Role.USER:
            shown = message.content
            if prompts and shown.startswith(prompts[0]):
                shown = prompts.pop(0)
            _user_message(shown, stream)
            for image in message.images:
                stream.push(update_user_message(image_block(image.data, image.media_type)))


def _answered(pending: list[ToolCall], model_id: str) -> str:
    """The unique id of the first pending call the model gave `model_id` (results follow their
    calls in order, so a repeated id is answered in turn)."""
    call = next((c for c in pending if c.id == model_id), None)
    if call is None:
        return model_id
    pending.remove(call)
    return call.unique_id


def _user_message(text: str, stream: UpdateStream) -> None:
    """A prompt as its blocks: text, and each attached resource as embedded resource content."""
    at = 0
    for found in _ATTACHED.finditer(text):
        stream.text("user", text[at:found.start()].strip("\n"))
        stream.push(update_user_message(
            resource_block(embedded_text_resource(found.group(1), found.group(2)))))
        at = found.end()
    stream.text("user", text[at:].strip("\n"))


def _diff(outcome: dict[str, Any] | None, root: str) -> ToolContent | None:
    """An edit's `diff` content from its kept unified diff: each hunk's old and new sides (the
    whole files were not kept), hunks apart by `HUNK_GAP`; a new file's has no old text."""
    if outcome is None or not isinstance(outcome.get("diff"), str) or not outcome.get("path"):
        return None
    diff: str = outcome["diff"]
    old, new = hunk_sides(diff)
    created = diff.startswith("--- /dev/null\n")  # as `unified_diff` names a new file's old side
    return tool_diff_content(os.path.join(root, str(outcome["path"])), new,
                             None if created else old)


def hunk_sides(diff: str) -> tuple[str, str]:
    """The old and new text of a unified diff's hunks, each hunk after the first preceded by
    a `HUNK_GAP` line."""
    old: list[str] = []
    new: list[str] = []
    hunks = 0
    for line in diff.splitlines():
        if line.startswith("@@"):
            if hunks:
                old.append(HUNK_GAP)
                new.append(HUNK_GAP)
            hunks += 1
            continue
        if not hunks or line.startswith("\\"):  # the file names; "\ No newline at end of file"
            continue
        mark, text = line[:1], line[1:]
        if mark in (" ", "-"):
            old.append(text)
        if mark in (" ", "+"):
            new.append(text)
    return "\n".join(old) + "\n", "\n".join(new) + "\n"
