"""Background tasks in git worktrees: a run's own checkout, made from the workspace's state,
kept under the state folder, and applied back to the workspace as one change."""
