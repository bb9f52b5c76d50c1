"""The workspace every file tool and front-end shares: the port, confined paths, atomic
writes, per-file locks, what a session has seen, and path and text helpers."""
