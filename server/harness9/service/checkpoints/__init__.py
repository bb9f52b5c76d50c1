"""Checkpoints: a shadow git repository per workspace, snapshots and restores, and the
steps that take them during a run."""
