"""The wheel users get (`uvx harness9 acp`, `pipx run harness9`): its metadata is complete, and
the daemon installed from it runs the offline demo to its end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import harness9
from tests.support.wheel import build_wheel

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheels_metadata_names_what_an_installer_needs(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(info).decode())
        entry_points = archive.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert metadata["Name"] == "harness9"
    assert metadata["Version"] == harness9.__version__  # written in one place
    assert metadata["License-Expression"] == "MIT" and metadata["License-File"] == "LICENSE"
    assert metadata["Requires-Python"] == ">=3.11"
    assert "agent-client-protocol" in " ".join(metadata.get_all("Requires-Dist") or [])
    assert "harness9 = harness9.cli:main" in entry_points
    assert {"harness9/demo/replay.json", "harness9/demo/sample/pager.py",
            "harness9/py.typed"} <= set(names)
    assert not [n for n in names if n.endswith(".pyc") or n.startswith("tests/")]


def test_the_installed_wheel_runs_the_offline_demo(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(target), str(wheel)], check=True, timeout=120, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(target), "HARNESS9_STATE_DIR": str(tmp_path / "st")}
    env.pop("HARNESS9_TEST_PRELOAD_DIR", None)
    where = subprocess.run([sys.executable, "-c", "import harness9; print(harness9.__file__)"],
                           env=env, capture_output=True, text=True, check=True, timeout=30)
    assert where.stdout.startswith(str(target))  # the wheel's copy, not this working tree's
    demo = subprocess.run([sys.executable, "-m", "harness9", "run", "--demo", "--json"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)
    assert demo.returncode == 0, demo.stderr[-2000:]
    result = json.loads(demo.stdout.splitlines()[-1])["result"]
    assert result["status"] == "completed" and result["toolCalls"] > 0
