"""Session modes: the approval modes, chosen per session with `session/set_mode`.

A session starts in the mode the settings give (`approvals.mode`, else `HARNESS9_APPROVALS`,
else auto where the OS sandbox works, else ask); the client's choice replaces the mode for the
session's next prompts, keeping the settings' allow and deny rules, and is stored with the
session. A mode the agent changes itself (`/approvals`, `/plan`, a plan carried out, a planning
prompt ending) is told to the client with `current_mode_update`, so its mode picker never shows
a mode the session is not in.
"""

from __future__ import annotations

from acp.schema import CurrentModeUpdate, SessionModeState

from harness9.acp import session_wire
from harness9.acp.update_stream import UpdateStream


def is_mode(mode_id: str) -> bool:
    """Whether `mode_id` is one of the modes."""
    return any(mode[0] == mode_id for mode in session_wire.MODES)


def mode_state(current: str) -> SessionModeState:
    """The `modes` of a `session/new` or `session/load` answer."""
    return SessionModeState.model_validate(session_wire.mode_state(current))


class ShownModes:
    """The mode the client shows for each session: as last answered, set or told."""

    def __init__(self) -> None:
        self._shown: dict[str, str] = {}

    def shown(self, session_id: str, mode: str) -> None:
        """The client was told `mode` (an answer's `modes`, its own `session/set_mode`)."""
        self._shown[session_id] = mode

    def follow(self, session_id: str, mode: str, stream: UpdateStream) -> None:
        """Queue a `current_mode_update` when the session is in a mode the client does not
        show."""
        if self._shown.get(session_id) != mode:
            self._shown[session_id] = mode
            stream.push(CurrentModeUpdate(session_update="current_mode_update",
                                          current_mode_id=mode))

    def forget(self, session_id: str) -> None:
        """The session was closed here."""
        self._shown.pop(session_id, None)
