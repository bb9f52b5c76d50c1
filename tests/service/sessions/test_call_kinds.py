"""The kind of a stored call's tool: the one kept with what the call came to, else (a call kept
by an older version) its built-in tool's."""

from __future__ import annotations

import pytest

from harness9.schema import ToolCall, ToolKind
from harness9.service.sessions.session import Session

pytestmark = pytest.mark.timeout(30)


def test_a_calls_kind_is_the_one_kept_else_its_built_in_tools() -> None:
    session = Session("s-1")
    session.calls = {"c1": {"status": "completed", "kind": "read"},
                     "c2": {"status": "completed"}, "c3": {"kind": "teleport"}}
    kept = ToolCall(id="c1", name="find_definition", arguments="{}")
    older = ToolCall(id="c2", name="edit_file", arguments="{}")
    unknown = ToolCall(id="c3", name="hover", arguments="{}")
    never = ToolCall(id="c4", name="mcp__x", arguments="{}")
    assert [session.call_kind(c) for c in (kept, older, unknown, never)] == [
        ToolKind.READ, ToolKind.EDIT, ToolKind.OTHER, ToolKind.OTHER]
