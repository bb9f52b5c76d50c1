"""Where the daemon keeps what outlives a run: sessions and checkpoints, never in the workspace."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """`HARNESS9_STATE_DIR`, else `$XDG_STATE_HOME/harness9`, else `~/.local/state/harness9`."""
    env = os.environ if env is None else env
    if env.get("HARNESS9_STATE_DIR"):
        return Path(env["HARNESS9_STATE_DIR"])
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "harness9"
    return Path.home() / ".local" / "state" / "harness9"


def workspace_key(root: str) -> str:
    """A stable folder name for a workspace: its base name and a hash of its real path."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(real))
    return f"{name[:40] or 'root'}-{digest}"
