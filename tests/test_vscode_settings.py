"""The VS Code extension's settings: a workspace cannot choose what runs.

A repository's `.vscode/settings.json` is written by whoever wrote the repository (or by a model
allowed to edit files). VS Code reads a `machine`-scoped setting from the user's settings only,
so every setting that chooses a program, a file to run, a provider, a model, a URL, prices or
what is approved must be machine-scoped; the rest say explicitly that a workspace may set them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
EXTENSION = ROOT / "editors" / "vscode"

# What a workspace may set: limits and presentation, nothing that picks what runs or who answers.
WORKSPACE_MAY_SET = {
    "harness9.maxTurns",
    "harness9.toolTimeoutMs",
    "harness9.thinking",
    "harness9.stream",
    "harness9.editsThroughEditor",
    "harness9.diagnosticsAfterEdit",
    "harness9.diagnosticsWaitMs",
}
# A name with one of these words chooses what runs (a program, a file, a service, a model, prices).
CHOOSES_WHAT_RUNS = re.compile(
    r"command|program|python|exec|path|file|script|provider|model|url|endpoint|host|server|price|cost|approval|env",
    re.IGNORECASE,
)


def _settings() -> dict[str, dict[str, Any]]:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    sections = manifest["contributes"]["configuration"]
    sections = sections if isinstance(sections, list) else [sections]
    merged: dict[str, dict[str, Any]] = {}
    for section in sections:
        merged.update(section["properties"])
    return merged


def test_every_setting_that_chooses_what_runs_is_machine_scoped() -> None:
    settings = _settings()
    assert settings, "no settings found in package.json"
    for key, schema in settings.items():
        scope = schema.get("scope")
        if key in WORKSPACE_MAY_SET:
            assert not CHOOSES_WHAT_RUNS.search(key.removeprefix("harness9.")), key
            assert scope in {"machine", "machine-overridable"}, f"{key}: scope {scope!r}"
        else:
            assert scope == "machine", f"{key} chooses what runs but has scope {scope!r}"


def test_the_settings_named_in_the_issue_are_machine_scoped() -> None:
    settings = _settings()
    for key in ("serverCommand", "python", "provider", "model", "replayFile", "prices",
                "approvals.mode", "approvals.allow", "approvals.deny"):
        assert settings[f"harness9.{key}"].get("scope") == "machine", key


def test_the_extension_reads_settings_only_through_vscode_configuration() -> None:
    """No code reads a workspace's value some other way (inspect(), the settings file itself)."""
    for source in (EXTENSION / "src").rglob("*.ts"):
        text = source.read_text(encoding="utf-8")
        for forbidden in ("workspaceValue", "workspaceFolderValue", ".inspect("):
            assert forbidden not in text, f"{source.name} uses {forbidden}"
        for match in re.finditer(r"settings\.json", text):
            line = text[: match.start()].count("\n") + 1
            raise AssertionError(f"{source.name}:{line} touches a settings.json file")
