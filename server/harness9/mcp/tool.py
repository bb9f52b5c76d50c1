"""An MCP server's tool as one of ours: named `mcp__<server>__<tool>`, described by its
server's schema (which the registry validates against), bounded by the server's
`toolTimeoutMs` and the run's tool timeout, its result turned into capped text."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types
from mcp.shared.exceptions import MCPError

from harness9.mcp.connection import ServerConnection, ServerGone
from harness9.process.shell_runner import OutputBuffer
from harness9.schema import ToolDefinition, ToolError, ToolKind
from harness9.tools.bash import MAX_OUTPUT_BYTES, render_output
from harness9.tools.contract import ToolOutput, ToolTimeoutError, parse_arguments, seconds_left

_INVALID = re.compile(r"[^a-zA-Z0-9_-]")
MAX_NAME = 64  # what both providers accept: ^[a-zA-Z0-9_-]{1,64}$

# The connection to call through: the server's current one (restarted once if it died).
Connect = Callable[[], Awaitable[ServerConnection]]


def tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, other characters as `_`; a longer name is shortened and made
    unique with a hash of the full one."""
    name = f"mcp__{_INVALID.sub('_', server)}__{_INVALID.sub('_', tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


class McpTool:
    """A tool of an MCP server, called through `connect`."""

    def __init__(
        self, server: str, tool: mcp_types.Tool, connect: Connect, timeout_ms: int | None
    ) -> None:
        self.name = tool_name(server, tool.name)
        self.server = server
        self.remote_name = tool.name
        self._definition = ToolDefinition(
            name=self.name,
            description=_description(server, tool),
            input_schema=_schema(tool.input_schema),
            kind=ToolKind.OTHER,  # what it does is the server's to know, not ours
        )
        self._connect = connect
        self._cap = math.inf if timeout_ms is None else timeout_ms / 1000

    def definition(self) -> ToolDefinition:
        """The server's description and input schema under our name."""
        return self._definition

    async def execute(self, arguments: str) -> str | ToolOutput:
        """Call the server's tool; its error result, a protocol error, a timeout or a server
        that went away are `ToolError`s for the model."""
        args = parse_arguments(arguments)
        budget = seconds_left(self._cap)
        try:
            async with asyncio.timeout(budget if budget != math.inf else None):
                connection = await self._connect()
                result = await connection.call(self.remote_name, args)
        except TimeoutError:
            raise ToolTimeoutError(
                f"Error: {self.name} did not answer within {budget:g} s; the call was abandoned "
                f"(the MCP server {self.server!r} may still be working on it)"
            ) from None
        except ServerGone as exc:
            raise ToolError(f"Error: {self.name} failed: {exc}") from None
        except MCPError as exc:
            raise ToolError(f"Error: the MCP server {self.server!r} refused the call: "
                            f"{exc.message}") from None
        output = result_output(result)
        if result.is_error:
            raise ToolError(f"Error: {self.name} failed: {output.text}")
        return output


def result_output(result: mcp_types.CallToolResult) -> ToolOutput:
    """A tool result as text for the model, capped as bash's output is: text parts as they
    are, a note for images, audio and binary resources."""
    parts = [_content_text(block) for block in result.content]
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    buffer = OutputBuffer(MAX_OUTPUT_BYTES)
    buffer.feed("\n".join(parts).encode("utf-8"))
    text = render_output(buffer) or "(no output)"
    return ToolOutput(text, buffer.total, buffer.truncated)


def _content_text(block: Any) -> str:
    if isinstance(block, mcp_types.TextContent):
        return block.text
    if isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
        size = len(block.data) * 3 // 4
        return (f"[{block.type} content ({block.mime_type}, about {size} bytes) not shown: "
                "only text reaches the model]")
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return f"[resource {resource.uri}]\n{resource.text}"
        kind = resource.mime_type or "unknown type"
        return f"[binary resource {resource.uri} ({kind}) not shown]"
    if isinstance(block, mcp_types.ResourceLink):
        return f"[resource link: {block.uri}]"
    return f"[{getattr(block, 'type', 'unknown')} content not shown]"


def _description(server: str, tool: mcp_types.Tool) -> str:
    text = (tool.description or tool.title or tool.name).strip()
    return f"{text}\n(Tool {tool.name!r} of the MCP server {server!r}.)"


def _schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema as providers take it: an object schema (the SDK guarantees the type
    at the root for older protocol versions; a newer server may leave it out)."""
    if schema.get("type") == "object":
        return schema
    return {"type": "object", "properties": {}, **schema}
