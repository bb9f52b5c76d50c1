"""`harness9 serve`: the LSP front-end. JSON-RPC over stdio (`transport`, `framing`), one
handler module per method group (`agent_run`, `agent_sessions`, `agent_checkpoints`,
`agent_tools`, …) routed by `server`, the editor's documents, problems and language servers
plugged into a run, and the service's events and errors turned into the wire's."""
