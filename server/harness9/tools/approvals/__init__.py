"""Approvals: the policy (modes and rules), the shell splitter it reads commands with, and
the registry step that runs, refuses or asks before a call starts."""
