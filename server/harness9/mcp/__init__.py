"""MCP tools: servers from the `mcpServers` setting, started over stdio with the official SDK,
their tools offered to the model as `mcp__<server>__<tool>`.

`config` (the setting's validation) is light and imported at start-up; the rest loads the SDK
and is imported when a run first needs tools.
"""
