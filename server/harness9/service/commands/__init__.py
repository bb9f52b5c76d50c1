"""Slash commands, above the run core: which exist, and the runs a prompt that invokes one
becomes (a prompt for the run core, or a run of the command's own)."""
