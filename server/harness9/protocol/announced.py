"""The names `initialize` announces: the methods a daemon serves and the progress kinds.

Plain lists, so answering `initialize` loads none of the records; `tests/test_protocol.py`
checks that they name exactly the records of `method_table` and `progress_kinds`.
"""

# What `initialize` announces as `protocolVersion` (the 1.3 additions are announced one by one,
# as capabilities).
ANNOUNCED_VERSION = "1.2"

METHODS = [
    "agent/run", "agent/cancel", "agent/tools", "agent/checkpoints", "agent/restore",
    "agent/sessions", "agent/session", "agent/deleteSession", "agent/compact",
    "agent/steer", "agent/queue", "agent/unqueue", "agent/models", "agent/setModel",
    "agent/commands", "agent/changedSince", "agent/agents", "agent/tasks", "agent/applyTask",
    "agent/discardTask",
]
PROGRESS_KINDS = [
    "run_started", "turn_started", "thinking", "text_delta", "assistant_message",
    "tool_started", "approval_requested", "approval_resolved", "tool_completed", "tool_failed",
    "observation", "usage", "run_finished", "checkpoint", "checkpoints_off",
    "context_compacted", "tool_output", "steered", "queued", "dequeued", "plan",
    "command",
]
