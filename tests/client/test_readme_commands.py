"""Every shell block the README and docs/*.md mark runnable runs as written, offline.

A block is marked by an HTML comment on the line before its fence, which names text its output
must hold: `<!-- runnable: All 6 tests pass -->`. The block runs as one bash script (`-e`: the
first failing command fails it) in an empty workspace of its own, with a state folder of its
own, no API keys, and `harness9` (also as `.venv/bin/harness9`) being this checkout's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"^<!-- runnable: (.+?) -->\n```(?:sh|bash)\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Block:
    """A runnable block: where it is, its script, and the text its output must hold."""

    where: str
    script: str
    expect: str


def runnable_blocks(path: Path) -> list[Block]:
    """The blocks of `path` marked runnable, in order."""
    text = path.read_text(encoding="utf-8")
    return [
        Block(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, found.start()) + 1}",
              found[2], found[1])
        for found in MARKER.finditer(text)
    ]


BLOCKS = [block for path in DOCUMENTS for block in runnable_blocks(path)]


def _shim(folder: Path) -> Path:
    """`folder/.venv/bin/harness9`, this checkout's harness9 run by this interpreter."""
    bin_dir = folder / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    shim = bin_dir / "harness9"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m harness9 "$@"\n')
    shim.chmod(0o755)
    return bin_dir


def test_the_readme_and_the_docs_mark_blocks_runnable() -> None:
    where = {block.where.split(":")[0] for block in BLOCKS}
    assert {"README.md", "docs/replay.md", "docs/cli.md"} <= where, where


@pytest.mark.timeout(120)
@pytest.mark.parametrize("block", BLOCKS, ids=[block.where for block in BLOCKS])
def test_a_runnable_block_runs(
    block: Block, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HARNESS9_APPROVALS")  # the defaults a reader has
    bin_dir = _shim(workspace)
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
        "HARNESS9_STATE_DIR": str(tmp_path / "state"),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.script],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=100,
        stdin=subprocess.DEVNULL,
    )
    shown = f"{block.where} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0, shown
    assert block.expect in done.stdout, shown
