"""The command line without a model: usage errors, `tools`, start-up cost, the demo kit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness9.demo import prepare
from tests.client.conftest import HARNESS9, run_harness9

PROVIDER_VARIABLES = [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "HARNESS9_PROVIDER",
    "HARNESS9_MODEL",
]


@pytest.mark.timeout(20)
def test_run_without_a_provider_says_which_variables_to_set(workspace: Path) -> None:
    done = run_harness9("run", "fix it", "--workspace", str(workspace))
    assert done.code == 2
    assert done.out == ""
    for name in PROVIDER_VARIABLES:
        assert name in done.err
    assert "harness9 run --demo" in done.err


@pytest.mark.timeout(20)
def test_run_without_a_prompt_is_a_usage_error(workspace: Path) -> None:
    done = run_harness9("run", "--workspace", str(workspace), "--provider", "openai")
    assert done.code == 2
    assert "harness9 run --demo" in done.err


@pytest.mark.timeout(20)
def test_replay_provider_needs_a_script(workspace: Path) -> None:
    done = run_harness9("run", "x", "--workspace", str(workspace), "--provider", "replay")
    assert done.code == 2
    assert "--replay FILE" in done.err


@pytest.mark.timeout(20)
def test_tools_prints_the_tool_definitions(workspace: Path) -> None:
    done = run_harness9("tools", "--workspace", str(workspace),
                        env={**os.environ, "HARNESS9_LANGUAGE_SERVERS": "{}"})
    assert done.code == 0, done.err
    tools = {tool["name"]: tool for tool in json.loads(done.out)["tools"]}
    assert set(tools) == {"read_file", "write_file", "edit_file", "bash", "update_plan", "task"}
    assert tools["edit_file"]["inputSchema"]["required"] == ["path", "source_text", "target_text"]
    assert all(tool["description"] for tool in tools.values())
    kinds = {name: tool["kind"] for name, tool in tools.items()}
    assert kinds == {"read_file": "read", "write_file": "edit", "edit_file": "edit",
                     "bash": "execute", "update_plan": "think", "task": "think"}


@pytest.mark.timeout(20)
def test_the_command_line_imports_nothing_heavy_before_dispatch() -> None:
    probe = (
        "import sys, harness9.cli as cli; cli.build_parser().parse_args(['serve']); "
        "print(sorted(m for m in ('rich', 'openai', 'anthropic', 'pygls', 'prompt_toolkit')"
        " if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=15, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.timeout(20)
def test_help_documents_the_exit_codes() -> None:
    done = subprocess.run(
        [*HARNESS9, "run", "--help"], capture_output=True, text=True, timeout=15, check=True
    )
    for line in ("0    the run completed", "3    the run stopped at --max-turns", "130"):
        assert line in done.stdout


def test_demo_kit_is_a_fresh_copy_of_the_sample_project(tmp_path: Path) -> None:
    demo = prepare(tmp_path)
    names = sorted(p.name for p in demo.workspace.iterdir())
    assert names == ["README.md", "pager.py", "test_pager.py"]
    assert "start = number * size" in (demo.workspace / "pager.py").read_text()
    script = json.loads(demo.replay_file.read_text())
    assert demo.replay_file.parent == demo.workspace.parent
    assert [t.get("tool_calls", [{}])[0].get("name") for t in script["turns"]] == [
        "read_file",
        "edit_file",
        "bash",
        None,
    ]
    assert prepare(tmp_path).workspace != demo.workspace
    assert os.access(demo.workspace / "pager.py", os.R_OK | os.W_OK)


def test_provider_precedence_flag_then_variable_then_first_key() -> None:
    from harness9.client.run_config import resolve_provider

    both = {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}
    assert resolve_provider("anthropic", {**both, "HARNESS9_PROVIDER": "openai"}) == "anthropic"
    assert resolve_provider(None, {**both, "HARNESS9_PROVIDER": "anthropic"}) == "anthropic"
    assert resolve_provider(None, both) == "openai"
    assert resolve_provider(None, {"ANTHROPIC_API_KEY": "k"}) == "anthropic"
    assert resolve_provider(None, {"OPENAI_API_KEY": ""}) is None
