"""A stored conversation → the `session/update`s that show it again (`session/load`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from acp import text_block, tool_content, update_tool_call
from acp.schema import ToolCallStatus

from harness9.acp.update_stream import UpdateStream
from harness9.acp.updates import start_update
from harness9.schema import Message, Role, ToolCall, ToolKind


def replay(
    history: Sequence[Message], stream: UpdateStream, root: str, kind_of: Callable[[str], ToolKind]
) -> None:
    """Queue the history: prompts as user chunks, answers as agent chunks, each tool call
    with its final status and output (system messages are not part of the conversation);
    `kind_of` gives a tool's kind by its name."""
    calls: dict[str, ToolCall] = {}
    for message in history:
        if message.role is Role.ASSISTANT:
            stream.text("message", message.content)
            for call in message.tool_calls:
                calls[call.id] = call
                stream.push(start_update(call, kind_of(call.name), root))
        elif message.role is Role.USER and message.tool_call_id is not None:
            status: ToolCallStatus = "failed" if message.is_error else "completed"
            content = [tool_content(text_block(message.content))]
            stream.push(update_tool_call(message.tool_call_id, status=status, content=content))
        elif message.role is Role.USER:
            stream.text("user", message.content)
