"""Building the wheel users get, as pip builds it for them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_wheel(out: Path) -> Path:
    """Build this checkout's wheel into `out`; its path.

    The build runs as pip runs it for a user: isolated, with the build backend pyproject asks
    for, on a copy of the files git tracks (as they are now), so that nothing else in this
    working tree (bytecode, a build folder) can leak in."""
    source = out / "source"
    source.mkdir()
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True,
                             timeout=60, capture_output=True).stdout
    subprocess.run(["tar", "--null", "-T", "-", "-cf", str(out / "source.tar")], cwd=ROOT,
                   input=tracked, check=True, timeout=60)
    subprocess.run(["tar", "-xf", str(out / "source.tar"), "-C", str(source)], check=True,
                   timeout=60)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                    str(source)], check=True, timeout=240, capture_output=True)
    return next(out.glob("harness9-*.whl"))
