"""How a run ended, as the terminal client reports it, and the views' common interface."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

EXIT_CODES = {"completed": 0, "error": 1, "max_turns": 3, "cancelled": 130}


@dataclass(frozen=True, slots=True)
class Outcome:
    """The `agent/run` answer: a result, or a JSON-RPC error (`code`, `message`, `data`)."""

    status: str  # completed | max_turns | cancelled | error
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @property
    def session_id(self) -> str | None:
        """The session the run belonged to, from the result or the error's data."""
        source = self.result or (self.error or {}).get("data") or {}
        value = source.get("sessionId") if isinstance(source, dict) else None
        return str(value) if value else None

    @property
    def exit_code(self) -> int:
        """0 completed, 1 error, 3 max_turns, 130 cancelled."""
        return EXIT_CODES.get(self.status, 1)


class View(Protocol):
    """What shows a run: the live terminal view, or JSON lines for scripts."""

    def progress(self, params: dict[str, Any]) -> None:
        """An `agent/progress` notification arrived."""

    def log(self, message: str) -> None:
        """The daemon sent a `window/logMessage` or `window/showMessage`."""

    def cancelling(self) -> None:
        """The user asked to cancel; the daemon has been told."""

    def show(self, note: Any) -> None:
        """Print a note (a rich renderable) above the run."""

    def aside(self) -> AbstractContextManager[None]:
        """Step out of the way of a question to the user for the block."""

    def finished(self, outcome: Outcome, notes: list[tuple[str, Path]]) -> None:
        """The run ended; `notes` are labelled paths to print last (workspace, log file)."""
