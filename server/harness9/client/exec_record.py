"""What `harness9 exec` reports: how the run ended (its status and exit code) and the result
record `{type: "result", status, isError, sessionId, turns, usage, costUsd, durationMs, text,
error?}`, folded from the runs' notifications and the `agent/run` answer.

Pure: no terminal, no daemon. A declined call is one the mode denied or nobody could be asked
about (`tool_failed` with reason `denied` or `rejected`); the run could not do without it when no
call of the same kind (read, edit, execute, other) ran after it: the model found no other way to
do that kind of work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness9.client.exec_options import EXIT_CODES, SIGTERM_EXIT
from harness9.client.outcome import Outcome

DECLINED = ("denied", "rejected")
USAGE_KEYS = ("inputTokens", "outputTokens", "cachedInputTokens", "cacheWriteInputTokens")


@dataclass(slots=True)
class Tally:
    """What the notifications of the runs so far said that the record needs."""

    turns: int = 0
    usage: dict[str, int] = field(default_factory=lambda: {k: 0 for k in USAGE_KEYS[:2]})
    cost: float = 0.0
    text: str = ""  # the last run's final text, from its run_finished
    # Per tool kind: the last call of that kind that was declined (its tool), or None when a
    # call of that kind ran after it.
    declined: dict[str, str | None] = field(default_factory=dict)
    _run_cost: float = 0.0  # the current run's cost so far (usage notifications are running)

    def progress(self, params: dict[str, Any]) -> None:
        """Fold one `agent/progress` notification in."""
        kind, tool_kind = params.get("kind"), str(params.get("toolKind", "other"))
        if kind == "tool_failed" and params.get("reason") in DECLINED:
            self.declined[tool_kind] = str(params.get("tool", tool_kind))
        elif kind == "tool_started" and tool_kind in self.declined:
            self.declined[tool_kind] = None
        elif kind == "usage" and isinstance(params.get("costUsd"), (int, float)):
            self._run_cost = float(params["costUsd"])
        elif kind == "run_finished":
            self._finished(params)

    def _finished(self, params: dict[str, Any]) -> None:
        self.turns += int(params.get("turns") or 0)
        for key, value in (params.get("usage") or {}).items():
            if key in USAGE_KEYS and isinstance(value, int):
                self.usage[key] = self.usage.get(key, 0) + value
        self.cost += self._run_cost
        self._run_cost = 0.0
        self.text = str(params.get("text") or "")

    def needed(self) -> list[str]:
        """The tools of declined calls the run did no work of that kind without."""
        return [tool for tool in self.declined.values() if tool is not None]


def final_status(outcome: Outcome, tally: Tally) -> tuple[str, dict[str, Any] | None]:
    """The headless status of a run that ended as `outcome`, and its error record."""
    if outcome.status != "completed":
        return outcome.status, _error_of(outcome)
    needed = tally.needed()
    if needed:
        message = (f"declined: {', '.join(needed)}; nobody could allow it and the run did no "
                   "such work another way (let such calls run with --approvals)")
        return "declined", {"kind": "declined", "message": message, "tools": needed}
    return "completed", None


def _error_of(outcome: Outcome) -> dict[str, Any]:
    """The record's `error`: the kind first (`auth`, `network`, … as the daemon names it)."""
    error = outcome.error or {}
    data = error.get("data") if isinstance(error.get("data"), dict) else {}
    if outcome.status in ("max_turns", "cancelled"):
        kind = outcome.status
    else:
        kind = str((data or {}).get("kind") or "internal")
    message = str(error.get("message") or _MESSAGES.get(outcome.status, "the run failed"))
    record: dict[str, Any] = {"kind": kind, "message": message}
    if "code" in error:
        record["code"] = error["code"]
    record.update({k: data[k] for k in ("status", "model") if data and k in data})
    return record


_MESSAGES = {
    "max_turns": "the run stopped at its turn limit (--max-turns) before it finished",
    "cancelled": "the run was cancelled",
}


def exit_code(status: str, signal_name: str | None = None) -> int:
    """The process's exit code for a run that ended with `status`."""
    if status == "cancelled" and signal_name == "SIGTERM":
        return SIGTERM_EXIT
    return EXIT_CODES.get(status, EXIT_CODES["error"])


def result_record(
    status: str,
    error: dict[str, Any] | None,
    tally: Tally,
    *,
    session_id: str | None,
    duration_ms: float,
    text: str,
) -> dict[str, Any]:
    """The last JSON line of `exec --json` (also what a caller aggregates)."""
    record: dict[str, Any] = {
        "type": "result",
        "status": status,
        "isError": status != "completed",
        "sessionId": session_id,
        "turns": tally.turns,
        "usage": tally.usage,
        "costUsd": round(tally.cost, 6),
        "durationMs": round(duration_ms),
        "text": text,
    }
    if error is not None:
        record["error"] = error
    return record
