"""A stored conversation → the `session/update`s that show it again (`session/load`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from acp import text_block, tool_content, update_tool_call
from acp.schema import ToolCallStatus

from harness9.acp.update_stream import UpdateStream
from harness9.acp.updates import shown_output, start_update
from harness9.schema import Message, Role, ToolCall, ToolKind


def replay(
    history: Sequence[Message], stream: UpdateStream, root: str, kind_of: Callable[[str], ToolKind]
) -> None:
    """Queue the history: prompts as user chunks, answers as agent chunks, each tool call
    with its final status and output (system messages are not part of the conversation);
    `kind_of` gives a tool's kind by its name."""
    pending: list[ToolCall] = []  # the calls of the last answer not yet given their result
    kinds: dict[str, ToolKind] = {}
    for message in history:
        if message.role is Role.ASSISTANT:
            stream.text("message", message.content)
            pending = list(message.tool_calls)
            for call in message.tool_calls:
                kinds[call.id] = kind_of(call.name)
                stream.push(start_update(call, kinds[call.id], root))
        elif message.role is Role.USER and message.tool_call_id is not None:
            status: ToolCallStatus = "failed" if message.is_error else "completed"
            kind = kinds.get(message.tool_call_id, ToolKind.OTHER)
            content = [tool_content(text_block(shown_output(message.content, kind)))]
            stream.push(update_tool_call(_answered(pending, message.tool_call_id), status=status,
                                         content=content))
        elif message.role is Role.USER:
            stream.text("user", message.content)


def _answered(pending: list[ToolCall], model_id: str) -> str:
    """The unique id of the first pending call the model gave `model_id` (results follow their
    calls in order, so a repeated id is answered in turn)."""
    call = next((c for c in pending if c.id == model_id), None)
    if call is None:
        return model_id
    pending.remove(call)
    return call.unique_id
