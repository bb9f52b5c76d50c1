"""What a front-end gives a run (`AgentService.turns.run`) and what it gets back: the request,
the ids the run gets, and what the front-end plugs into the run (observers, approver,
workspace)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness9.schema import Image
from harness9.service.attachments import ContextItem
from harness9.service.config.settings import RunSettings

if TYPE_CHECKING:
    # Types only: the daemon reads this module at start-up, and loads the engine later.
    from harness9.engine import RunResult
    from harness9.engine.events import Subscriber
    from harness9.mcp.server_config import McpServerConfig
    from harness9.tools.approvals.step import Approver
    from harness9.tools.language import LanguageQueries
    from harness9.tools.problems import ProblemSource
    from harness9.workspace.port import Workspace


# The prompt of a run that carries out the session's plan when the user typed none.
EXECUTE_PROMPT = "Carry out the plan."


@dataclass(frozen=True, slots=True)
class CommandView:
    """How a front-end shows the built-in commands: answers in Markdown (else plain text),
    and the commands it does not offer (left out of `/help`)."""

    markdown: bool = False
    hidden: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What to run: the prompt, the session to continue (None: a new one), the workspace root
    the tools act on, the settings after precedence, and the editor context attached to the
    prompt."""

    prompt: str
    root: str
    settings: RunSettings
    session_id: str | None = None
    context: tuple[ContextItem, ...] = ()
    # MCP servers of this session alone (an ACP client gives them with the session), on top
    # of the settings' servers every session shares.
    mcp_servers: tuple[McpServerConfig, ...] = ()
    queue: bool = True  # wait behind a running run of the session (False: `busy` instead)
    plan: bool = False  # this run only plans (approval mode `plan`)
    execute_plan: bool = False  # carry out the stored plan, in the session's normal mode
    claim: str | None = None  # the run id of a slot reserved for this run (a left-over steer)
    mode: str | None = None  # the approval mode of this run alone (a left-over steer's: its run's)
    own_model: bool = False  # the request chose provider, model or effort: the session's waits
    images: tuple[Image, ...] = ()  # given with the prompt, for a model that sees images
    commands: CommandView = CommandView()  # how the front-end shows a built-in's answer
    isolation: str | None = None  # "worktree": the run works in a git worktree of its own


@dataclass(frozen=True, slots=True)
class RunIds:
    """The ids a front-end needs before the run starts (to label its notifications)."""

    run_id: str
    session_id: str

    def as_data(self) -> dict[str, str]:
        """The ids as error data (`runId`, `sessionId`)."""
        return {"runId": self.run_id, "sessionId": self.session_id}


@dataclass(frozen=True, slots=True)
class RunContext:
    """What a front-end learns before the run starts: its ids, the turn of each call, and
    where it runs."""

    ids: RunIds
    turn_of: Callable[[str], int]
    root: str = ""  # where the run's tools act (a task's worktree: not the front-end's root)
    worktree: tuple[str, str] | None = None  # a task's worktree: (its root, its branch)


@dataclass(slots=True)
class RunWiring:
    """What a front-end plugs into one run: event subscribers, the approver (None: nobody
    can be asked, so a call that needs asking is rejected), the workspace the file tools
    read and write through (None: the disk), and where the editor's problems come from."""

    subscribers: Sequence[Subscriber] = ()
    approver: Approver | None = None
    workspace: Workspace | None = None
    problems: ProblemSource | None = None  # the editor's problems (None: it tells none)
    language: LanguageQueries | None = None  # the editor's language servers (None: none)


Wire = Callable[[RunContext], Awaitable[RunWiring]]


@dataclass(frozen=True, slots=True)
class SteerOutcome:
    """What became of a steer: `delivered` `run` (it is in the running conversation of
    `run_id`) or `next` (the run ended first: it is the session's next prompt, to be run as
    `run_id` with `RunRequest.claim`)."""

    delivered: str
    run_id: str
    session_id: str


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """A finished run: its ids and the engine's result; a slash command's run adds the
    command's name and the fields its answer adds."""

    ids: RunIds
    result: RunResult
    command: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
