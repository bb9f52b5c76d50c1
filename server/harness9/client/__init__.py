"""The terminal client (`harness9 run`): a real JSON-RPC client of the daemon, and its views."""
