"""Session modes: the approval modes, chosen per session with `session/set_mode`.

A session starts in the mode the settings give (`approvals.mode`, else `HARNESS9_APPROVALS`,
else auto where the OS sandbox works, else ask); the client's choice replaces the mode for the
session's next prompts, keeping the settings' allow and deny rules, and is stored with the
session.
"""

from __future__ import annotations

from acp.schema import SessionModeState

from harness9.acp import session_wire


def is_mode(mode_id: str) -> bool:
    """Whether `mode_id` is one of the modes."""
    return any(mode[0] == mode_id for mode in session_wire.MODES)


def mode_state(current: str) -> SessionModeState:
    """The `modes` of a `session/new` or `session/load` answer."""
    return SessionModeState.model_validate(session_wire.mode_state(current))
