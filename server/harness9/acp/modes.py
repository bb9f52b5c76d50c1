"""Session modes: the approval modes, chosen per session with `session/set_mode`.

A session starts in the mode the settings give (`approvals.mode`, else `HARNESS9_APPROVALS`,
else auto where the OS sandbox works, else ask); the client's choice replaces the mode for the
session's next prompts, keeping the settings' allow and deny rules, and is stored with the
session.
"""

from __future__ import annotations

from acp.schema import SessionMode, SessionModeState

from harness9.service.settings import RunSettings

AVAILABLE = [
    SessionMode(id="ask", name="Ask",
                description="Reads run; edits and commands ask first"),
    SessionMode(id="auto", name="Auto",
                description="Reads, edits and sandboxed commands run; leaving the sandbox asks"),
    SessionMode(id="auto-edit", name="Auto-edit",
                description="Reads and file edits run; commands ask first"),
    SessionMode(id="yolo", name="Yolo", description="Everything runs without asking"),
    SessionMode(id="read-only", name="Read-only",
                description="Reads run; edits and commands are refused"),
    SessionMode(id="plan", name="Plan",
                description="The agent investigates and writes a plan; nothing is changed"),
]


def is_mode(mode_id: str) -> bool:
    """Whether `mode_id` is one of the modes."""
    return any(mode.id == mode_id for mode in AVAILABLE)


def default_mode(settings: RunSettings) -> str:
    """The approval mode the settings give."""
    return settings.approval_policy().mode


def mode_state(current: str) -> SessionModeState:
    """The `modes` of a `session/new` or `session/load` answer."""
    return SessionModeState(current_mode_id=current, available_modes=AVAILABLE)
