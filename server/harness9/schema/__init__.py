"""Core data types shared by tools, providers, the engine and the daemon.

This package is a leaf: it imports nothing else from harness9, so every layer can depend on it.
Its types are imported from here (`from harness9.schema import Message`); they are kept in
three modules: `messages` (messages, tool calls, usage, streaming), `tool_results` (tool
definitions, kinds, results and failures) and `plans` (the model's plan).
"""

from harness9.schema.messages import (
    Image,
    Message,
    Price,
    Role,
    StreamChunk,
    StreamChunkType,
    ToolCall,
    Usage,
    shared_prefix,
)
from harness9.schema.plans import Plan, PlanItem, PlanStatus
from harness9.schema.tool_results import (
    ChangedFile,
    ChildRun,
    FileChanges,
    FileEdit,
    Problem,
    ProcessExit,
    ToolDefinition,
    ToolError,
    ToolFailure,
    ToolKind,
    ToolResult,
)

__all__ = [
    "ChangedFile",
    "ChildRun",
    "FileChanges",
    "FileEdit",
    "Image",
    "Message",
    "Plan",
    "PlanItem",
    "PlanStatus",
    "Price",
    "Problem",
    "ProcessExit",
    "Role",
    "StreamChunk",
    "StreamChunkType",
    "ToolCall",
    "ToolDefinition",
    "ToolError",
    "ToolFailure",
    "ToolKind",
    "ToolResult",
    "Usage",
    "shared_prefix",
]
