"""The front-end-neutral service: what the LSP daemon and other front-ends share.

The facade is `agent_service.AgentService`; `config/`, `sessions/`, `checkpoints/`, `runs/` (the
run core) and `commands/` (slash commands, above it) are its layers, bottom to top, and the
top-level modules beside it are the vocabulary they share with the front-ends (see
docs/architecture.md).
"""
