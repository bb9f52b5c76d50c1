"""The terminal client lends no language servers: the daemon it starts runs its own (real
`ruff server`), so an edit's new problems reach the model and the screen."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.client.conftest import run_harness9

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


def _break_it(workspace: Path, replay: Any) -> tuple[Path, dict[str, str]]:
    if RUFF is None:
        pytest.fail("ruff is one of the test tools (pip install -e .[test])")
    (workspace / "app.py").write_text("import os\n\nvalue = 1\nprint(value)\n")
    call = {"name": "edit_file", "arguments": {
        "path": "app.py", "source_text": "print(value)", "target_text": "print(undefined_name)"}}
    script = replay([{"text": "", "tool_calls": [call]}, {"text": "Broken."}])
    servers = {"ruff": {"command": [RUFF, "server"], "languages": ["python"]}}
    return script, {**os.environ, "HARNESS9_LANGUAGE_SERVERS": json.dumps(servers)}


@pytest.mark.timeout(60)
def test_an_edits_new_problem_comes_from_the_daemons_own_server(
    workspace: Path, replay: Any
) -> None:
    script, env = _break_it(workspace, replay)
    done = run_harness9("run", "break it", "--workspace", str(workspace), "--replay",
                        str(script), "--json", env=env)
    assert done.code == 0, done.err
    [edited] = [n for n in done.json_lines() if n.get("kind") == "tool_completed"]
    assert edited["diagnosticsSource"] == "harness9"
    assert edited["diagnostics"] == [{
        "path": "app.py", "line": 4, "column": 7, "severity": "error",
        "message": "Undefined name `undefined_name`", "source": "Ruff", "code": "F821"}]
    assert "New problems in app.py after this edit" in edited["output"]


@pytest.mark.timeout(60)
def test_the_view_shows_the_new_problem_under_the_edit(workspace: Path, replay: Any) -> None:
    script, env = _break_it(workspace, replay)
    done = run_harness9("run", "break it", "--workspace", str(workspace), "--replay",
                        str(script), env=env)
    assert done.code == 0, done.err
    assert "! app.py:4:7: error: Undefined name `undefined_name` (Ruff F821)" in done.out
