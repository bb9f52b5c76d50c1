"""`harness9 schema`: a valid JSON Schema (draft 2020-12) of every method and progress kind
docs/PROTOCOL.md names, the same document as docs/protocol.schema.json, and the same names as
`initialize` announces."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from harness9.protocol.announced import METHODS, PROGRESS_KINDS
from harness9.protocol.method_table import CLIENT_METHODS, method_names, progress_kinds
from harness9.protocol.schema_document import protocol_schema

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = (ROOT / "docs" / "PROTOCOL.md").read_text()
# A method the document names: `agent/run`, `harness9/diagnostics` (not a file path).
METHOD = re.compile(r"`((?:agent|harness9)/[a-zA-Z]+)")


@pytest.fixture(scope="module")
def printed() -> dict[str, Any]:
    """What `harness9 schema` prints."""
    done = subprocess.run([sys.executable, "-m", "harness9", "schema"], capture_output=True,
                          text=True, timeout=30, check=True)
    schema: dict[str, Any] = json.loads(done.stdout)
    return schema


def test_it_is_a_draft_2020_12_schema(printed: dict[str, Any]) -> None:
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(printed)


def test_it_covers_every_method_the_document_names(printed: dict[str, Any]) -> None:
    named = set(METHOD.findall(DOCUMENT)) - {"agent/progress"}
    defined = set(printed["x-harness9"]["methods"])
    assert named - defined == set()
    assert "agent/progress" in defined


def test_the_document_names_every_method_and_progress_kind(printed: dict[str, Any]) -> None:
    defs = printed["$defs"]
    kinds = [defs[r["$ref"].rsplit("/", 1)[1]]["properties"]["kind"]["const"]
             for r in defs["AgentProgress"]["oneOf"]]
    assert sorted(kinds) == sorted(PROGRESS_KINDS)
    assert [k for k in kinds if f"{k}" not in DOCUMENT] == []
    assert [m for m in printed["x-harness9"]["methods"] if f"`{m}" not in DOCUMENT] == []


def test_initialize_announces_what_the_records_define() -> None:
    assert method_names() == METHODS
    assert progress_kinds() == PROGRESS_KINDS
    assert [m.name for m in CLIENT_METHODS] == METHODS


def test_the_documented_copy_is_current(printed: dict[str, Any]) -> None:
    """docs/protocol.schema.json (what the docs link to and the TypeScript types are made from)
    is what the code prints: `harness9 schema > docs/protocol.schema.json` after a change."""
    copy = json.loads((ROOT / "docs" / "protocol.schema.json").read_text())
    assert copy == printed


def test_a_progress_record_carries_the_envelope() -> None:
    tool_failed = protocol_schema()["$defs"]["ToolFailed"]
    assert tool_failed["required"][:4] == ["runId", "sessionId", "seq", "kind"]
    assert tool_failed["additionalProperties"] is False


def test_the_commands_a_plain_client_gets_are_those_the_schema_defines() -> None:
    from harness9.lsp.plain_commands import COMMANDS as SERVED
    from harness9.protocol.lsp_commands import COMMANDS as DEFINED

    assert sorted(SERVED) == sorted(DEFINED)
    assert sorted(protocol_schema()["x-harness9"]["commands"]) == sorted(DEFINED)
