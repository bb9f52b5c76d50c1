"""`harness9 acp` loads the ACP SDK's schema without field docstrings, and the messages it
validates and writes are the same as with the SDK's own import. Each case runs in a fresh
interpreter: the test process has the SDK loaded already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

SERVER = str(Path(__file__).resolve().parents[2] / "server")

# Validates a prompt request and writes a notification, printing what the SDK made of them
# and how its base model is configured.
_PROBE = """
import json, sys
sys.path.insert(0, {server!r})
if {light}:
    from harness9.acp.schema_import import install
    install()
from acp.schema import BaseModel, PromptRequest, SessionNotification
request = PromptRequest.model_validate({{"sessionId": "s", "prompt": [
    {{"type": "text", "text": "hi"}},
    {{"type": "resource", "resource": {{"uri": "file:///a.py", "text": "x = 1"}}}}]}})
note = SessionNotification.model_validate({{"sessionId": "s", "update": {{
    "sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Read a.py", "kind": "read",
    "status": "pending", "locations": [{{"path": "/a.py", "line": 3}}]}}}})
field = PromptRequest.model_fields["session_id"]
print(json.dumps({{
    "request": request.model_dump(mode="json", by_alias=True, exclude_none=True),
    "note": note.model_dump(mode="json", by_alias=True, exclude_none=True),
    "config": dict(BaseModel.model_config),
    "description": field.description,
    "finders": [type(f).__name__ for f in sys.meta_path],
}}))
"""


def _probe(light: bool) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _PROBE.format(server=SERVER, light=light)],
                          capture_output=True, text=True, timeout=50, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_schema_loads_without_docstrings_and_validates_as_before() -> None:
    light, plain = _probe(True), _probe(False)
    assert plain["config"] == {"populate_by_name": True, "use_attribute_docstrings": True}
    assert light["config"] == {"populate_by_name": True}
    assert plain["description"] and light["description"] is None
    assert light["request"] == plain["request"]
    assert light["note"] == plain["note"]
    assert "_Finder" not in light["finders"]  # it took itself out once used


def test_installing_after_the_sdk_loaded_changes_nothing() -> None:
    from harness9.acp.schema_import import install

    assert "acp.schema" in sys.modules
    before = list(sys.meta_path)
    install()
    assert sys.meta_path == before
