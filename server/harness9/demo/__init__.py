"""The offline demo: a small sample project with a bug, and a scripted model that fixes it.

Everything in the demo is real except the model: the daemon, the protocol, the tools acting on
a fresh copy of the sample project, and the project's own tests (standard library only).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from harness9.workspace.atomic_write import atomic_write_bytes

PROMPT = (
    "The tests of this project fail. Find the bug, fix it, add a regression test, "
    "and check that the whole suite passes."
)
_SKIP = {"__pycache__"}


@dataclass(frozen=True, slots=True)
class Demo:
    """A prepared demo: the project copy the agent works on, and the model's script."""

    workspace: Path
    replay_file: Path
    prompt: str


def prepare(parent: Path | None = None) -> Demo:
    """Copy the sample project into a fresh temporary folder (under `parent` if given)."""
    root = Path(tempfile.mkdtemp(prefix="harness9-demo-", dir=parent))
    bundle = files(__name__)
    workspace = root / "project"
    _copy_tree(bundle / "sample", workspace)
    replay_file = root / "replay.json"
    atomic_write_bytes(replay_file, (bundle / "replay.json").read_bytes())
    return Demo(workspace=workspace, replay_file=replay_file, prompt=PROMPT)


def _copy_tree(source: Traversable, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for entry in source.iterdir():
        if entry.name in _SKIP or entry.name.endswith(".pyc"):
            continue
        if entry.is_dir():
            _copy_tree(entry, target / entry.name)
        else:
            atomic_write_bytes(target / entry.name, entry.read_bytes())
