"""The service's errors: what every front-end may get back from `AgentService`, drawn once.

```
ServiceError
 ├── UnknownSession      no session of this daemon (or its store) has the id
 ├── UnknownCheckpoint   the session has no such checkpoint, or it is no longer kept
 ├── UnknownRun          no run of this daemon with that id runs (or just ended)
 ├── NotARepository      a run in a worktree asked for a workspace outside git (or at
 │                       one of its limits)
 ├── RunError            the request could not go on; `kind` classifies it:
 │                         auth · rate_limit · network · http   (the provider's, with `status`)
 │                         config                                (settings, checkpoints off)
 │                         busy                                  (a session runs or is rewritten,
 │                                                                or another daemon holds it)
 │                         conflict                              (a restore refused before it
 │                                                                wrote: something is in the way)
 │                         internal                              (a defect: logged with its trace)
 └── RunCancelled        the run was cancelled (by the user, or its front-end's request was)
```

Each front-end maps them to its wire in one place (`lsp/lsp_errors.py`, `acp/acp_errors.py`):
an unknown id is an invalid parameter naming its field, a `RunError` is -32803 with `data.kind`,
a cancellation is the wire's own.
"""

from __future__ import annotations

from typing import Any

from harness9.provider.provider_errors import ModelNotFoundError, ProviderError


class ServiceError(Exception):
    """Any failure the service reports to a front-end."""


class UnknownSession(ServiceError, LookupError):
    """No session of this daemon has that id."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"unknown session {session_id!r}")
        self.session_id = session_id


class NotARepository(ServiceError):
    """The workspace cannot have a worktree (not in a git repository, one without commits, or
    a limit the message names); the front-ends name the `isolation` parameter."""


class UnknownCheckpoint(ServiceError, LookupError):
    """The session has no checkpoint with that id (or it was pruned)."""

    def __init__(self, checkpoint_id: str, why: str = "the session has no such checkpoint") -> None:
        super().__init__(f"unknown checkpoint {checkpoint_id!r}: {why}")
        self.checkpoint_id = checkpoint_id


class RunError(ServiceError):
    """The run could not go on. `kind` classifies it (`auth`, `rate_limit`, `network`, `http`,
    `config`, `busy`, `conflict`, `internal`); `data` carries the rest (`status`, ids)."""

    def __init__(self, message: str, kind: str, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.data = data

    @classmethod
    def of_provider(cls, exc: ProviderError, **ids: str) -> RunError:
        """The provider's classified failure, with the ids of what it ended."""
        return cls(exc.message, exc.kind, **ids, **provider_status(exc))


class UnknownRun(ServiceError, LookupError):
    """No run of this daemon with that id is running (or ended a moment ago)."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"no running run {run_id!r}")
        self.run_id = run_id


class RunCancelled(ServiceError):
    """The run was cancelled (by the user, or its front-end's request was); `reason` says how
    a run that never started left its queue (`removed`, `cancelled`)."""

    def __init__(self, run_id: str, session_id: str, reason: str | None = None) -> None:
        super().__init__("the run was removed from the queue" if reason == "removed"
                         else "the run was cancelled")
        self.run_id = run_id
        self.session_id = session_id
        self.reason = reason


def provider_status(exc: ProviderError) -> dict[str, Any]:
    """The HTTP status of a provider failure, as error data (nothing when it had none), and
    the model the service does not offer when that was the failure."""
    data: dict[str, Any] = {"status": exc.status} if exc.status is not None else {}
    if isinstance(exc, ModelNotFoundError) and exc.model:
        data["model"] = exc.model
    return data


def busy(message: str, **data: Any) -> RunError:
    """A `busy` refusal: the session runs, is being rewritten, or another daemon holds it."""
    return RunError(message, "busy", **data)
