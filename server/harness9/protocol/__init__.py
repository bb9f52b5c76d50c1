"""The wire protocol as code: a typed record for every request, result and progress kind, and
the JSON Schema generated from them (`harness9 schema`).

A leaf: it imports nothing else of harness9, so the daemon, its front-ends and the terminal
client can all build and read messages by it.
"""
