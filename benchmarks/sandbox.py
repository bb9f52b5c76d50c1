"""Case: what the sandboxes cost: the race-free path resolution of the file tools per file
operation, and the OS sandbox of bash per command.

Every file tool resolves its path component by component from a descriptor of the workspace
root (one `openat` with `O_NOFOLLOW` per folder, links read and followed by hand). The floor is
one plain `open` + `close` of the same file by its absolute path, which the kernel resolves in
one call; the target is the overhead of our resolution over it.

A bash call of `true` in the OS sandbox (bubblewrap, then Landlock) against the same call
unsandboxed (the floor): the target is the time the sandbox adds per call.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.core import Config, Row, info_row, margin_row, median
from harness9.process.sandbox import Availability, Mechanism, SandboxPolicy, availability
from harness9.tools.bash import BashTool
from harness9.workspace.safe_path import open_beneath

MARGIN_US = 50.0
# Per bash call: what each OS sandbox may add to starting a command.
MARGIN_MS = {Mechanism.BWRAP: 15.0, Mechanism.LANDLOCK: 3.0}
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
    """The file tools' open and bash's sandbox, each against its floor."""
    return [*_file_rows(config), *await _bash_rows(config)]


async def _per_command_ms(tool: BashTool, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        await tool.execute('{"command": "true"}')
    return (time.perf_counter() - started) / calls * 1e3


async def _bash_rows(config: Config) -> list[Row]:
    """Median cost of a bash call in each OS sandbox that works here, against none."""
    calls = config.size(40, 10, 3)
    found = availability()
    mechanisms = [m for m in (Mechanism.BWRAP, Mechanism.LANDLOCK)
                  if m is found.mechanism or (m is Mechanism.LANDLOCK and found.works)]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as folder:
        plain = BashTool(folder)
        boxed = {m: BashTool(folder, sandbox=SandboxPolicy(), found=Availability(m))
                 for m in mechanisms}
        samples: dict[str, list[float]] = {"floor": [], **{m.value: [] for m in mechanisms}}
        for _ in range(config.reps):
            samples["floor"].append(await _per_command_ms(plain, calls))
            for mechanism, tool in boxed.items():
                samples[mechanism.value].append(await _per_command_ms(tool, calls))
    floor = median(samples["floor"])
    for mechanism in mechanisms:
        rows.append(margin_row(f"bash call in the OS sandbox ({mechanism.value})",
                               median(samples[mechanism.value]), floor, "ms",
                               MARGIN_MS[mechanism]))
    if not mechanisms:
        rows.append(info_row(f"bash call, no OS sandbox here ({found.reason})", floor, floor,
                             "ms"))
    return rows


def _file_rows(config: Config) -> list[Row]:
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
