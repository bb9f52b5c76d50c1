"""Processes: the shell runner and its reaper, what a tool process sees of the environment,
and the stdio set-up of the daemon processes."""
