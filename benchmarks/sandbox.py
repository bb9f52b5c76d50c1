"""Case: what the race-free sandbox costs per file operation.

Every file tool resolves its path component by component from a descriptor of the workspace
root (one `openat` with `O_NOFOLLOW` per folder, links read and followed by hand). The floor is
one plain `open` + `close` of the same file by its absolute path, which the kernel resolves in
one call; the target is the overhead of our resolution over it.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.core import Config, Row, info_row, margin_row, median
from harness9.workspace.safe_path import open_beneath

MARGIN_US = 50.0
DEPTH_PATH = "src/harness9/tools/module.py"  # four components
LINKED_PATH = "link/tools/module.py"  # through a link inside the workspace


def _per_call_us(action: Callable[[], None], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        action()
    return (time.perf_counter() - started) / calls * 1e6


def _workspace(root: Path) -> None:
    target = root / DEPTH_PATH
    target.parent.mkdir(parents=True)
    target.write_text("x = 1\n")
    (root / "link").symlink_to("src/harness9", target_is_directory=True)


async def run(config: Config) -> list[Row]:
    """Median cost per open, ours and the floor, over `config.reps` batches."""
    calls = config.size(20_000, 500)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _workspace(root)
        absolute = str(root / DEPTH_PATH)

        def plain() -> None:
            os.close(os.open(absolute, os.O_RDONLY | os.O_CLOEXEC))

        def beneath(path: str) -> Callable[[], None]:
            def action() -> None:
                with open_beneath(root, path, os.O_RDONLY):
                    pass
            return action

        def realpath_then_open() -> None:  # the check-then-use approach it replaced
            real = os.path.realpath(root / DEPTH_PATH)
            os.close(os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC))

        samples: dict[str, list[float]] = {"floor": [], "ours": [], "link": [], "old": []}
        for _ in range(config.reps):
            samples["floor"].append(_per_call_us(plain, calls))
            samples["ours"].append(_per_call_us(beneath(DEPTH_PATH), calls))
            samples["link"].append(_per_call_us(beneath(LINKED_PATH), calls))
            samples["old"].append(_per_call_us(realpath_then_open, calls))
    floor, ours = median(samples["floor"]), median(samples["ours"])
    return [
        margin_row("sandboxed open, 4 components", ours, floor, "µs", MARGIN_US),
        margin_row("sandboxed open, through a link", median(samples["link"]), floor, "µs",
                   MARGIN_US),
        info_row("realpath check, then open (racy; replaced)", median(samples["old"]), floor,
                 "µs"),
    ]
